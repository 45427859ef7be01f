// Package frequency holds the designs that count how often each key occurs
// and answer the heaviest keys: the search day's question (seeds/000 steps
// 2 and 3, seeds 001–003).
//
// [CountMin] ("count-min", Cormode & Muthukrishnan; with a heap,
// [CountMinTopK]) never undercounts and overcounts a key by at most εN
// with probability 1 − δ; [CMSVerify] ("cms-verify") checks its
// candidates in a second pass; [SpaceSaving] ("space-saving", Metwally
// et al.) and [MisraGries] ("misra-gries") keep m counters with a
// deterministic bound of N/m; [HeavyKeeper] ("heavykeeper", Gong et al.)
// decays colliding buckets; [Exact] ("exact") counts every key, sharded by
// hash with an exact merge. Over a stream split by node: [SplitTopK]
// ("split-topk", the local top K' merged, which can miss a heavy key),
// [ThresholdTopK] ("threshold-topk", TPUT's exact three phases) and
// [NodeLocalTopK] ("node-local-topk", each node's top k pushed to a
// central sorted set). Each file cites its algorithm and bound and gives
// its plan.
//
// Designs are not safe for concurrent use; Observe allocates nothing in
// the steady state and makes no interface call per event.
//
// Package trending builds its windowed count-min on these parameters;
// the counter rows, heaps, tables and summaries are in
// strategies/internal/ds.
package frequency
