package sim

import (
	"countsim/metrics"
	"countsim/sim/clientrows"
	"countsim/sim/engine"
	"countsim/strategies"
)

// What each kind of run measures, for the expectations' check at load
// time (kind.reports). Each list is what the kind's scoring adds; a test
// holds them to the rows the built-in scenarios measure.

// keyedReports is what a count or timed stream measures of a design: its
// memory and speed, its point counts if it counts keys, its top K if it
// answers one, and over trials its share of keys over the bound.
func keyedReports(top int, d *engine.Design) []metrics.Metric {
	ms := []metrics.Metric{metrics.Bytes, metrics.TotalBytes, metrics.HeapBytes,
		metrics.NsPerEvent, metrics.EventsPerSec}
	if d.Typ.Answers(strategies.FamilyPointCounter) {
		ms = append(ms, metrics.Undercounts, metrics.MaxOverestimate, metrics.MeanOverestimate,
			metrics.P99Overestimate, metrics.KeysOverBound, metrics.ShareOverBound, metrics.BoundTestP)
	}
	// A top K where one is asked: some types answer it by a parameter
	// (count-min's top), so their family does not say.
	if top > 0 {
		ms = append(ms, metrics.TopKRecall, metrics.TopKPrecision, metrics.TopKCountError, metrics.TopKCountBias, metrics.KthEstimate)
		// A design spread over nodes: what it sent its coordinator.
		ms = append(ms, metrics.Messages, metrics.ItemsSent, metrics.BytesSent, metrics.NodeBytesMax)
	}
	return ms
}

// keyedTruthReports is what a count stream measures of itself.
var keyedTruthReports = []metrics.Metric{metrics.Events, metrics.DistinctKeys,
	metrics.Top1Count, metrics.KthTrueCount}

func (k *streamKind) Reports(d *engine.Design) []metrics.Metric {
	planted := k.src.Planted() > 0
	switch {
	case d == nil && planted:
		return append([]metrics.Metric{metrics.PlantedCount}, keyedTruthReports...)
	case d == nil:
		return keyedTruthReports
	case planted && d.Typ.Answers(strategies.FamilyPointCounter):
		return append(keyedReports(k.top, d), metrics.PlantedEstimate, metrics.PlantedExcess)
	}
	return keyedReports(k.top, d)
}

// serverReports is what a timed stream adds of a design: the load on its
// cluster, what its readers were shown, its final counts and their loss.
var serverReports = []metrics.Metric{
	metrics.BacklogEnd, metrics.BacklogGrowth, metrics.BacklogGrowthPeak, metrics.CountError,
	metrics.DedupDropped, metrics.DelayMax, metrics.DelayP99, metrics.DrainedAfter,
	metrics.FaultFailedOps, metrics.FaultRecovery, metrics.FinalCount, metrics.IncrementsPerSec, metrics.KeysUsed,
	metrics.LostOnCrash, metrics.LostOnFailover, metrics.LostOnNodeLoss, metrics.MaxKeyOps, metrics.MaxNodeOps,
	metrics.MeanKeyOps, metrics.P99KeyOps, metrics.ReadOpsPerSec, metrics.ReadsAnswered, metrics.ShutdownOps,
	metrics.Staleness, metrics.StalenessMaxSec, metrics.StalenessP99, metrics.StalenessP99Sec,
	metrics.Utilisation, metrics.UtilisationMax,
}

// realReports is what a twin on a real store adds (realstore.go).
var realReports = []metrics.Metric{
	metrics.StoreOps, metrics.RoundTrips, metrics.KeysUsed, metrics.OfferedOps,
	metrics.AchievedOps, metrics.LatencyP50, metrics.LatencyP99, metrics.LatencyMax,
	metrics.Behind, metrics.KeptUp, metrics.NodesUsed, metrics.NodeOpsMax,
	metrics.NodeOpsMin, metrics.StoreMismatch,
}

