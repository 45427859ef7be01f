// Package designtest holds what the families' tests share: seeded test
// streams generated apart from package workload ([StreamSpec], [Zipf],
// [HotSpec]), in-memory stores ([MemStore], a queueing store), the bound
// checks sized from the theory ([BoundTrials], [BoundFailure]), plan
// checks ([CheckPlan], [CheckPlannedBytes]), the benchmarks' search
// stream and its floor ([SearchEvents], [NewExactFloor]), and decoding a
// design as a run does ([Decode], [BuildDesign]), with the key and line an
// error faults ([FaultKey], [FaultLine]).
//
// A design's invariants are checked by its own unexported check method:
// each family's tests register how to reach it ([RegisterChecker]), and
// [CheckInvariants] calls it.
//
// Only tests import it.
package designtest
