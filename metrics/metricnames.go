package metrics

// The metric vocabulary: every figure countsim plans or measures, declared
// once here. A design's plan line and a measured row of package sim name
// the same figure by the same variable, so that the runner puts the plan
// beside the measurement by name, and the report's headlines name them so
// too: a misspelt name fails to compile instead of silently leaving a
// measurement without its plan. Each declaration enters the list that
// Known and All read (an expectation of a scenario names a metric as text).

// Memory.
var (
	Bytes           = declare("bytes")             // what the design holds, from its arrays
	HeapBytes       = declare("heap_bytes")        // a top-K heap riding on a sketch
	TotalBytes      = declare("total_bytes")       // all parts of a Parted design
	BytesFull       = declare("bytes_full")        // an exact sorted set at full scale
	BytesPerShard   = declare("bytes_per_shard")   // one shard of it
	ServerDataBytes = declare("server_data_bytes") // what a server gives to data
	FitsOneServer   = declare("fits_one_server")   // 1 if the data fits it
	ShardsNeeded    = declare("shards_needed")     // servers the data needs
	ExactBytes      = declare("exact_bytes")       // an exact set of the ids
	BytesRatio      = declare("bytes_ratio")       // exact_bytes / bytes
	Shards          = declare("shards")            // S configured
	MergeCandidates = declare("merge_candidates")  // S × K local top-K entries
)

// Point counts and their error.
var (
	Undercounts       = declare("undercounts")        // keys counted below the truth
	MaxOverestimate   = declare("max_overestimate")   // largest estimate − truth
	MeanOverestimate  = declare("mean_overestimate")  // over the keys
	P99Overestimate   = declare("p99_overestimate")   // over the keys
	OverestimateBound = declare("overestimate_bound") // a sketch's per-key bound (εN = e·N/w)
	BoundConfidence   = declare("bound_confidence")   // the probability a key stays within it
	Bound2N           = declare("overestimate_bound_2n_w")
	Bound2NConfidence = declare("bound_2n_w_confidence")
	KeysOverBound     = declare("keys_over_bound")     // keys past the bound
	ShareOverBound    = declare("share_over_bound")    // over trials: keys past the bound / keys
	BoundTestP        = declare("bound_test_p")        // over trials: P(Binomial(keys, δ) ≥ keys past the bound)
	BoundShareOfKth   = declare("bound_share_of_kth")  // the bound against the K-th key's count
	Failure           = declare("failure_probability") // δ per key
	Width             = declare("width")
	Depth             = declare("depth")
	Counters          = declare("counters")
	GuaranteeAbove    = declare("guarantee_threshold") // a key counted more is always monitored
)

// The stream and its truth.
var (
	Events       = declare("events")        // every event fed
	Writes       = declare("writes")        // logical writes of a timed stream
	Reads        = declare("reads")         // read events
	Resends      = declare("resends")       // writes sent twice
	DistinctKeys = declare("distinct_keys") // keys the stream held
	Top1Count    = declare("top1_count")    // the heaviest key's count
	KthTrueCount = declare("kth_true_count")
)

// Top-K answers.
var (
	TopKRecall     = declare("topk_recall")
	TopKPrecision  = declare("topk_precision")
	TopKCountError = declare("topk_max_count_error")
	KthEstimate    = declare("kth_estimate")
)

// Throughput on this machine (read off the wall clock).
var (
	NsPerEvent   = declare("ns_per_event")
	EventsPerSec = declare("events_per_s")
)

