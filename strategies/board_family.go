package strategies

import (
	"slices"

	"countsim/workload"
)

// The leaderboard families (issue 10): a board takes a stream of score
// changes (workload.Scores: Op Write adds Delta points to the player Key,
// Op Set makes Delta its score, Op Read is a query of its rank) and answers
// the rank of a player under a tie policy, the players above a score and
// the leaders.

// Ties is a tie policy: how players with equal scores are ranked.
type Ties uint8

const (
	// TiesCompetition: 1 + the players with a strictly higher score; equal
	// scores share the best rank and the next rank is skipped (1, 2, 2, 4),
	// as a public standings page shows them.
	TiesCompetition Ties = iota
	// TiesOrdinal: 1 + the players ahead in the board's order: a higher
	// score, or the same score reached earlier, or at the same update with
	// a lower id (1, 2, 3, 4), as a prize settlement breaks ties.
	TiesOrdinal
	// TiesDense: 1 + the distinct scores strictly higher; equal scores
	// share a rank and none is skipped (1, 2, 2, 3).
	TiesDense
)

// AllTies lists the tie policies in order.
var AllTies = []Ties{TiesCompetition, TiesOrdinal, TiesDense}

var tiesNames = []string{"competition", "ordinal", "dense"}

// String returns "competition", "ordinal" or "dense".
func (t Ties) String() string { return EnumString(t, "ties", tiesNames) }

// Names lists the tie policies' names, in order.
func (Ties) Names() []string { return slices.Clone(tiesNames) }

// MarshalText returns the policy's name.
func (t Ties) MarshalText() ([]byte, error) { return MarshalEnum(t, "ties", tiesNames) }

// UnmarshalText reads a tie policy by name.
func (t *Ties) UnmarshalText(text []byte) error {
	return UnmarshalEnum(t, "tie policy", tiesNames, text)
}

// Ranker answers a player's rank on a board, exactly or as an estimate.
type Ranker interface {
	Strategy
	// Rank returns the player's rank under the tie policy t, 1 for the
	// best, or 0 for a player never seen or a policy the design does not
	// answer (RankTies).
	Rank(player uint64, t Ties) int64
	// RankTies lists the tie policies Rank answers.
	RankTies() []Ties
	// Players returns the players on the board.
	Players() int64
}

// Board is an exact leaderboard: every rank it gives is the true rank.
type Board interface {
	Ranker
	// Leaders returns the k best players in the board's order (score
	// descending, then the player who reached the score first, then id
	// ascending), fewer if the board holds fewer. The slice is freshly
	// allocated.
	Leaders(k int) []Standing
	// CountAbove returns the number of players with a score strictly
	// higher than score.
	CountAbove(score int64) int64
}

// Loader is a board that takes the standings before the stream: the Set
// events of a batch applied in order and stamped as changes are (first
// loaded, first to have reached its score), without a store operation —
// the board as it stood when the stream began.
type Loader interface {
	Strategy
	Load(batch []workload.Event)
}

// Standing is one player of a board's leaders.
type Standing struct {
	Player uint64
	Score  int64
}

// RankCoster is a board that accounts what its rank queries cost beyond
// the store's reads: the distinct scores its shards sent for dense ranks.
type RankCoster interface {
	Strategy
	// DenseScoresSent returns the rank queries under TiesDense answered so
	// far (Observe's and Rank's), the distinct scores the shards sent for
	// them in all, and the most one query took.
	DenseScoresSent() (queries, scores, most int64)
}
