package ds

import "unsafe"

// ScoreTable maps a player's id to a score: the board's id table (btids,
// sortedset_btset.go: open addressing with linear probing over one flat
// array, a lookup one cache miss where a Go map's is up to three) for a
// design that keeps a score a player and no order, the score histogram.
// A player never leaves. The zero table is unusable: build one with
// NewScoreTable. Not safe for concurrent use.
type ScoreTable struct{ m btids }

// NewScoreTable returns an empty table sized for players players at a load
// of 2/3, so that a few more than expected still fit before it first grows
// (at 3/4).
func NewScoreTable(players int) *ScoreTable {
	t := &ScoreTable{}
	t.m.slot = make([]btslot, max(16, players+players/2))
	return t
}

// Len returns the players held.
func (t *ScoreTable) Len() int { return t.m.n }

// Get returns a player's score and whether the player is held. O(1)
// expected.
func (t *ScoreTable) Get(id uint64) (int64, bool) {
	p := t.m.find(id)
	return p.score, p.stamp != 0
}

// Ref returns a pointer to a player's score, adding the player with the
// score 0 if it is not held, and whether it was held. The pointer is valid
// until the next player is added. O(1) expected, amortised over the
// table's growth.
func (t *ScoreTable) Ref(id uint64) (score *int64, held bool) {
	p := t.m.find(id)
	if p.stamp != 0 {
		return &p.score, true
	}
	p = t.m.addAt(p, id)
	*p = btslot{id: id, stamp: 1}
	return &p.score, false
}

// Prefetch asks for the slot where a lookup of id starts (see
// prefetch.go). It changes nothing.
func (t *ScoreTable) Prefetch(id uint64) { Prefetch(unsafe.Pointer(t.m.home(id))) }

// Check validates the table (btids.check).
func (t *ScoreTable) Check() error { return t.m.check() }
