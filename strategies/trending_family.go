package strategies

// The Trending family (issue 12): what is heavy now, by a score that
// forgets — a sliding window's count, or an exponentially decayed count.

// Trending answers the top K of "now" at a simulated time.
type Trending interface {
	Strategy
	// Trending returns at most k keys of highest score at simulated time
	// now (ns, not before the last event observed), score descending, ties
	// by key ascending; k ≤ 0 gives none. The slice is freshly allocated.
	Trending(k int, now int64) []Trend
	// Law says what the score is, so that the runner compares it with the
	// exact score of the same law.
	Law() TrendLaw
}

// Trend is one key of a trending answer and its score.
type Trend struct {
	Key   uint64
	Score float64
}

// TrendLaw is the score a Trending design estimates; exactly one of Window
// and HalfLife is above 0.
//
//   - A sliding window of W buckets of Bucket ns (Window = W·Bucket): the
//     score of a key at now is its count over the events whose bucket,
//     ⌊At/Bucket⌋, is one of the W up to now's own, ⌊now/Bucket⌋ − W + 1 …
//     ⌊now/Bucket⌋ (the current bucket, partly filled, and the W − 1 before
//     it), with At ≤ now.
//   - Exponential decay with a half-life of HalfLife ns: the score of a key
//     at now is Σ over its events at or before now of Delta ·
//     2^(−(now − At)/HalfLife).
//
// Writes with Delta > 0 count; other events do not.
type TrendLaw struct {
	Window, Bucket int64
	HalfLife       int64
}

// TrendScorer is a Trending design that gives any key's score at now, its
// own estimate (0 for a key it holds nothing of): what a chart of one
// phrase's course under each design draws.
type TrendScorer interface {
	Trending
	TrendScore(key uint64, now int64) float64
}

// WindowDistinct is a design that counts the distinct ids of a sliding
// window at a simulated time.
type WindowDistinct interface {
	Strategy
	// DistinctNow estimates the distinct ids of the window of now (ns, not
	// before the last event observed).
	DistinctNow(now int64) float64
	// Law is the window (Window and Bucket; HalfLife 0).
	Law() TrendLaw
	// Ids says what is counted: "key" or "actor".
	Ids() string
}

// RegionFlag is a hashtag trending in a region: the time its regional
// count reached the threshold.
type RegionFlag struct {
	Region int
	Key    uint64
	At     int64
}

// RegionFlagger is a design that flags what trends in each region.
type RegionFlagger interface {
	Strategy
	// Flags returns every (region, key) flagged so far, in the order
	// flagged, each once.
	Flags() []RegionFlag
	// Threshold is the regional count that flags.
	Threshold() int64
}
