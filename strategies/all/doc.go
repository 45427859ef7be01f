// Package all links every family of designs into a program: importing it
// for its side effect registers each design type with package strategies,
// as a program picks the image formats it decodes by importing
// image/png and image/jpeg.
//
//	import _ "countsim/strategies/all"
//
// Package sim imports it, so every run can build any registered type by
// name; a test of one family imports that family alone. Its tests hold every
// registered type to its declaration (the families it answers, the
// direction its counts err, what its top K promises) and every plan to the
// metric vocabulary.
package all

import (
	_ "countsim/strategies/boards"    // sorted-set, sharded-board, score-histogram
	_ "countsim/strategies/distinct"  // hll, exact-distinct, redis-hll, windowed-hll
	_ "countsim/strategies/frequency" // count-min, space-saving, misra-gries, heavykeeper, exact, split, threshold, node-local top-K
	_ "countsim/strategies/hot"       // single-key, striped, batched
	_ "countsim/strategies/ratings"   // naive-average, bayesian-average, wilson
	_ "countsim/strategies/trending"  // time-buckets, windowed-count-min, decay, regional
)
