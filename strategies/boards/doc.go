// Package boards holds the leaderboard designs: the fantasy league's 20 M
// players at 50,000 score changes a second (seeds/000 step 5).
//
// [SortedSet] ("sorted-set") keeps one order-statistic sorted set on one
// store key, every update on it; [ShardedBoard] ("sharded-board") keeps S
// of them by player hash, the top K by merging S × K and a rank by
// counting above on every shard, with dense ranks found by uniting the
// shards' distinct scores ([DenseMethod]: merge, or the trap of a sum);
// [ScoreHistogram] ("score-histogram") estimates a competition rank from
// bucket counts. Ranks follow a [strategies.Ties] policy.
//
// Designs are not safe for concurrent use.
//
// The sorted set is the counted B+tree of strategies/internal/ds; the
// contracts ([strategies.Board], [strategies.Ranker]) are package
// strategies'.
package boards
