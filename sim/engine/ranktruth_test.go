package engine

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"countsim/workload"
)

// The rank truth and the map truth, fed the same stream, agree on every
// key's count, the number of keys, and the top K, ties included.
func TestRankTruthAgreesWithMapTruth(t *testing.T) {
	for _, scramble := range []bool{false, true} {
		src, err := workload.NewStream(workload.StreamConfig{Seed: 3, Label: "events", Events: 300_000, Keys: 50_000,
			S: 1.1, Scramble: scramble, Rate: 1e6, ChunkSize: 4096})
		if err != nil {
			t.Fatal(err)
		}
		byRank, byKey, byRanks := NewRankTruth(src), NewTruth(0, false, false), NewRankTruth(src)
		for i := range src.Chunks() {
			b, ranks := src.ChunkRanks(i, nil, nil)
			byRank.Observe(b)
			byKey.Observe(b)
			byRanks.(RankObserver).ObserveRanks(ranks)
		}
		ctx := context.Background()
		nRank, _ := byRank.Distinct(ctx)
		nKey, _ := byKey.Distinct(ctx)
		if byRank.Total() != byKey.Total() || nRank != nKey {
			t.Fatalf("scramble %v: totals %d/%d, distinct %d/%d", scramble, byRank.Total(), byKey.Total(), nRank, nKey)
		}
		// Fed the ranks beside the events, it holds the same array.
		if a, b := byRank.(*RankTruth[uint32]), byRanks.(*RankTruth[uint32]); !slices.Equal(a.At, b.At) || a.N != b.N {
			t.Fatalf("scramble %v: the truth fed ranks differs from the truth fed events", scramble)
		}
		seen := 0
		for key, c := range byRank.All() {
			seen++
			if want := byKey.Count(key); c != want || byRank.Count(key) != want {
				t.Fatalf("scramble %v: key %#x counted %d (count %d), want %d", scramble, key, c, byRank.Count(key), want)
			}
		}
		if seen != nKey {
			t.Fatalf("scramble %v: all yields %d keys, want %d", scramble, seen, nKey)
		}
		for _, k := range []int{1, 10, 1000, 60_000} {
			got, _ := byRank.Top(ctx, k)
			if want := sortedTop(byKey.Counts, k); !slices.Equal(got, want) {
				t.Fatalf("scramble %v, top %d: got %v…, want %v…", scramble, k, got[:min(3, len(got))], want[:min(3, len(want))])
			}
		}
	}
}

// sortedTop is the top k by a full sort, the way the truth answered before
// it selected.
func sortedTop(counts map[uint64]uint64, k int) []KeyCount {
	var all []KeyCount
	for key, c := range counts {
		all = append(all, KeyCount{Key: key, Count: c})
	}
	slices.SortFunc(all, func(a, b KeyCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return all[:min(k, len(all))]
}

// The selection answers as a full sort does, with many ties.
func TestSelectionMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := range 300 {
		counts := map[uint64]uint64{}
		for range rng.IntN(200) {
			counts[rng.Uint64N(1000)] = 1 + rng.Uint64N(4) // few distinct counts: ties everywhere
		}
		k := rng.IntN(30)
		got, _ := TopOf(context.Background(), func(yield func(uint64, uint64) bool) {
			for key, c := range counts {
				if !yield(key, c) {
					return
				}
			}
		}, k)
		if want := sortedTop(counts, k); !slices.Equal(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Fatalf("trial %d, k %d: got %v, want %v", trial, k, got, want)
		}
	}
}

// A stream of more than 2^32−1 events counts in 8 bytes a rank.
func TestRankTruthWidth(t *testing.T) {
	if got := RankTruthBytes(1<<32-1, 10); got != 40 {
		t.Errorf("2^32−1 events: %d bytes for 10 keys, want 40", got)
	}
	if got := RankTruthBytes(1<<32, 10); got != 80 {
		t.Errorf("2^32 events: %d bytes for 10 keys, want 80", got)
	}
}
