package strategies

import "countsim/workload"

// Sharded is a design that keeps each key's count in stripes it sizes per
// key, as a population run asks of it: the K a counter starts with, the
// stripes each key holds, and their store keys. A Striped counter is one.
type Sharded interface {
	Strategy
	// FirstStripes is the K a counter is created with for a post whose
	// events carry actor (its author's followers, with
	// workload.ProtectedBit when protected): the predicted K, or stripes.
	FirstStripes(actor uint64) int
	// Stripes returns the key's live K now and the most it has had: the
	// store keys it holds; 0, 0 for a key it keeps no state of (never
	// seen, or a fixed K kept for no key: then every key has FirstStripes).
	Stripes(key uint64) (live, held int)
	// StripesFor is the most stripes the design gives a key of actor
	// whose writes peak at peak a second: its first K,
	// doubled while peak / K is above grow_above where K follows the load
	// (the mean's view: a busiest stripe above the mean may double once
	// more).
	StripesFor(actor uint64, peak float64) int
	// StripeKey is the store key of the key's stripe j.
	StripeKey(key uint64, j int) uint64
	// Grown is Σ over the keys seen of their live K − their first K: what
	// growing and shrinking added to the stripes live, O(1).
	Grown() int64
}

// Population describes a run of many counters created over time, each
// sized from its author's followers (the posts run): what a plan of the
// stripes they hold needs.
type Population struct {
	// Counters is the counters expected to be created over the run.
	Counters float64
	// FollowersAtLeast is P(F ≥ f): the share of counters whose author has
	// at least f followers.
	FollowersAtLeast func(f uint64) float64
	// Protected is the share of counters whose post is protected
	// (workload.ProtectedBit in the Actor).
	Protected float64
	// ViralPeak is the like rate, a second, a small account's viral post
	// peaks at (the jump's factor × its floor); 0 without viral posts.
	ViralPeak float64
	// Posts, when not nil, is the table of posts the run draws its likes
	// from, or a sample of it drawn by the same law, each post's rate over
	// time known: a plan that depends on how each counter's load unfolds
	// (the stripes a growing counter reaches) sums over it. Each of its
	// posts stands for Scale of the run's (1: it is the run's table).
	Posts *workload.Posts
	Scale float64
}
