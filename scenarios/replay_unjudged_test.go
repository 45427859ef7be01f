package scenarios

import (
	"strings"
	"testing"
)

// TestLeaveOut: the expectations on the metrics a replay does not measure
// are left out of its scenario, a list they emptied with them, the others
// and the comments kept; a scenario without any comes back as it was.
func TestLeaveOut(t *testing.T) {
	src := `name: r-replay
expect:
  - "one_five_star_items >= 1" # the seed's example
strategies:
  - name: naive
    type: naive-average
    shows:
      - "top_few_share >= 0.8" # thin
      - "precision_at_k <= 0.7"
  - name: wilson
    type: wilson
    expect: ["precision_at_k >= 0.8", "top_mean_quality >= 4"]
`
	out, err := LeaveOut([]byte(src), []string{"precision_at_k", "top_mean_quality"})
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{"# A replay of the log does not measure precision_at_k, top_mean_quality:", "one_five_star_items >= 1", "top_few_share >= 0.8", "# thin"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "precision_at_k <=") || strings.Contains(got, "top_mean_quality >=") || strings.Count(got, "expect:") != 1 {
		t.Errorf("keeps an expectation on what is not measured, or an empty list:\n%s", got)
	}
	if _, err := Parse("r.yaml", out); err != nil && !strings.Contains(err.Error(), "workload") {
		t.Errorf("the text left is no scenario: %v", err)
	}
	same, err := LeaveOut([]byte(src), []string{"recall"})
	if err != nil || string(same) != src {
		t.Errorf("nothing to leave out, yet the text changed (%v):\n%s", err, same)
	}
}
