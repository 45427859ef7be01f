package strategies

// Metric names. A plan line here and a measured row in package sim name the
// same figure with the same constant, so that the runner puts the plan
// beside the measurement by name: a misspelt name fails to compile instead
// of silently leaving a measurement without its plan.

// Metric is the name of a figure, measured or planned.
type Metric string

// Memory.
const (
	MetricBytes           Metric = "bytes"             // what the design holds, from its arrays
	MetricHeapBytes       Metric = "heap_bytes"        // a top-K heap riding on a sketch
	MetricTotalBytes      Metric = "total_bytes"       // all parts of a Parted design
	MetricBytesFull       Metric = "bytes_full"        // an exact sorted set at full scale
	MetricBytesPerShard   Metric = "bytes_per_shard"   // one shard of it
	MetricServerDataBytes Metric = "server_data_bytes" // what a server gives to data
	MetricFitsOneServer   Metric = "fits_one_server"   // 1 if the data fits it
	MetricShardsNeeded    Metric = "shards_needed"     // servers the data needs
	MetricExactBytes      Metric = "exact_bytes"       // an exact set of the ids
	MetricBytesRatio      Metric = "bytes_ratio"       // exact_bytes / bytes
	MetricShards          Metric = "shards"            // S configured
	MetricMergeCandidates Metric = "merge_candidates"  // S × K local top-K entries
)

// Point counts and their error.
const (
	MetricUndercounts       Metric = "undercounts"        // keys counted below the truth
	MetricMaxOverestimate   Metric = "max_overestimate"   // largest estimate − truth
	MetricMeanOverestimate  Metric = "mean_overestimate"  // over the keys
	MetricP99Overestimate   Metric = "p99_overestimate"   // over the keys
	MetricOverestimateBound Metric = "overestimate_bound" // a sketch's per-key bound (εN = e·N/w)
	MetricBoundConfidence   Metric = "bound_confidence"   // the probability a key stays within it
	MetricBound2N           Metric = "overestimate_bound_2n_w"
	MetricBound2NConfidence Metric = "bound_2n_w_confidence"
	MetricKeysOverBound     Metric = "keys_over_bound"     // keys past the bound
	MetricShareOverBound    Metric = "share_over_bound"    // over trials: keys past the bound / keys
	MetricBoundTestP        Metric = "bound_test_p"        // over trials: P(Binomial(keys, δ) ≥ keys past the bound)
	MetricBoundShareOfKth   Metric = "bound_share_of_kth"  // the bound against the K-th key's count
	MetricFailure           Metric = "failure_probability" // δ per key
	MetricWidth             Metric = "width"
	MetricDepth             Metric = "depth"
	MetricCounters          Metric = "counters"
	MetricGuaranteeAbove    Metric = "guarantee_threshold" // a key counted more is always monitored
)

// The stream and its truth.
const (
	MetricEvents       Metric = "events"        // every event fed
	MetricWrites       Metric = "writes"        // logical writes of a timed stream
	MetricReads        Metric = "reads"         // read events
	MetricResends      Metric = "resends"       // writes sent twice
	MetricDistinctKeys Metric = "distinct_keys" // keys the stream held
	MetricTop1Count    Metric = "top1_count"    // the heaviest key's count
	MetricKthTrueCount Metric = "kth_true_count"
)

// Top-K answers.
const (
	MetricTopKRecall     Metric = "topk_recall"
	MetricTopKPrecision  Metric = "topk_precision"
	MetricTopKCountError Metric = "topk_max_count_error"
	MetricKthEstimate    Metric = "kth_estimate"
)

// Throughput on this machine (read off the wall clock).
const (
	MetricNsPerEvent   Metric = "ns_per_event"
	MetricEventsPerSec Metric = "events_per_s"
)

