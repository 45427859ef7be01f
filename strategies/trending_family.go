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
