package main

import "testing"

// TestPostsBadInput: the built-in viral-posts with a follower rule that is
// not increasing (in followers or in K), a negative share, a law's key on
// the other law, no cluster: refused naming the file, the line and what is
// allowed, exit 2, nothing written.
func TestPostsBadInput(t *testing.T) {
	rule := `predict: "0:1, 700000:2, 1400000:4, 2800000:8, 5600000:16, 11200000:32"`
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"followers not increasing", rule, `predict: "0:1, 700000:2, 600000:4"`,
			`strategies[2].params.predict: "0:1, 700000:2, 600000:4": followers 600000 after 700000: the rule is not increasing (allowed: FOLLOWERS:K pairs separated by commas, both increasing`},
		{"K not increasing", rule, `predict: "0:1, 700000:4, 1400000:2"`, "params.predict: \"0:1, 700000:4, 1400000:2\": K 2 after 4: the rule is not increasing"},
		{"negative viral share", "share: 0.001", "share: -0.001", "workload.posts.viral.share: -0.001 is out of range (allowed: a number in [0,1])"},
		{"negative protected share", "noise: 0.5", "noise: 0.5\n    protected: -0.2", "workload.posts.protected: -0.2 is out of range (allowed: a number in [0,1])"},
		{"s with lognormal", "sigma: 2.5,", "sigma: 2.5, s: 1,", "workload.posts.followers.s: belongs to law zipf, not lognormal"},
		{"no cluster", "cluster:\n  nodes: 8\n", "", "a posts run needs cluster: its counters live on the simulated cluster (allowed: add cluster: with nodes and key_capacity)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			refusesEdit(t, "../../scenarios/viral-posts.yaml", c.old, c.new, c.want)
		})
	}
}