func (k *timedKind) Reports(d *engine.Design) []metrics.Metric {
	if d == nil {
		return append([]metrics.Metric{metrics.Writes, metrics.Reads, metrics.Resends}, keyedTruthReports...)
	}
	ms := append(keyedReports(k.top, d), serverReports...)
	ms = append(ms, clientrows.Reports...)
	if d.Real != "" {
		ms = append(ms, realReports...)
	}
	return ms
}

func (k *audienceKind) Reports(d *engine.Design) []metrics.Metric {
	if d == nil {
		return []metrics.Metric{metrics.Events, metrics.Distinct}
	}
	ms := []metrics.Metric{metrics.Bytes, metrics.NsPerEvent, metrics.Distinct,
		metrics.RelativeError, metrics.Error}
	if d.Typ.OnServers() { // the union's cost on the store, and the nodes its keys are on (storecost.go)
		ms = append(ms, metrics.UnionOps, metrics.UnionRoundTrips, metrics.UnionBytes, metrics.MergeRefused, metrics.NodesUsed)
	}
	if d.Real != "" {
		ms = append(ms, realReports...)
	}
	return ms
}

func (k *profileKind) Reports(d *engine.Design) []metrics.Metric {
	if d == nil {
		return nil
	}
	return []metrics.Metric{metrics.NsPerEvent, metrics.SigmaLargeN, metrics.MedianSmallN}
}

func (k *boardKind) Reports(d *engine.Design) []metrics.Metric {
	if d == nil {
		return []metrics.Metric{metrics.Events, metrics.Writes, metrics.RankQueries, metrics.Players,
			metrics.DistinctScores, metrics.TiedPlayers}
	}
	ms := []metrics.Metric{metrics.Bytes, metrics.TotalBytes, metrics.ScoresTableBytes,
		metrics.NsPerEvent, metrics.EventsPerSec, metrics.Players, metrics.BytesPerEntry,
		metrics.RankFanout, metrics.TopExact, metrics.TopKRecall, metrics.CountAboveWrong,
		metrics.DenseScoresSent, metrics.DenseScoresMax, metrics.Buckets,
		metrics.RankErrorMean, metrics.RankErrorP99, metrics.RankRelErrorMax, metrics.RankRelErrorP99,
		metrics.PercentileErrorMax, metrics.PercentileErrorP99}
	for _, t := range strategies.AllTies {
		wrong, maxErr := tieMetrics(t)
		ms = append(ms, wrong, maxErr)
	}
	if d.Real != "" {
		ms = append(ms, append(realReports, metrics.StoreScores, metrics.StoreRanks)...)
	}
	return append(ms, serverReports...)
}

func (k *splitKind) Reports(d *engine.Design) []metrics.Metric {
	if d == nil {
		return append([]metrics.Metric{metrics.Nodes, metrics.PlantedCount, metrics.PlantedNodeMax,
			metrics.LocalKthMin}, keyedTruthReports...)
	}
	return append(keyedReports(k.top, d), metrics.PlantedFound, metrics.MissedHeavy)
}

func (k *logKind) Reports(d *engine.Design) []metrics.Metric {
	if d == nil {
		return append([]metrics.Metric{metrics.SkippedLines, metrics.ReorderedEvents}, keyedTruthReports...)
	}
	return keyedReports(k.top, d)
}

// populationReports is what a posts run adds of a design that sizes each
// post's counter (posts_score.go).
var populationReports = []metrics.Metric{
	metrics.StripesHeld, metrics.StripesPerPost, metrics.StripesUnneeded, metrics.StripesLiveMax,
	metrics.PostsOverCapacity, metrics.SecondsOverCapacity, metrics.ViralStripesFirst,
	metrics.ViralStripesMax, metrics.ViralOverCapacity, metrics.ViralRescue,
	metrics.ViralQueueMax, metrics.ViralDelayMax,
}

func (k *postsKind) Reports(d *engine.Design) []metrics.Metric {
	if d == nil {
		return []metrics.Metric{metrics.Events, metrics.Writes, metrics.Posts, metrics.ViralPosts,
			metrics.ViralPeak, metrics.ViralStripesNeeded, metrics.DistinctKeys}
	}
	return append(append(keyedReports(k.top, d), serverReports...), populationReports...)
}
