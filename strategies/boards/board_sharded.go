package boards

import (
	"fmt"

	"countsim/metrics"
	"countsim/strategies"
)

// The sharded leaderboard (seeds/000_466514a9c145316b.txt step 5,
// seeds/002_aa28a8d9e3b54cd9.txt on rank): S sorted sets, a player on the
// shard Mix64(player ⊕ seed) mod S, each shard its own store key, so the
// updates spread: 50,000 a second over 8 shards is 6,250 a shard. Every
// answer stays exact because a player lives on one shard:
//   - the top k merges the shards' top k, S × k candidates;
//   - a competition rank is 1 + the players above the player's score,
//     counted on every shard (ZCOUNT on each: S reads a rank query);
//   - an ordinal rank adds, on every shard, the players with the same score
//     who reached it first (one stamp counter for every shard, so "first"
//     compares across them);
//   - a dense rank is 1 + the distinct scores above, which do NOT add over
//     shards: two shards may hold the same score. With dense: merge (the
//     default) the shards send their distinct scores above and the
//     coordinator unites them, exact and paid in scores sent; dense: sum
//     adds the shards' distinct counts, the trap, whose error the run shows.

// ShardedBoardParams are the parameters of the sharded leaderboard.
type ShardedBoardParams struct {
	Shards int             `key:"shards" range:"1..4096" required:"true" doc:"shards S: sorted sets, one store key each, a player on one by hash"`
	Ties   strategies.Ties `key:"ties" default:"competition" doc:"the tie policy of the stream's rank queries; the run checks every policy"`
	Dense  DenseMethod     `key:"dense" default:"merge" doc:"how a dense rank is found over the shards: merge (unite the shards' distinct scores above, exact) or sum (add the shards' distinct counts: the trap, wrong where shards share a score)"`
}

// ShardedBoard is S sorted sets by player hash: a Board and a RankCoster.
// Not safe for concurrent use.
type ShardedBoard struct{ *shardedSets }

var (
	_ strategies.Board      = (*ShardedBoard)(nil)
	_ strategies.RankCoster = (*ShardedBoard)(nil)
	_ strategies.Loader     = (*ShardedBoard)(nil)
)

// NewShardedBoard returns an empty board of p.Shards shards on store (nil:
// no store load is accounted), placing players and drawing skip-list
// levels from seed.
func NewShardedBoard(p ShardedBoardParams, store strategies.Store, seed uint64) (*ShardedBoard, error) {
	if err := strategies.ValidateWith("sharded-board", &p); err != nil {
		return nil, err
	}
	return &ShardedBoard{newShardedSets(p.Shards, seed, store, p.Ties, p.Dense)}, nil
}

func init() {
	strategies.Define("sharded-board", "S sorted sets by player hash: exact top by merging S × K, exact rank by counting above on every shard (S reads); dense rank unites the shards' scores",
		func(p *ShardedBoardParams, env strategies.Env) (strategies.Strategy, error) {
			return NewShardedBoard(*p, env.Store, env.Seed)
		},
		shardedBoardPlan, strategies.OnServers, strategies.Answers(strategies.FamilyBoard, strategies.FamilyRank))
}

// shardedBoardPlan: the shards the peak needs at the limit and at the
// headroom, the load of the S configured, the merge, the fan-out and the
// memory at full scale.
func shardedBoardPlan(p *ShardedBoardParams, env strategies.Env) []strategies.PlanLine {
	s := float64(p.Shards)
	lines := []strategies.PlanLine{
		{Metric: metrics.Shards, Value: s, Unit: "shards", Note: "S configured"},
		{Metric: metrics.KeysUsed, Value: s, Unit: "keys", Note: "S: one store key a shard"},
		{Metric: metrics.RankFanout, Value: s, Unit: "reads", Note: "a rank query counts the players above on every shard: S reads"},
	}
	if env.Top > 0 {
		lines = append(lines, strategies.PlanLine{Metric: metrics.MergeCandidates, Value: s * float64(env.Top), Unit: "players",
			Note: fmt.Sprintf("S × K = %s × %d local leaders; exact, a player lives on one shard", strategies.Num(s), env.Top)})
	}
	lines = append(lines, strategies.AtBothScales(env, func(a strategies.Assumptions) []strategies.PlanLine {
		rate, capa, head := a.PeakRate, a.KeyCapacity, a.Headroom
		if rate <= 0 || capa <= 0 {
			return nil
		}
		lines := []strategies.PlanLine{{Metric: metrics.BoardShardsAtLimit, Value: strategies.CeilTidy(rate / capa), Unit: "shards",
			Note: fmt.Sprintf("⌈peak / key capacity⌉ = ⌈%s / %s⌉", strategies.Num(rate), strategies.Num(capa))}}
		if head > 0 {
			need := rate / (capa * head)
			lines = append(lines,
				strategies.PlanLine{Metric: metrics.BoardShardsHeadroom, Value: need, Unit: "shards",
					Note: fmt.Sprintf("peak / (capacity × headroom) = %s / %s = %s", strategies.Num(rate), strategies.Num(capa*head), strategies.Num(need))},
				strategies.PlanLine{Metric: metrics.BoardShardsNeeded, Value: strategies.CeilTidy(need), Unit: "shards", Note: "⌈shards at headroom⌉"})
		}
		return lines
	})...)
	lines = append(lines, boardLoadPlan(env, p.Shards)...)
	return append(lines, boardMemoryPlan(env, p.Shards)...)
}
