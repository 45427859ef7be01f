package sim

import "countsim/strategies"

// What each kind of run measures, for the expectations' check at load
// time (kind.reports). Each list is what the kind's scoring adds; a test
// holds them to the rows the built-in scenarios measure.

// keyedReports is what a count or timed stream measures of a design: its
// memory and speed, its point counts if it counts keys, its top K if it
// answers one, and over trials its share of keys over the bound.
func keyedReports(st *Setup, d *design) []strategies.Metric {
	ms := []strategies.Metric{strategies.MetricBytes, strategies.MetricTotalBytes, strategies.MetricHeapBytes,
		strategies.MetricNsPerEvent, strategies.MetricEventsPerSec}
	if d.typ.Answers(strategies.FamilyPointCounter) {
		ms = append(ms, strategies.MetricUndercounts, strategies.MetricMaxOverestimate, strategies.MetricMeanOverestimate,
			strategies.MetricP99Overestimate, strategies.MetricKeysOverBound, strategies.MetricShareOverBound, strategies.MetricBoundTestP)
	}
	// A top K where one is asked: some types answer it by a parameter
	// (count-min's top), so their family does not say.
	if st.Scenario.Questions.Top > 0 {
		ms = append(ms, strategies.MetricTopKRecall, strategies.MetricTopKPrecision, strategies.MetricTopKCountError, strategies.MetricTopKCountBias, strategies.MetricKthEstimate)
		// A design spread over nodes: what it sent its coordinator.
		ms = append(ms, strategies.MetricMessages, strategies.MetricItemsSent, strategies.MetricBytesSent, strategies.MetricNodeBytesMax)
	}
	return ms
}

// keyedTruthReports is what a count stream measures of itself.
var keyedTruthReports = []strategies.Metric{strategies.MetricEvents, strategies.MetricDistinctKeys,
	strategies.MetricTop1Count, strategies.MetricKthTrueCount}

func (k *streamKind) reports(d *design) []strategies.Metric {
	if d == nil {
		return keyedTruthReports
	}
	return keyedReports(k.st, d)
}

// serverReports is what a timed stream adds of a design: the load on its
// cluster, what its readers were shown, its final counts and their loss.
var serverReports = []strategies.Metric{
	strategies.MetricBacklogEnd, strategies.MetricBacklogGrowth, strategies.MetricBacklogGrowthPeak, strategies.MetricCountError,
	strategies.MetricDedupDropped, strategies.MetricDelayMax, strategies.MetricDelayP99, strategies.MetricDrainedAfter,
	strategies.MetricFinalCount, strategies.MetricIncrementsPerSec, strategies.MetricKeysUsed, strategies.MetricLostOnCrash,
	strategies.MetricLostOnNodeLoss, strategies.MetricMaxKeyOps, strategies.MetricMaxNodeOps, strategies.MetricMeanKeyOps,
	strategies.MetricP99KeyOps, strategies.MetricReadOpsPerSec, strategies.MetricReadsAnswered, strategies.MetricShutdownOps,
	strategies.MetricStaleness, strategies.MetricStalenessMaxSec, strategies.MetricStalenessP99, strategies.MetricStalenessP99Sec,
	strategies.MetricUtilisation, strategies.MetricUtilisationMax,
}

// realReports is what a twin on a real store adds (realstore.go).
var realReports = []strategies.Metric{
	strategies.MetricStoreOps, strategies.MetricRoundTrips, strategies.MetricKeysUsed, strategies.MetricOfferedOps,
	strategies.MetricAchievedOps, strategies.MetricLatencyP50, strategies.MetricLatencyP99, strategies.MetricLatencyMax,
	strategies.MetricBehind, strategies.MetricKeptUp, strategies.MetricNodesUsed, strategies.MetricNodeOpsMax,
	strategies.MetricNodeOpsMin, strategies.MetricStoreMismatch,
}

func (k *timedKind) reports(d *design) []strategies.Metric {
	if d == nil {
		return append([]strategies.Metric{strategies.MetricWrites, strategies.MetricReads, strategies.MetricResends}, keyedTruthReports...)
	}
	ms := append(keyedReports(k.st, d), serverReports...)
	if d.real != "" {
		ms = append(ms, realReports...)
	}
	return ms
}

