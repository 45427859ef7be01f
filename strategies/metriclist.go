// metricList is kept in step with metricnames.go by TestMetricListIsComplete.

package strategies

// metricList is every declared Metric, so that a name read from a scenario
// (an expectation) can be checked without running anything.
var metricList = []Metric{
	MetricBytes,
	MetricHeapBytes,
	MetricTotalBytes,
	MetricBytesFull,
	MetricBytesPerShard,
	MetricServerDataBytes,
	MetricFitsOneServer,
	MetricShardsNeeded,
	MetricExactBytes,
	MetricBytesRatio,
	MetricShards,
	MetricMergeCandidates,
	MetricUndercounts,
	MetricMaxOverestimate,
	MetricMeanOverestimate,
	MetricP99Overestimate,
	MetricOverestimateBound,
	MetricBoundConfidence,
	MetricBound2N,
	MetricBound2NConfidence,
	MetricKeysOverBound,
	MetricShareOverBound,
	MetricBoundTestP,
	MetricBoundShareOfKth,
	MetricFailure,
	MetricWidth,
	MetricDepth,
	MetricCounters,
	MetricGuaranteeAbove,
	MetricEvents,
	MetricWrites,
	MetricReads,
	MetricResends,
	MetricDistinctKeys,
	MetricTop1Count,
	MetricKthTrueCount,
	MetricTopKRecall,
	MetricTopKPrecision,
	MetricTopKCountError,
	MetricKthEstimate,
	MetricNsPerEvent,
	MetricEventsPerSec,
	MetricStripes,
	MetricStripesAtLimit,
	MetricStripesAtHeadroom,
	MetricStripesNeeded,
	MetricStripesPow2,
	MetricStripesAtPeak,
	MetricServers,
	MetricKeysUsed,
	MetricMaxKeyOps,
	MetricMeanKeyOps,
	MetricP99KeyOps,
	MetricUtilisation,
	MetricUtilisationMax,
	MetricBacklogEnd,
	MetricBacklogGrowth,
	MetricBacklogGrowthPeak,
	MetricDelayMax,
	MetricDelayP99,
	MetricIncrementsPerSec,
	MetricReadOpsPerSec,
	MetricMaxNodeOps,
	MetricShutdownOps,
	MetricShutdownMaxKeyOps,
	MetricDrainedAfter,
	MetricLostOnNodeLoss,
	MetricLostOnCrash,
	MetricFinalCount,
	MetricCountError,
	MetricDedupDropped,
	MetricDedupIDs,
	MetricStaleness,
	MetricStalenessP99,
	MetricStalenessMaxSec,
	MetricStalenessP99Sec,
	MetricReadsAnswered,
	MetricDistinct,
	MetricRelativeError,
	MetricError,
	MetricErrorCount,
	MetricRegisters,
	MetricStandardError,
	MetricSigmaLargeN,
	MetricMedianSmallN,
}

// Metrics returns every declared Metric, in the order metricnames.go
// declares them.
func Metrics() []Metric { return append([]Metric(nil), metricList...) }

// KnownMetric reports whether name is a declared Metric.
func KnownMetric(name string) bool {
	for _, m := range metricList {
		if string(m) == name {
			return true
		}
	}
	return false
}