// A population of counters (the posts run): the stripes each post's counter
// holds, the posts that went over a key's capacity, and the small account
// whose post went viral.
var (
	Posts               = declare("posts")                 // posts created
	ViralPosts          = declare("viral_posts")           // posts whose jump fell within the run
	ViralPeak           = declare("viral_peak_per_s")      // the small viral post's busiest second of likes
	ViralStripesNeeded  = declare("viral_stripes_needed")  // stripes that peak needs at a key's capacity
	StripesHeld         = declare("stripes_held")          // Σ over posts of the most stripes each held
	StripesPerPost      = declare("stripes_per_post")      // stripes_held / posts
	StripesUnneeded     = declare("stripes_unneeded")      // stripes beyond one held by posts one key would have carried
	StripesLiveMax      = declare("stripes_live_max")      // the most stripes live at once, all posts
	PostsOverCapacity   = declare("posts_over_capacity")   // posts whose busiest stripe went over a key's capacity
	SecondsOverCapacity = declare("seconds_over_capacity") // post-seconds over it
	ViralStripesFirst   = declare("viral_stripes_first")   // the small viral post's first K
	ViralStripesMax     = declare("viral_stripes_max")     // the most it reached
	ViralOverCapacity   = declare("viral_over_capacity_s") // its seconds over a key's capacity
	ViralRescue         = declare("viral_rescue_s")        // from its jump until K reached what its peak needs
	ViralQueueMax       = declare("viral_queue_max")       // the most ops queued on one of its stripes
	ViralDelayMax       = declare("viral_delay_max_s")     // the longest queueing delay of one of its likes
)

// Designs on servers: the cluster's load, the readers, the loss.
var (
	Stripes           = declare("stripes") // K configured
	StripesAtLimit    = declare("stripes_at_limit")
	StripesAtHeadroom = declare("stripes_at_headroom")
	StripesNeeded     = declare("stripes_needed")
	StripesPow2       = declare("stripes_pow2")
	StripesAtPeak     = declare("stripes_at_peak") // adaptive K at the peak
	Servers           = declare("servers")         // app servers that batch
	KeysUsed          = declare("keys_used")       // store keys written or read
	MaxKeyOps         = declare("max_key_ops_per_s")
	MeanKeyOps        = declare("mean_key_ops_per_s")
	P99KeyOps         = declare("p99_key_ops_per_s")
	Utilisation       = declare("utilisation")
	UtilisationMax    = declare("utilisation_max")
	BacklogEnd        = declare("backlog_end")
	BacklogGrowth     = declare("backlog_growth_per_s")
	BacklogGrowthPeak = declare("backlog_growth_peak_per_s")
	DelayMax          = declare("delay_max_s")
	DelayP99          = declare("delay_p99_s")
	IncrementsPerSec  = declare("increments_per_s")
	ReadOpsPerSec     = declare("read_ops_per_s")
	MaxNodeOps        = declare("max_node_ops_per_s")
	ShutdownOps       = declare("shutdown_ops")         // sent after the stream, draining what designs held
	ShutdownMaxKeyOps = declare("shutdown_max_key_ops") // on the busiest key
	DrainedAfter      = declare("drained_after_s")      // from the stream's end until the store is idle
	LostOnNodeLoss    = declare("lost_on_node_loss")
	LostOnCrash       = declare("lost_on_crash")
	FinalCount        = declare("final_count")
	CountError        = declare("count_error")
	DedupDropped      = declare("dedup_dropped")
	DedupIDs          = declare("dedup_ids")
	Staleness         = declare("staleness_max")
	StalenessP99      = declare("staleness_p99")
	StalenessMaxSec   = declare("staleness_max_s")
	StalenessP99Sec   = declare("staleness_p99_s")
	ReadsAnswered     = declare("reads_answered")
)

// Distinct counting.
var (
	Distinct      = declare("distinct")
	RelativeError = declare("relative_error")
	Error         = declare("error")
	ErrorCount    = declare("error_count")    // 1.04/√m × distinct ids
	Registers     = declare("registers")      // m = 2^p
	StandardError = declare("standard_error") // 1.04/√m
	SigmaLargeN   = declare("sigma_large_n")
	MedianSmallN  = declare("median_small_n")
)

