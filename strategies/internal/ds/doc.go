// Package ds holds the data structures the families of designs share: the
// growing slot table of keys and counts ([CountTable],
// [DecayTable]) and the fixed index table ([Table]), the top heap of a
// sketch's candidates ([TopHeap]), Metwally's stream summary
// ([StreamSummary]), the counted B+tree sorted set of the boards
// ([BTSet], beside the skip list of Redis's ZSET it replaced, kept as a
// test oracle), dense keys ([Dense]), count-min's counter rows
// ([CountRows]), the window clock ([BucketClock]) and the row hash
// ([RowHash], [Reduce]).
//
// Each states its invariants and costs in its doc comments and checks
// them in a Check method the tests call after every change. None is safe
// for concurrent use; the hot paths allocate nothing in the steady state.
//
// It is internal to the designs: importable by the families beneath
// package strategies, invisible to users of the module.
package ds
