package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"countsim/scenarios"
)

// badRatings writes a copy of the built-in ratings.yaml with one line
// replaced.
func badRatings(t *testing.T, old, new string) string {
	t.Helper()
	src, err := scenarios.BuiltinSource("ratings")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(old)) {
		t.Fatalf("ratings.yaml has no %q", old)
	}
	p := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(p, bytes.Replace(src, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Out of the 1..5 star scale — a prior mean, a quality, the scale itself —
// is refused with the file, the line and what is allowed: exit 2, nothing
// written.
func TestRatingsBadInputExits2(t *testing.T) {
	for _, c := range []struct{ name, old, new, want string }{
		{"prior_mean 7", "prior_mean: 4.0", "prior_mean: 7", "bad.yaml:50: strategies[1].params.prior_mean: 7 is out of range (allowed: a number from 1 to 5)"},
		{"quality 7", "quality: {min: 2.0, max: 4.8}", "quality: {min: 2.0, max: 7}", "bad.yaml:28: workload.ratings.quality.max: 7 is out of range (allowed: a number from 1 to 5)"},
		{"scale 0..5", "scale: {min: 1, max: 5}", "scale: {min: 0, max: 5}", "bad.yaml:27: workload.ratings.scale.min: 0 is out of range (allowed: 1..5)"},
		{"quality off a 1..4 scale", "scale: {min: 1, max: 5}", "scale: {min: 1, max: 4}", "bad.yaml:28: workload.ratings.quality.max: 4.8 is outside the scale 1..4 (allowed: 1..4, the scale's stars)"},
		{"wilson up 6", "up: 4", "up: 6", "bad.yaml:62: strategies[2].params.up: 6 is out of range (allowed: 2..5)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := badRatings(t, c.old, c.new)
			out := filepath.Join(t.TempDir(), "reports")
			for _, args := range [][]string{{"validate", file}, {"run", "-out", out, file}, {"check", file}} {
				_, errOut, code := cli(t, args...)
				if code != 2 {
					t.Errorf("%s: got exit %d, want 2 (%s)", args[0], code, errOut)
				}
				if !strings.Contains(errOut, c.want) {
					t.Errorf("%s: message %q does not say %q", args[0], errOut, c.want)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("run wrote %s on bad input", out)
			}
		})
	}
}

// The plan prints the seed's example, 4.05, and check holds every
// expectation of the built-in ratings scenario.
func TestRatingsPlanAndCheck(t *testing.T) {
	out, errOut, code := cli(t, "plan", "ratings")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "(20·4 + 5)/21 = 4.0476 ≈ 4.05") {
		t.Errorf("plan ratings does not print the seed's example:\n%s", out)
	}
	if testing.Short() {
		t.Skip("check runs the scenario")
	}
	out, errOut, code = cli(t, "check", "ratings")
	if code != 0 || !strings.Contains(out, "0 failed") {
		t.Errorf("check ratings: exit %d\n%s%s", code, out, errOut)
	}
}

// The rating-outbox built-in: check holds its bounds and shows its traps;
// a share sum above 1 or a redelivery probability of 2 exits 2 at its line
// with nothing written; list names the recount's metrics beside its
// parameter.
func TestRatingOutboxCheckAndBadInput(t *testing.T) {
	out, errOut, code := cli(t, "check", "rating-outbox")
	if code != 0 || !strings.Contains(out, "7 passed, 0 failed; 3 shown, 0 not shown") {
		t.Errorf("check rating-outbox: exit %d\n%s%s", code, out, errOut)
	}
	src, err := scenarios.BuiltinSource("rating-outbox")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{"delete_share: 0.1", "delete_share: 0.9", "bad.yaml:35: workload.reviews.delete_share: edit_share 0.2 + delete_share 0.9 = 1.1 is above 1"},
		{"redeliver: 0.01", "redeliver: 2", "bad.yaml:37: workload.outbox.redeliver: 2 is out of range (allowed: a number in [0,1])"},
		{"every: 20_000", "every: 0", "bad.yaml:70: strategies[2].params.every: 0 is out of range (allowed: 1..1e12)"},
	} {
		if !bytes.Contains(src, []byte(c.old)) {
			t.Fatalf("rating-outbox.yaml has no %q", c.old)
		}
		p := filepath.Join(t.TempDir(), "bad.yaml")
		if err := os.WriteFile(p, bytes.Replace(src, []byte(c.old), []byte(c.new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "reports")
		_, errOut, code := cli(t, "run", "-out", dir, p)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", c.new, code, errOut, c.want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("run wrote %s on bad input", dir)
		}
	}
	out, _, code = cli(t, "list", "outbox-recount")
	if code != 0 || !strings.Contains(out, "recount_rows_read") || !strings.Contains(out, "agg_count_drift") || !strings.Contains(out, "\n  every ") {
		t.Errorf("list outbox-recount:\n%s", out)
	}
}