// A population of counters (the posts run): the stripes each post's counter
// holds, the posts that went over a key's capacity, and the small account
// whose post went viral.
const (
	MetricPosts               Metric = "posts"                 // posts created
	MetricViralPosts          Metric = "viral_posts"           // posts whose jump fell within the run
	MetricViralPeak           Metric = "viral_peak_per_s"      // the small viral post's busiest second of likes
	MetricViralStripesNeeded  Metric = "viral_stripes_needed"  // stripes that peak needs at a key's capacity
	MetricStripesHeld         Metric = "stripes_held"          // Σ over posts of the most stripes each held
	MetricStripesPerPost      Metric = "stripes_per_post"      // stripes_held / posts
	MetricStripesUnneeded     Metric = "stripes_unneeded"      // stripes beyond one held by posts one key would have carried
	MetricStripesLiveMax      Metric = "stripes_live_max"      // the most stripes live at once, all posts
	MetricPostsOverCapacity   Metric = "posts_over_capacity"   // posts whose busiest stripe went over a key's capacity
	MetricSecondsOverCapacity Metric = "seconds_over_capacity" // post-seconds over it
	MetricViralStripesFirst   Metric = "viral_stripes_first"   // the small viral post's first K
	MetricViralStripesMax     Metric = "viral_stripes_max"     // the most it reached
	MetricViralOverCapacity   Metric = "viral_over_capacity_s" // its seconds over a key's capacity
	MetricViralRescue         Metric = "viral_rescue_s"        // from its jump until K reached what its peak needs
	MetricViralQueueMax       Metric = "viral_queue_max"       // the most ops queued on one of its stripes
	MetricViralDelayMax       Metric = "viral_delay_max_s"     // the longest queueing delay of one of its likes
)

// Designs on servers: the cluster's load, the readers, the loss.
const (
	MetricStripes           Metric = "stripes" // K configured
	MetricStripesAtLimit    Metric = "stripes_at_limit"
	MetricStripesAtHeadroom Metric = "stripes_at_headroom"
	MetricStripesNeeded     Metric = "stripes_needed"
	MetricStripesPow2       Metric = "stripes_pow2"
	MetricStripesAtPeak     Metric = "stripes_at_peak" // adaptive K at the peak
	MetricServers           Metric = "servers"         // app servers that batch
	MetricKeysUsed          Metric = "keys_used"       // store keys written or read
	MetricMaxKeyOps         Metric = "max_key_ops_per_s"
	MetricMeanKeyOps        Metric = "mean_key_ops_per_s"
	MetricP99KeyOps         Metric = "p99_key_ops_per_s"
	MetricUtilisation       Metric = "utilisation"
	MetricUtilisationMax    Metric = "utilisation_max"
	MetricBacklogEnd        Metric = "backlog_end"
	MetricBacklogGrowth     Metric = "backlog_growth_per_s"
	MetricBacklogGrowthPeak Metric = "backlog_growth_peak_per_s"
	MetricDelayMax          Metric = "delay_max_s"
	MetricDelayP99          Metric = "delay_p99_s"
	MetricIncrementsPerSec  Metric = "increments_per_s"
	MetricReadOpsPerSec     Metric = "read_ops_per_s"
	MetricMaxNodeOps        Metric = "max_node_ops_per_s"
	MetricShutdownOps       Metric = "shutdown_ops"         // sent after the stream, draining what designs held
	MetricShutdownMaxKeyOps Metric = "shutdown_max_key_ops" // on the busiest key
	MetricDrainedAfter      Metric = "drained_after_s"      // from the stream's end until the store is idle
	MetricLostOnNodeLoss    Metric = "lost_on_node_loss"
	MetricLostOnCrash       Metric = "lost_on_crash"
	MetricFinalCount        Metric = "final_count"
	MetricCountError        Metric = "count_error"
	MetricDedupDropped      Metric = "dedup_dropped"
	MetricDedupIDs          Metric = "dedup_ids"
	MetricStaleness         Metric = "staleness_max"
	MetricStalenessP99      Metric = "staleness_p99"
	MetricStalenessMaxSec   Metric = "staleness_max_s"
	MetricStalenessP99Sec   Metric = "staleness_p99_s"
	MetricReadsAnswered     Metric = "reads_answered"
)

// Distinct counting.
const (
	MetricDistinct      Metric = "distinct"
	MetricRelativeError Metric = "relative_error"
	MetricError         Metric = "error"
	MetricErrorCount    Metric = "error_count"    // 1.04/√m × distinct ids
	MetricRegisters     Metric = "registers"      // m = 2^p
	MetricStandardError Metric = "standard_error" // 1.04/√m
	MetricSigmaLargeN   Metric = "sigma_large_n"
	MetricMedianSmallN  Metric = "median_small_n"
)

