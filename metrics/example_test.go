package metrics_test

import (
	"fmt"

	"countsim/metrics"
)

// A histogram of the delays 0…999: each quantile is the top of its bucket,
// at most 1/32 above the exact value (499 and 989).
func ExampleHist() {
	var h metrics.Hist
	for v := range int64(1000) {
		h.Add(v)
	}
	fmt.Println(h.Quantile(0.5), h.Quantile(0.99), h.Max(), h.Mean())
	// Output: 503 991 999 499.5
}

// The p99 of a sparse table: 3 stored cells and 97 empty ones.
func ExampleQuantileSorted() {
	stored := []float64{10, 20, 40}
	fmt.Printf("%.2f\n", metrics.QuantileSorted(stored, 97, 0.99))
	// Output: 20.20
}
