package scenarios

import (
	"math"
	"testing"
)

func TestZipfViews(t *testing.T) {
	src := `name: v
workload:
  audience:
    days: [{viewers: 1000}]
    views_max: 4
strategies:
  - {name: h, type: hll}
`
	scn, err := Parse("v.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a := &scn.Run.(*Audience).Viewers
	if a.ViewsMax != 4 || a.ViewsS != 1 || a.Views != 0 {
		t.Fatalf("got views %d, views_max %d, views_s %v; want 0, 4, 1", a.Views, a.ViewsMax, a.ViewsS)
	}
	// Zipf(4, 1): P(k) = (1/k) / (1 + 1/2 + 1/3 + 1/4); the mean is 4 / H(4) = 48/25.
	if got, want := a.MeanViews(), 48.0/25; math.Abs(got-want) > 1e-12 {
		t.Errorf("MeanViews: got %v, want %v", got, want)
	}
	if got := scn.Run.(*Audience).ExpectedWrites(); math.Abs(got-1000*48.0/25) > 1e-9 {
		t.Errorf("ExpectedWrites: got %v, want %v", got, 1000*48.0/25)
	}
}