// Leaderboards (issue 10): the boards' plans, their ranks against the
// truth, their cost.
var (
	Players             = declare("players")                  // on the board
	BytesPerEntry       = declare("bytes_per_entry")          // bytes / players
	BoardShardsAtLimit  = declare("board_shards_at_limit")    // ⌈peak / key capacity⌉
	BoardShardsHeadroom = declare("board_shards_at_headroom") // peak / (capacity × headroom)
	BoardShardsNeeded   = declare("board_shards_needed")      // ⌈board_shards_at_headroom⌉
	RankFanout          = declare("rank_fanout")              // store reads a rank query sends
	RankQueries         = declare("rank_queries")             // rank queries in the stream
	TopExact            = declare("top_exact")                // 1 if the leaders equal the true top K, in order
	RanksChecked        = declare("ranks_checked")            // players whose ranks were compared with the truth
	// Ranks not equal to the truth, and the largest |rank − true rank|,
	// under each tie policy.
	RanksWrongCompetition   = declare("ranks_wrong_competition")
	RanksWrongOrdinal       = declare("ranks_wrong_ordinal")
	RanksWrongDense         = declare("ranks_wrong_dense")
	RankErrorMaxCompetition = declare("rank_error_max_competition")
	RankErrorMaxOrdinal     = declare("rank_error_max_ordinal")
	RankErrorMaxDense       = declare("rank_error_max_dense")
	// The error of an estimated (competition) rank, over the players checked.
	RankErrorMean      = declare("rank_error_mean")
	RankErrorP99       = declare("rank_error_p99")
	RankRelErrorMax    = declare("rank_rel_error_max") // |rank − true| / true rank
	RankRelErrorP99    = declare("rank_rel_error_p99")
	PercentileErrorMax = declare("percentile_error_max") // |rank − true| / players, in percentile points
	PercentileErrorP99 = declare("percentile_error_p99")
	CountAboveWrong    = declare("count_above_wrong")  // scores whose count above differs from the truth
	DenseScoresSent    = declare("dense_scores_sent")  // distinct scores the shards sent a dense query, mean
	DenseScoresMax     = declare("dense_scores_max")   // the most for one query
	BucketWidth        = declare("bucket_width")       // a score histogram's
	Buckets            = declare("buckets")            // its buckets in use
	ScoresTableBytes   = declare("scores_table_bytes") // its player → score table
	DistinctScores     = declare("distinct_scores")    // on the true board
	TiedPlayers        = declare("tied_players")       // players who share their score with another
)

// Ratings: ranking items by their star ratings.
var (
	OneFiveStar       = declare("one_five_star_score")  // the score of an item with exactly one rating, of 5 stars
	OneFiveStarItems  = declare("one_five_star_items")  // items with exactly one rating, of 5 stars
	ItemsFewRatings   = declare("items_few_ratings")    // items rated, but fewer than `few` times
	ItemsEnough       = declare("items_enough_ratings") // items rated at least `enough` times
	TopFewShare       = declare("top_few_share")        // share of the top K rated fewer than `few` times
	TopMeanRatings    = declare("top_mean_ratings")     // mean ratings of the top K
	TopMeanQuality    = declare("top_mean_quality")     // mean hidden quality of the top K
	TopOverlap        = declare("top_overlap")          // share of the top K in another design's top K
	TopOverlapQuality = declare("top_overlap_quality")  // share of the top K in the true-quality top K of items rated enough
	PrecisionAtK      = declare("precision_at_k")       // share of the top K among the best 10% of items by hidden quality
)

