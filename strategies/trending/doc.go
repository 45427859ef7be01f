// Package trending holds the designs that answer the top K of now, by a
// score that forgets: a sliding window's count or an exponentially
// decayed count (seeds/000 step 4, seeds 001 and 004).
//
// [TimeBuckets] ("time-buckets") keeps an exact table a bucket and their
// sum over the window; [WindowedCountMin] ("windowed-count-min") a ring
// of count-min sketches of one seed, summed counter by counter;
// [DecayExact] and [DecaySpaceSaving] ("decay") decay every count, or a
// Space-Saving of m counters, by forward decay (Cormode et al.);
// [Regional] ("regional") counts a region at a time, flags a region's
// trend at a threshold and sends the regions' sums to a global counter
// every period. Each answers under its [strategies.TrendLaw], so the
// runner compares it with the exact score of the same law.
//
// Designs are not safe for concurrent use.
//
// It builds on package frequency (count-min's parameters and limits); the
// window clock and the tables are in strategies/internal/ds.
package trending
