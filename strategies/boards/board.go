package boards

import (
	"slices"

	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// What the board designs share: the sorted set a shard keeps and the
// engine of the boards on the store, S sorted sets by player hash.

// boardSet is the order-statistic sorted set the boards keep, one a shard:
// the counted B+tree (sortedset_btree.go), which answers as the skip list
// of Redis's ZSET (sortedset.go) does and takes 2–3.5× less time an update
// and a rank at 2·10⁶ and 2·10⁷ players (BenchmarkZset).
type boardSet = ds.BTSet

func newBoardSet(seed uint64) *boardSet { return ds.NewBTSet(seed) }

// DenseMethod is how a board sharded by player finds a dense rank.
type DenseMethod uint8

const (
	// DenseMerge unites the shards' distinct scores above the player's
	// score and counts them: exact, at the cost of sending those scores.
	DenseMerge DenseMethod = iota
	// DenseSum adds the shards' counts of distinct scores above: cheap and
	// wrong wherever two shards hold the same score (the trap).
	DenseSum
)

var denseNames = []string{"merge", "sum"}

// String returns "merge" or "sum".
func (d DenseMethod) String() string { return strategies.EnumString(d, "dense", denseNames) }

// Names lists the methods' names.
func (DenseMethod) Names() []string { return slices.Clone(denseNames) }

// MarshalText returns the method's name.
func (d DenseMethod) MarshalText() ([]byte, error) {
	return strategies.MarshalEnum(d, "dense method", denseNames)
}

// UnmarshalText reads a method by name.
func (d *DenseMethod) UnmarshalText(text []byte) error {
	return strategies.UnmarshalEnum(d, "dense method", denseNames, text)
}

// shardedSets is the engine of the boards on the store (sorted-set,
// sharded-board): S sorted sets, a player on shard Mix64(player ⊕ seed)
// mod S, each shard one key of the Store. Every score change is stamped
// from one counter (the changes seen, in stream order), so "reached the
// score first" compares across shards. One shard is the single sorted set.
type shardedSets struct {
	shards  []*boardSet
	keys    []uint64 // the store key of each shard
	seed    uint64   // places players on shards
	store   strategies.Store
	ops     []strategies.StoreOp
	stamp   uint64          // the last stamp given
	queries strategies.Ties // the policy the stream's rank queries ask
	dense   DenseMethod     // how a dense rank is found over several shards
	scratch []int64         // the distinct scores a dense merge unites
	runs    []int           // where each shard's scores end in scratch
	heads   []int           // the merge's place in each shard's scores
	sink    int64           // the ranks of the stream's queries, so that computing them is not optimised away
	where   []int32         // the shard of each event of the batch

	denseQueries, denseScores, denseMost int64
}

func newShardedSets(shards int, seed uint64, store strategies.Store, queries strategies.Ties, dense DenseMethod) *shardedSets {
	b := &shardedSets{seed: workload.SplitMix64(seed ^ 0x626f617264), store: store, queries: queries, dense: dense, heads: make([]int, shards)}
	for i := range shards {
		b.shards = append(b.shards, newBoardSet(workload.SplitMix64(seed+uint64(i)+1)))
		b.keys = append(b.keys, workload.Mix64(0x6c6561646572^uint64(i)<<32^seed))
	}
	return b
}

// shardOf returns the shard of a player.
func (b *shardedSets) shardOf(player uint64) int {
	if len(b.shards) == 1 {
		return 0
	}
	return int(ds.Reduce(workload.Mix64(player^b.seed), uint64(len(b.shards))))
}

// Observe applies each score change to the player's shard and sends it to
// the shard's key (ZINCRBY or ZADD); a rank query (Op Read) is answered
// under the board's query policy and reads every shard (ZCOUNT: S reads;
// one for a single set). The ops go to the store once a batch.
func (b *shardedSets) Observe(batch []workload.Event) {
	b.ops = b.ops[:0]
	b.where = slices.Grow(b.where[:0], len(batch))[:len(batch)]
	for i := range batch {
		b.where[i] = int32(b.shardOf(batch[i].Key))
	}
	for i := range batch {
		if k := i + prefetchAhead; k < len(batch) { // the lookup's cache miss, ahead
			b.shards[b.where[k]].Prefetch(batch[k].Key)
		}
		e := &batch[i]
		switch e.Op {
		case workload.Write, workload.Set:
			j := b.where[i]
			b.stamp++
			kind := strategies.ZIncrBy
			if e.Op == workload.Set {
				kind = strategies.ZAdd
				b.shards[j].SetAt(e.Key, e.Delta, b.stamp)
			} else {
				b.shards[j].AddAt(e.Key, e.Delta, b.stamp)
			}
			b.ops = append(b.ops, strategies.StoreOp{At: e.At, Kind: kind, Key: b.keys[j], Delta: e.Delta, Member: e.Key})
		case workload.Read:
			b.sink += b.Rank(e.Key, b.queries)
			score, _, _ := b.shards[b.shardOf(e.Key)].Place(e.Key)
			for _, k := range b.keys {
				b.ops = append(b.ops, strategies.StoreOp{At: e.At, Kind: strategies.ZRead, Key: k, Delta: score, Member: e.Key})
			}
		}
	}
	if b.store != nil && len(b.ops) > 0 {
		b.store.Do(b.ops, nil)
	}
}

// prefetchAhead is how many events ahead of its update Observe prefetches
// a player's slot: enough for the line to arrive in time, few enough that
// the updates between do not push it out of the cache.
const prefetchAhead = 8

// Load applies the batch's Set events as the standings, sending nothing to
// the store.
func (b *shardedSets) Load(batch []workload.Event) {
	for i := range batch {
		if e := &batch[i]; e.Op == workload.Set {
			b.stamp++
			b.shards[b.shardOf(e.Key)].SetAt(e.Key, e.Delta, b.stamp)
		}
	}
}

// Rank returns the exact rank of a player under t: over the shards, 1 +
// the players with a higher score (competition), or ahead of the player's
// place (ordinal), or 1 + the distinct higher scores, united over the
// shards (dense, merge) or, the trap, added (dense, sum).
func (b *shardedSets) Rank(player uint64, t strategies.Ties) int64 {
	score, stamp, ok := b.shards[b.shardOf(player)].Place(player)
	if !ok {
		return 0
	}
	var n int64
	switch t {
	case strategies.TiesCompetition:
		for _, z := range b.shards {
			n += int64(z.CountAbove(score))
		}
	case strategies.TiesOrdinal:
		for _, z := range b.shards {
			n += int64(z.CountBefore(score, stamp, player))
		}
	case strategies.TiesDense:
		n = b.distinctAbove(score)
	default:
		return 0
	}
	return 1 + n
}

// distinctAbove is the number of distinct scores above s on the board, by
// the board's dense method, with what the shards sent for it.
func (b *shardedSets) distinctAbove(s int64) int64 {
	var n, sent int64
	switch {
	case len(b.shards) == 1: // one set knows its distinct scores
		n = int64(b.shards[0].DistinctAbove(s))
	case b.dense == DenseSum:
		for _, z := range b.shards { // each shard sends a count, no scores
			n += int64(z.DistinctAbove(s))
		}
	default:
		b.scratch, b.runs = b.scratch[:0], b.runs[:0]
		for _, z := range b.shards {
			b.scratch = z.DistinctScoresAbove(s, b.scratch)
			b.runs = append(b.runs, len(b.scratch))
		}
		sent = int64(len(b.scratch))
		n = unionCount(b.scratch, b.runs, b.heads)
	}
	b.denseQueries++
	b.denseScores += sent
	b.denseMost = max(b.denseMost, sent)
	return n
}

// unionCount returns the number of distinct scores in buf, which holds
// runs of distinct scores, each highest first, run i ending at ends[i]: a
// merge of the runs that takes the highest head and moves every run past
// it, O(len(buf) × runs) without sorting. heads, as long as ends, is
// scratch.
func unionCount(buf []int64, ends []int, heads []int) int64 {
	heads = heads[:len(ends)]
	for i := range ends {
		heads[i] = 0
		if i > 0 {
			heads[i] = ends[i-1]
		}
	}
	var n int64
	for {
		var top int64
		found := false
		for i, h := range heads {
			if h < ends[i] && (!found || buf[h] > top) {
				top, found = buf[h], true
			}
		}
		if !found {
			return n
		}
		n++
		for i, h := range heads {
			if h < ends[i] && buf[h] == top {
				heads[i]++
			}
		}
	}
}

// DenseScoresSent is RankCoster's account.
func (b *shardedSets) DenseScoresSent() (queries, scores, most int64) {
	return b.denseQueries, b.denseScores, b.denseMost
}

// RankTies: every policy.
func (b *shardedSets) RankTies() []strategies.Ties { return strategies.AllTies }

// Players returns the players on every shard.
func (b *shardedSets) Players() int64 {
	var n int64
	for _, z := range b.shards {
		n += int64(z.Len())
	}
	return n
}

// CountAbove adds the shards' counts: a player lives on one shard.
func (b *shardedSets) CountAbove(score int64) int64 {
	var n int64
	for _, z := range b.shards {
		n += int64(z.CountAbove(score))
	}
	return n
}

// Leaders merges the shards' k best (S × k candidates) and keeps the k
// best: exact, since a player lives on one shard.
func (b *shardedSets) Leaders(k int) []strategies.Standing {
	if k <= 0 {
		return nil
	}
	type cand struct {
		strategies.Standing
		stamp uint64
	}
	var cands []cand
	for _, z := range b.shards {
		for _, it := range z.Top(k) {
			_, st, _ := z.Place(it.ID)
			cands = append(cands, cand{strategies.Standing{Player: it.ID, Score: it.Score}, st})
		}
	}
	slices.SortFunc(cands, func(x, y cand) int {
		switch {
		case x.Score != y.Score:
			if x.Score > y.Score {
				return -1
			}
			return 1
		case x.stamp != y.stamp:
			if x.stamp < y.stamp {
				return -1
			}
			return 1
		}
		return cmpUint64(x.Player, y.Player)
	})
	out := make([]strategies.Standing, 0, min(k, len(cands)))
	for _, c := range cands[:min(k, len(cands))] {
		out = append(out, c.Standing)
	}
	return out
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Bytes is the sum of the shards' sets.
func (b *shardedSets) Bytes() int64 {
	var n int64
	for _, z := range b.shards {
		n += z.Bytes()
	}
	return n
}