func (k *audienceKind) reports(d *design) []strategies.Metric {
	if d == nil {
		return []strategies.Metric{strategies.MetricEvents, strategies.MetricDistinct}
	}
	ms := []strategies.Metric{strategies.MetricBytes, strategies.MetricNsPerEvent, strategies.MetricDistinct,
		strategies.MetricRelativeError, strategies.MetricError}
	if d.real != "" {
		ms = append(ms, realReports...)
	}
	return ms
}

func (k *profileKind) reports(d *design) []strategies.Metric {
	if d == nil {
		return nil
	}
	return []strategies.Metric{strategies.MetricNsPerEvent, strategies.MetricSigmaLargeN, strategies.MetricMedianSmallN}
}

func (k *boardKind) reports(d *design) []strategies.Metric {
	if d == nil {
		return []strategies.Metric{strategies.MetricEvents, strategies.MetricWrites, strategies.MetricRankQueries, strategies.MetricPlayers,
			strategies.MetricDistinctScores, strategies.MetricTiedPlayers}
	}
	ms := []strategies.Metric{strategies.MetricBytes, strategies.MetricTotalBytes, strategies.MetricScoresTableBytes,
		strategies.MetricNsPerEvent, strategies.MetricEventsPerSec, strategies.MetricPlayers, strategies.MetricBytesPerEntry,
		strategies.MetricRankFanout, strategies.MetricTopExact, strategies.MetricTopKRecall, strategies.MetricCountAboveWrong,
		strategies.MetricDenseScoresSent, strategies.MetricDenseScoresMax, strategies.MetricBuckets,
		strategies.MetricRankErrorMean, strategies.MetricRankErrorP99, strategies.MetricRankRelErrorMax, strategies.MetricRankRelErrorP99,
		strategies.MetricPercentileErrorMax, strategies.MetricPercentileErrorP99}
	for _, t := range strategies.AllTies {
		wrong, maxErr := tieMetrics(t)
		ms = append(ms, wrong, maxErr)
	}
	if d.real != "" {
		ms = append(ms, append(realReports, strategies.MetricStoreScores, strategies.MetricStoreRanks)...)
	}
	return append(ms, serverReports...)
}

func (k *splitKind) reports(d *design) []strategies.Metric {
	if d == nil {
		return append([]strategies.Metric{strategies.MetricNodes, strategies.MetricPlantedCount, strategies.MetricPlantedNodeMax,
			strategies.MetricLocalKthMin}, keyedTruthReports...)
	}
	return append(keyedReports(k.st, d), strategies.MetricPlantedFound, strategies.MetricMissedHeavy)
}

func (k *logKind) reports(d *design) []strategies.Metric {
	if d == nil {
		return append([]strategies.Metric{strategies.MetricSkippedLines, strategies.MetricReorderedEvents}, keyedTruthReports...)
	}
	return keyedReports(k.st, d)
}

// populationReports is what a posts run adds of a design that sizes each
// post's counter (posts_score.go).
var populationReports = []strategies.Metric{
	strategies.MetricStripesHeld, strategies.MetricStripesPerPost, strategies.MetricStripesUnneeded, strategies.MetricStripesLiveMax,
	strategies.MetricPostsOverCapacity, strategies.MetricSecondsOverCapacity, strategies.MetricViralStripesFirst,
	strategies.MetricViralStripesMax, strategies.MetricViralOverCapacity, strategies.MetricViralRescue,
	strategies.MetricViralQueueMax, strategies.MetricViralDelayMax,
}

func (k *postsKind) reports(d *design) []strategies.Metric {
	if d == nil {
		return []strategies.Metric{strategies.MetricEvents, strategies.MetricWrites, strategies.MetricPosts, strategies.MetricViralPosts,
			strategies.MetricViralPeak, strategies.MetricViralStripesNeeded, strategies.MetricDistinctKeys}
	}
	return append(append(keyedReports(k.st, d), serverReports...), populationReports...)
}