// Heavy hitters across nodes (issue 11).
var (
	Nodes          = declare("nodes")                 // nodes the stream is split over
	Messages       = declare("messages")              // messages between the nodes and their coordinator, both ways
	ItemsSent      = declare("items_sent")            // items those messages carried (keys asked, items sent)
	BytesSent      = declare("bytes_sent")            // their bytes
	NodeBytesMax   = declare("node_bytes_max")        // the largest node's memory
	MissedHeavy    = declare("missed_heavy_hitters")  // share of the true top K not reported
	PlantedFound   = declare("planted_found")         // 1 if the planted item is in the answer
	MinThreshold   = declare("error_bound_n_k1")      // Misra-Gries: N/(k+1)
	TopKCountBias  = declare("topk_count_error_mean") // mean signed count error of the reported items
	PlantedCount   = declare("planted_count")         // the planted item's total
	PlantedNodeMax = declare("planted_node_max")      // its count on its busiest node
	LocalKthMin    = declare("local_kth_min")         // the smallest of the nodes' own K-th counts
	Candidates     = declare("candidates")            // keys a verifying design counts exactly
	Passes         = declare("passes")                // reads of the stream
)

// A key of known true count planted in a count stream (issue 25: the
// practice question's dish); its true count is PlantedCount.
var (
	PlantedEstimate = declare("planted_estimate") // a design's count of the planted key
	PlantedExcess   = declare("planted_excess")   // that count − its true count
)

// Trending (issue 12).
var (
	TrendRecall      = declare("trend_recall")            // mean over checkpoints of the top K of now's recall
	FalseTrending    = declare("false_trending")          // mean over checkpoints of the share of the answer not in the true top K
	DetectLatency    = declare("detect_latency_s")        // from a planted burst's start to its entry in the answer's top K
	TrueLatency      = declare("true_latency_s")          // the same for the exact score: when it truly trends
	MissedBursts     = declare("missed_bursts")           // planted bursts never in the answer
	DecayExampleA    = declare("decay_example_a")         // the seed's A: 1,000 searches 60 min ago, decayed
	DecayExampleB    = declare("decay_example_b")         // the seed's B: 300 searches 1 min ago, decayed
	WindowBuckets    = declare("window_buckets")          // W
	KeysTracked      = declare("keys_tracked")            // keys a trending design holds
	GlobalLag        = declare("global_lag_s")            // how old the global counter's sum may be: the period
	GlobalLagCount   = declare("global_lag_max")          // the most a planted key's global count fell short of the truth at a checkpoint
	RegionDetect     = declare("region_detect_s")         // from a plant's start to its flag in its region
	TrueRegionDetect = declare("true_region_detect_s")    // to its true regional count's reaching the threshold
	DistinctErrMax   = declare("distinct_rel_error_max")  // a window's distinct count: the largest |estimate/truth − 1| over the checkpoints
	DistinctErrMean  = declare("distinct_rel_error_mean") // the mean |estimate/truth − 1|
)

// The decayed scores of the planted or watched phrases (issue 25).
var (
	DecayedScore     = declare("decayed_score")               // a phrase's decayed score at the last checkpoint, the design's
	TrueDecayedScore = declare("true_decayed_score")          // its exact decayed score then, from the events
	DecayedErrMax    = declare("decayed_score_rel_error_max") // the most |design / exact − 1| of those over the phrases
)

