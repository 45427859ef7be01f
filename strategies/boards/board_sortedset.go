package boards

import (
	"fmt"

	"countsim/metrics"
	"countsim/strategies"
)

// The single sorted set: a leaderboard as one Redis ZSET on one store key —
// ZINCRBY or ZADD a score change, ZREVRANGE the top, ZCOUNT the players
// above a score, ZREVRANK a rank, each O(log n). Redis keeps a ZSET as a
// skip list with spans (Pugh 1990; t_zset.c), which sortedset.go builds;
// the boards hold the same order in a counted B+tree (sortedset_btree.go),
// which answers the same and takes 2–3.5× less time at millions of
// players. Every rank is exact under every tie policy (board.go), and a
// rank query is one read. Its limit is the one key: every update of every
// player lands on it, so 50,000 updates a second against a key's 10,000
// back up, the hot counter's lesson again (seeds/000_466514a9c145316b.txt,
// step 5); and its memory, players × an entry (100 B in the seed), must fit
// one server.

// SortedSetParams are the parameters of the single sorted set.
type SortedSetParams struct {
	Ties strategies.Ties `key:"ties" default:"competition" doc:"the tie policy of the stream's rank queries: competition (1 + players above), ordinal (first to reach the score, then id) or dense (1 + distinct scores above); the run checks every policy"`
}

// SortedSet is one sorted set on one store key: a Board. Not safe for
// concurrent use.
type SortedSet struct{ *shardedSets }

var (
	_ strategies.Board  = (*SortedSet)(nil)
	_ strategies.Loader = (*SortedSet)(nil)
)

// NewSortedSet returns an empty board on store (nil: no store load is
// accounted), its skip-list levels drawn from seed.
func NewSortedSet(p SortedSetParams, store strategies.Store, seed uint64) (*SortedSet, error) {
	if err := strategies.ValidateWith("sorted-set", &p); err != nil {
		return nil, err
	}
	return &SortedSet{newShardedSets(1, seed, store, p.Ties, DenseMerge)}, nil
}

func init() {
	strategies.Define("sorted-set", "one sorted set on one store key (Redis ZSET): exact top, rank and count above in O(log n); every update hits the one key",
		func(p *SortedSetParams, env strategies.Env) (strategies.Strategy, error) {
			return NewSortedSet(*p, env.Store, env.Seed)
		},
		sortedSetPlan, strategies.OnServers, strategies.Answers(strategies.FamilyBoard, strategies.FamilyRank))
}

// sortedSetPlan: the one key takes every update; the memory at full scale.
func sortedSetPlan(p *SortedSetParams, env strategies.Env) []strategies.PlanLine {
	lines := []strategies.PlanLine{
		{Metric: metrics.KeysUsed, Value: 1, Unit: "keys", Note: "the board's one key"},
		{Metric: metrics.RankFanout, Value: 1, Unit: "reads", Note: "a rank query reads the one key (ZSCORE and ZCOUNT pipelined)"},
	}
	lines = append(lines, boardLoadPlan(env, 1)...)
	return append(lines, boardMemoryPlan(env, 1)...)
}

// boardLoadPlan: the update load of S shards at the peak, at both scales.
func boardLoadPlan(env strategies.Env, shards int) []strategies.PlanLine {
	s := float64(shards)
	return strategies.AtBothScales(env, func(a strategies.Assumptions) []strategies.PlanLine {
		rate, capa := a.PeakRate, a.KeyCapacity
		if rate <= 0 {
			return nil
		}
		per := rate / s
		lines := []strategies.PlanLine{{Metric: metrics.MaxKeyOps, Value: per, Unit: "ops/s",
			Note: fmt.Sprintf("peak / S = %s / %s = %s updates a second a shard (the mean; the measured max over shards and seconds is higher)", strategies.Num(rate), strategies.Num(s), strategies.Num(per))}}
		if capa > 0 {
			lines = append(lines,
				strategies.PlanLine{Metric: metrics.Utilisation, Value: per / capa, Unit: "share",
					Note: fmt.Sprintf("%s / %s = %s of a key's capacity", strategies.Num(per), strategies.Num(capa), strategies.Pct(per/capa))},
				strategies.PlanLine{Metric: metrics.BacklogGrowth, Value: max(0, per-capa) * s, Unit: "ops/s",
					Note: fmt.Sprintf("max(0, %s − %s) × %s: what the shards' queues grow by each second", strategies.Num(per), strategies.Num(capa), strategies.Num(s))})
		}
		return lines
	})
}

// boardMemoryPlan: players × an entry at full scale, against a server.
func boardMemoryPlan(env strategies.Env, shards int) []strategies.PlanLine {
	f := env.Full
	if f.Keys <= 0 || f.EntryBytes <= 0 {
		return nil
	}
	mem := f.Keys * f.EntryBytes
	lines := []strategies.PlanLine{
		{Metric: metrics.BytesPerEntry, Value: f.EntryBytes, Unit: "B", Note: "the seeds' bytes a sorted-set entry, beside what this one takes"},
		{Metric: metrics.BytesFull, Value: mem, Unit: "B", Full: true,
			Note: fmt.Sprintf("players × bytes an entry = %s × %s", strategies.Num(f.Keys), strategies.Num(f.EntryBytes))},
	}
	if shards > 1 {
		lines = append(lines, strategies.PlanLine{Metric: metrics.BytesPerShard, Value: mem / float64(shards), Unit: "B", Full: true, Note: "players × entry bytes / S"})
	}
	if f.ServerBytes > 0 {
		fits := 0.0
		if mem <= f.ServerBytes {
			fits = 1
		}
		lines = append(lines, strategies.PlanLine{Metric: metrics.FitsOneServer, Value: fits, Unit: "bool", Full: true,
			Note: fmt.Sprintf("1 if the board fits one server of %s B", strategies.Num(f.ServerBytes))})
	}
	return lines
}