// Leaderboards (issue 10): the boards' plans, their ranks against the
// truth, their cost.
const (
	MetricPlayers             Metric = "players"                  // on the board
	MetricBytesPerEntry       Metric = "bytes_per_entry"          // bytes / players
	MetricBoardShardsAtLimit  Metric = "board_shards_at_limit"    // ⌈peak / key capacity⌉
	MetricBoardShardsHeadroom Metric = "board_shards_at_headroom" // peak / (capacity × headroom)
	MetricBoardShardsNeeded   Metric = "board_shards_needed"      // ⌈board_shards_at_headroom⌉
	MetricRankFanout          Metric = "rank_fanout"              // store reads a rank query sends
	MetricRankQueries         Metric = "rank_queries"             // rank queries in the stream
	MetricTopExact            Metric = "top_exact"                // 1 if the leaders equal the true top K, in order
	MetricRanksChecked        Metric = "ranks_checked"            // players whose ranks were compared with the truth
	// Ranks not equal to the truth, and the largest |rank − true rank|,
	// under each tie policy.
	MetricRanksWrongCompetition   Metric = "ranks_wrong_competition"
	MetricRanksWrongOrdinal       Metric = "ranks_wrong_ordinal"
	MetricRanksWrongDense         Metric = "ranks_wrong_dense"
	MetricRankErrorMaxCompetition Metric = "rank_error_max_competition"
	MetricRankErrorMaxOrdinal     Metric = "rank_error_max_ordinal"
	MetricRankErrorMaxDense       Metric = "rank_error_max_dense"
	// The error of an estimated (competition) rank, over the players checked.
	MetricRankErrorMean      Metric = "rank_error_mean"
	MetricRankErrorP99       Metric = "rank_error_p99"
	MetricRankRelErrorMax    Metric = "rank_rel_error_max" // |rank − true| / true rank
	MetricRankRelErrorP99    Metric = "rank_rel_error_p99"
	MetricPercentileErrorMax Metric = "percentile_error_max" // |rank − true| / players, in percentile points
	MetricPercentileErrorP99 Metric = "percentile_error_p99"
	MetricCountAboveWrong    Metric = "count_above_wrong"  // scores whose count above differs from the truth
	MetricDenseScoresSent    Metric = "dense_scores_sent"  // distinct scores the shards sent a dense query, mean
	MetricDenseScoresMax     Metric = "dense_scores_max"   // the most for one query
	MetricBucketWidth        Metric = "bucket_width"       // a score histogram's
	MetricBuckets            Metric = "buckets"            // its buckets in use
	MetricScoresTableBytes   Metric = "scores_table_bytes" // its player → score table
	MetricDistinctScores     Metric = "distinct_scores"    // on the true board
	MetricTiedPlayers        Metric = "tied_players"       // players who share their score with another
)

// Ratings: ranking items by their star ratings.
const (
	MetricOneFiveStar       Metric = "one_five_star_score"  // the score of an item with exactly one rating, of 5 stars
	MetricOneFiveStarItems  Metric = "one_five_star_items"  // items with exactly one rating, of 5 stars
	MetricItemsFewRatings   Metric = "items_few_ratings"    // items rated, but fewer than `few` times
	MetricItemsEnough       Metric = "items_enough_ratings" // items rated at least `enough` times
	MetricTopFewShare       Metric = "top_few_share"        // share of the top K rated fewer than `few` times
	MetricTopMeanRatings    Metric = "top_mean_ratings"     // mean ratings of the top K
	MetricTopMeanQuality    Metric = "top_mean_quality"     // mean hidden quality of the top K
	MetricTopOverlap        Metric = "top_overlap"          // share of the top K in another design's top K
	MetricTopOverlapQuality Metric = "top_overlap_quality"  // share of the top K in the true-quality top K of items rated enough
	MetricPrecisionAtK      Metric = "precision_at_k"       // share of the top K among the best 10% of items by hidden quality
)

// Heavy hitters across nodes (issue 11).
const (
	MetricNodes          Metric = "nodes"                 // nodes the stream is split over
	MetricMessages       Metric = "messages"              // node → coordinator messages
	MetricItemsSent      Metric = "items_sent"            // items those messages carried
	MetricBytesSent      Metric = "bytes_sent"            // their bytes
	MetricNodeBytesMax   Metric = "node_bytes_max"        // the largest node's memory
	MetricMissedHeavy    Metric = "missed_heavy_hitters"  // share of the true top K not reported
	MetricPlantedFound   Metric = "planted_found"         // 1 if the planted item is in the answer
	MetricMinThreshold   Metric = "error_bound_n_k1"      // Misra-Gries: N/(k+1)
	MetricTopKCountBias  Metric = "topk_count_error_mean" // mean signed count error of the reported items
	MetricPlantedCount   Metric = "planted_count"         // the planted item's total
	MetricPlantedNodeMax Metric = "planted_node_max"      // its count on its busiest node
	MetricLocalKthMin    Metric = "local_kth_min"         // the smallest of the nodes' own K-th counts
	MetricCandidates     Metric = "candidates"            // keys a verifying design counts exactly
	MetricPasses         Metric = "passes"                // reads of the stream
)