// A real store (issue 13): what a run on Redis measures beside the
// simulated cluster's rows.
var (
	StoreOps      = declare("store_ops")          // operations sent to a real store
	RoundTrips    = declare("round_trips")        // pipelines sent to it (one round trip a node each)
	OfferedOps    = declare("offered_ops_per_s")  // ops / the stream's length: what the scenario asks of the store
	AchievedOps   = declare("achieved_ops_per_s") // ops / the wall time from the first send to the last reply
	LatencyP50    = declare("latency_p50_s")      // from an op's due time to its reply, median
	LatencyP99    = declare("latency_p99_s")      // the same, 99th percentile
	LatencyMax    = declare("latency_max_s")      // the same, the largest
	Behind        = declare("behind_schedule_s")  // how late the last reply came after the last op was due
	KeptUp        = declare("kept_up")            // 1 if the real store kept the scenario's pace
	NodesUsed     = declare("nodes_used")         // nodes of a real store that took ops
	NodeOpsMax    = declare("node_ops_per_s_max") // the busiest node of a real store, ops a wall second
	NodeOpsMin    = declare("node_ops_per_s_min") // the idlest node of it
	StoreMismatch = declare("store_mismatch")     // keys whose value on the real store is not the sum sent
	StoreScores   = declare("store_scores_wrong") // players checked whose score on the real store is not the truth's
	StoreRanks    = declare("store_ranks_wrong")  // whose competition rank by the real store's ZCOUNTs is not the truth's
	StoreBytes    = declare("store_bytes")        // what the store holds for the design's key (Redis's dense HLL)
	// Store faults on a real store (issue 29): what DoClient's ops met.
	StoreFailed   = declare("store_ops_failed")   // ops sent through DoClient that timed out
	StoreLost     = declare("store_writes_lost")  // increments acknowledged and not on the store after the run
	StoreExtra    = declare("store_writes_extra") // increments on the store beyond those acknowledged
	StoreRecovery = declare("store_recovery_s")   // from a failover's kill until the node's slots answered again
)

// The union of distinct counts on a store (issue 25): what finding it cost
// there, and whether a Redis Cluster refused it.
var (
	MergeRefused    = declare("merge_refused")     // 1 if the store refused the union's command (CROSSSLOT)
	UnionOps        = declare("union_store_ops")   // commands the union sent
	UnionRoundTrips = declare("union_round_trips") // round trips it took
	UnionBytes      = declare("union_bytes_read")  // bytes of the values it read back
)

// A recorded log (issue 15).
var (
	HashCollisions  = declare("hash_collisions")  // pairs of key strings sharing a 64-bit hash, expected
	SkippedLines    = declare("skipped_lines")    // bad lines skipped (skip_bad)
	ReorderedEvents = declare("reordered_events") // events out of order within the tolerance
)

// Store faults on the cluster (issue 29): what a node down, a slow node, a
// partition or a failover cost a design on its simulated cluster.
var (
	FaultFailedOps = declare("fault_failed_ops") // ops sent to the faulted nodes that timed out or were not applied, from the fault on
	LostOnFailover = declare("lost_on_failover") // served counts a failover lost: the writes of its replication lag
	FaultRecovery  = declare("fault_recovery_s") // from a fault's end until no op to its nodes timed out
)

// Clients under store faults (issue 29): what a design's client did when a
// node failed, by its own account and against the truth.
var (
	WritesFailed       = declare("writes_failed")             // writes given up, retries (and a reroute) spent
	WritesRetried      = declare("writes_retried")            // retries sent
	WritesRerouted     = declare("writes_rerouted")           // writes sent to another stripe after their retries failed
	WritesLost         = declare("writes_lost")               // truth − final, where positive
	WritesCountedTwice = declare("writes_counted_twice")      // final − truth, where positive
	WriteAvailability  = declare("write_availability")        // writes answered on their first try within the timeout / writes
	OutageAvailability = declare("outage_write_availability") // the same over the seconds of the faults
	FailedOverPlan     = declare("writes_failed_over_plan")   // writes_failed / its plan
	LostOverPlan       = declare("writes_lost_over_plan")     // writes_lost / its plan
	ReadAvailability   = declare("read_availability")         // reads every stripe answered / reads sent
	ReadsPartial       = declare("reads_partial")             // reads shown the sum of the stripes that answered
	ReadsFailed        = declare("reads_failed")              // reads shown the last total instead
	ShownAgeMax        = declare("shown_age_max_s")           // the oldest total a failed read showed
	ShownAgeP99        = declare("shown_age_p99_s")           // over the failed reads
	FlushesResent      = declare("flushes_resent")            // failed flushes whose delta was kept for the next
	CountsDropped      = declare("counts_dropped")            // counts failed flushes let go
)
