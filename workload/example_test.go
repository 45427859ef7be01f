package workload_test

import (
	"fmt"
	"math/rand/v2"

	"countsim/workload"
)

// A stream of 10^6 views over 10^6 videos at s = 1, 100,000 views a second,
// cut into chunks of 10,000. Without scrambling, a key is its rank.
func ExampleStream() {
	s, err := workload.NewStream(workload.StreamConfig{
		Seed:      1,
		Label:     "views",
		Events:    1_000_000,
		Keys:      1_000_000,
		S:         1,
		Rate:      100_000,
		ChunkSize: 10_000,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d chunks; P(rank 1) = %.4f\n", s.Chunks(), s.Prob(1))
	for _, e := range s.Chunk(0, nil)[:6] {
		fmt.Printf("id %d at %2dµs: %v key %d\n", e.ID, e.At/1000, e.Op, e.Key)
	}
	// Output:
	// 100 chunks; P(rank 1) = 0.0695
	// id 1 at  0µs: write key 7
	// id 2 at 10µs: write key 125
	// id 3 at 20µs: write key 2780
	// id 4 at 30µs: write key 518
	// id 5 at 40µs: write key 73
	// id 6 at 50µs: write key 633194
}

// Scrambling moves the hot ranks away from the small ids, and back.
func ExampleScrambler() {
	sc := workload.NewScrambler(1)
	for rank := uint64(1); rank <= 3; rank++ {
		key := sc.Key(rank)
		fmt.Printf("rank %d → key %#016x → rank %d\n", rank, key, sc.Rank(key))
	}
	// Output:
	// rank 1 → key 0x0213164820d039d7 → rank 1
	// rank 2 → key 0x565bf71b03bc0a6d → rank 2
	// rank 3 → key 0x8080ed94f9688865 → rank 3
}

// The worked example's theory: the 10th of 10^6 phrases at s = 1 gets
// 10^7 · P(10) searches out of 10^7.
func ExampleZipf() {
	z, err := workload.NewZipf(1_000_000, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("H(1e6, 1) = %.12f\n", workload.Harmonic(1_000_000, 1))
	fmt.Printf("expected searches of the 10th phrase: %.0f\n", 1e7*z.Prob(10))
	r := rand.New(rand.NewPCG(1, 2))
	for range 8 {
		fmt.Print(z.Rank(r), " ")
	}
	fmt.Println()
	// Output:
	// H(1e6, 1) = 14.392726722866
	// expected searches of the 10th phrase: 69480
	// 58 1296 657 2043 10 3711 7 7649
}

// A SplitMix64 generator as a math/rand/v2 Source; its first output is
// SplitMix64 of its seed.
func ExampleSplitMix() {
	s := workload.SplitMix(1234567)
	r := rand.New(&s)
	fmt.Println(workload.SplitMix64(1234567), r.Uint64(), r.IntN(100))
	// Output:
	// 6457827717110365317 6457827717110365317 17
}

// Two batches of three events for a distinct counter: the actors never
// repeat (within 2^64 draws), so the true count is the number of events.
func ExampleDistinctIDs() {
	ids := workload.NewDistinctIDs(42)
	batch := make([]workload.Event, 3)
	for range 2 {
		ids.Fill(batch) // then design.Observe(batch)
		for _, e := range batch {
			fmt.Printf("id %d: %v actor %#016x delta %d\n", e.ID, e.Op, e.Actor, e.Delta)
		}
	}
	fmt.Println(ids.Count(), "distinct actors")
	// Output:
	// id 1: write actor 0xbdd732262feb6e95 delta 1
	// id 2: write actor 0x28efe333b266f103 delta 1
	// id 3: write actor 0x47526757130f9f52 delta 1
	// id 4: write actor 0x581ce1ff0e4ae394 delta 1
	// id 5: write actor 0x09bc585a244823f2 delta 1
	// id 6: write actor 0xde4431fa3c80db06 delta 1
	// 6 distinct actors
}