// Trending (issue 12).
const (
	MetricTrendRecall      Metric = "trend_recall"            // mean over checkpoints of the top K of now's recall
	MetricFalseTrending    Metric = "false_trending"          // mean over checkpoints of the share of the answer not in the true top K
	MetricDetectLatency    Metric = "detect_latency_s"        // from a planted burst's start to its entry in the answer's top K
	MetricTrueLatency      Metric = "true_latency_s"          // the same for the exact score: when it truly trends
	MetricMissedBursts     Metric = "missed_bursts"           // planted bursts never in the answer
	MetricDecayExampleA    Metric = "decay_example_a"         // the seed's A: 1,000 searches 60 min ago, decayed
	MetricDecayExampleB    Metric = "decay_example_b"         // the seed's B: 300 searches 1 min ago, decayed
	MetricWindowBuckets    Metric = "window_buckets"          // W
	MetricKeysTracked      Metric = "keys_tracked"            // keys a trending design holds
	MetricGlobalLag        Metric = "global_lag_s"            // how old the global counter's sum may be: the period
	MetricGlobalLagCount   Metric = "global_lag_max"          // the most a planted key's global count fell short of the truth at a checkpoint
	MetricRegionDetect     Metric = "region_detect_s"         // from a plant's start to its flag in its region
	MetricTrueRegionDetect Metric = "true_region_detect_s"    // to its true regional count's reaching the threshold
	MetricDistinctErrMax   Metric = "distinct_rel_error_max"  // a window's distinct count: the largest |estimate/truth − 1| over the checkpoints
	MetricDistinctErrMean  Metric = "distinct_rel_error_mean" // the mean |estimate/truth − 1|
)

// A real store (issue 13): what a run on Redis measures beside the
// simulated cluster's rows.
const (
	MetricStoreOps      Metric = "store_ops"          // operations sent to a real store
	MetricRoundTrips    Metric = "round_trips"        // pipelines sent to it (one round trip a node each)
	MetricOfferedOps    Metric = "offered_ops_per_s"  // ops / the stream's length: what the scenario asks of the store
	MetricAchievedOps   Metric = "achieved_ops_per_s" // ops / the wall time from the first send to the last reply
	MetricLatencyP50    Metric = "latency_p50_s"      // from an op's due time to its reply, median
	MetricLatencyP99    Metric = "latency_p99_s"      // the same, 99th percentile
	MetricLatencyMax    Metric = "latency_max_s"      // the same, the largest
	MetricBehind        Metric = "behind_schedule_s"  // how late the last reply came after the last op was due
	MetricKeptUp        Metric = "kept_up"            // 1 if the real store kept the scenario's pace
	MetricNodesUsed     Metric = "nodes_used"         // nodes of a real store that took ops
	MetricNodeOpsMax    Metric = "node_ops_per_s_max" // the busiest node of a real store, ops a wall second
	MetricNodeOpsMin    Metric = "node_ops_per_s_min" // the idlest node of it
	MetricStoreMismatch Metric = "store_mismatch"     // keys whose value on the real store is not the sum sent
	MetricStoreScores   Metric = "store_scores_wrong" // players checked whose score on the real store is not the truth's
	MetricStoreRanks    Metric = "store_ranks_wrong"  // whose competition rank by the real store's ZCOUNTs is not the truth's
	MetricStoreBytes    Metric = "store_bytes"        // what the store holds for the design's key (Redis's dense HLL)
)

// A recorded log (issue 15).
const (
	MetricHashCollisions  Metric = "hash_collisions"  // pairs of key strings sharing a 64-bit hash, expected
	MetricSkippedLines    Metric = "skipped_lines"    // bad lines skipped (skip_bad)
	MetricReorderedEvents Metric = "reordered_events" // events out of order within the tolerance
)
