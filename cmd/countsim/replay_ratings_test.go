package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"countsim/metrics"
)

// ratingsSmallFile writes the built-in ratings scenario at a 25th of its
// size (2,000 items, 40,000 ratings) into dir, with its designs and
// expectations, and returns its path.
func ratingsSmallFile(t *testing.T, dir string) string {
	t.Helper()
	s := builtinScaled(t, "ratings", "name: ratings\n", "name: ratings-small\n", "items: 50_000", "items: 2_000", "ratings: 1_000_000", "ratings: 40_000")
	path := filepath.Join(dir, "ratings-small.yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ratingsRows are a run's measured rows of the designs (timing left out),
// by design, metric, scale and their order among the design's rows of the
// metric (a row of overlap for each other design), without the metrics of
// skip.
func ratingsRows(rs []metrics.Result, skip ...metrics.Metric) map[string]string {
	out := map[string]string{}
	seen := map[string]int{}
	for _, r := range rs {
		if r.Timing || r.Value == nil || strings.HasPrefix(r.Strategy, "truth") || contains(skip, r.Metric) {
			continue
		}
		k := r.Strategy + " " + string(r.Metric) + " " + string(r.Scale)
		seen[k]++
		out[k+" #"+strconv.Itoa(seen[k])] = optional(r.Value) + " / " + optional(r.Plan)
	}
	return out
}

func contains(ms []metrics.Metric, m metrics.Metric) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// readTable reads a table CSV of a run's report folder: its header and
// rows, by the file's name under tables/.
func readTable(t *testing.T, out, name string) ([]string, [][]string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, "*", "tables", name))
	if len(files) != 1 {
		t.Fatalf("tables %s under %s: %v", name, out, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var rows [][]string
	for _, l := range lines[1:] {
		rows = append(rows, strings.Split(l, ","))
	}
	return strings.Split(lines[0], ","), rows
}

// TestRatingsSampleReplays: the built-in ratings run scaled down, sampled
// whole to NDJSON by countsim sample -replay and run as written, ranks as
// the synthetic run did: every design's measured rows and plans are the
// same but those of the hidden quality, which a log has no counterpart of
// (left out of the replay with their expectations, and a note says so);
// the tables print each item's up votes beside its ratings, in both runs,
// the replay's naming the items by their strings; the built-in is refused
// past -events, ratings being sampled whole.
func TestRatingsSampleReplays(t *testing.T) {
	dir := t.TempDir()
	scn := ratingsSmallFile(t, dir)
	logPath, replay := filepath.Join(dir, "r.ndjson"), filepath.Join(dir, "r.yaml")
	if _, stderr, code := cli(t, "sample", "-events", "40000", "-format", "ndjson", "-o", logPath, "-replay", replay, scn); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	text, _ := os.ReadFile(replay)
	for _, w := range []string{"  as: ratings\n", "  stars: delta\n", "  items: 2000\n", "top_few_share >= 0.8", "one_five_star_items >= 1"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("the replay scenario lacks %q:\n%s", w, text)
		}
	}
	if strings.Contains(string(text), "precision_at_k <=") || strings.Contains(string(text), "\n  delta:") {
		t.Errorf("the replay scenario keeps an expectation on the hidden quality, or the delta column:\n%s", text)
	}
	synthetic := asResultsOf(t, filepath.Join(dir, "out-syn"), scn)
	replayed := asResultsOf(t, filepath.Join(dir, "out-replay"), replay)
	hidden := []metrics.Metric{metrics.TopMeanQuality, metrics.TopOverlapQuality, metrics.PrecisionAtK}
	asSame(t, "ratings", ratingsRows(replayed), ratingsRows(synthetic, hidden...), 15)
	for _, r := range replayed {
		if contains(hidden, r.Metric) {
			t.Errorf("the replay measured %s %s", r.Strategy, r.Metric)
		}
	}
	// The Wilson top 10 of both runs: the same ratings and up votes, the
	// replay's items by their strings, the synthetic's by popularity rank.
	synHead, synRows := readTable(t, filepath.Join(dir, "out-syn"), "ratings-small-top-wilson.csv")
	repHead, repRows := readTable(t, filepath.Join(dir, "out-replay"), "ratings-small-replay-top-wilson.csv")
	if synHead[3] != "up votes (≥ 4 stars)" || repHead[4] != "up votes (≥ 4 stars)" || repHead[0] != "key" || len(synRows) != 10 || len(repRows) != 10 {
		t.Fatalf("wilson tables: %q (%d rows), %q (%d rows)", synHead, len(synRows), repHead, len(repRows))
	}
	for i := range synRows {
		if repRows[i][0] != "item #"+synRows[i][1] || repRows[i][3] != synRows[i][2] || repRows[i][4] != synRows[i][3] {
			t.Errorf("place %d: replayed %q, synthetic %q", i+1, repRows[i], synRows[i])
		}
	}
	_, stderr, code := cli(t, "sample", "-o", filepath.Join(dir, "big.csv"), "ratings")
	if code == 0 || !strings.Contains(stderr, "sampled whole (allowed: -events 1000000 or more)") {
		t.Errorf("the built-in ratings sampled at 300,000 events: exit %d, %s", code, stderr)
	}
}

// wilsonLower is the lower bound of the 95% Wilson interval of up of n,
// worked out here from its formula.
func wilsonLower(n, up float64) float64 {
	const z = 1.96
	p := up / n
	return (p + z*z/(2*n) - z*math.Sqrt(p*(1-p)/n+z*z/(4*n*n))) / (1 + z*z/n)
}

// TestRatingsOwnLog: a team's own log of ratings — user and item ids as
// strings, times, regions, stars — replayed as ratings: the tables give
// each item the ratings, up votes and mean stars the test counts itself,
// and the Wilson score worked out from them by hand; the true-mean top is
// the items of highest mean among those rated enough; an item rated once
// with 5 stars scores (C·m + 5)/(C + 1) in the Bayesian average.
func TestRatingsOwnLog(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("at,user,item,region,stars\n")
	type tally struct{ n, sum, up int }
	items := map[string]*tally{}
	for i := range 3000 {
		item := fmt.Sprintf("sku-%03d", (i*i)%97%40) // 40 items, unevenly rated
		if i == 1500 {
			item = "sku-lonely" // rated once, 5 stars
		}
		stars := 1 + (i*7+len(item)*i/11)%5
		if item == "sku-lonely" {
			stars = 5
		}
		fmt.Fprintf(&b, "%d,user-%d,%s,eu-%d,%d\n", 1_700_000_000+i, i%211, item, i%3, stars)
		c := items[item]
		if c == nil {
			c = &tally{}
			items[item] = c
		}
		c.n++
		c.sum += stars
		if stars >= 4 {
			c.up++
		}
	}
	os.WriteFile(filepath.Join(dir, "ratings.csv"), []byte(b.String()), 0o644)
	scn := filepath.Join(dir, "own.yaml")
	os.WriteFile(scn, []byte("name: own\nseed: 1\nworkload:\n  file: ratings.csv\n  as: ratings\n  key: item\n  time: at\n  actor: user\n  stars: stars\n  top: 5\n  enough: 30\n"+
		"strategies:\n  - {name: naive, type: naive-average}\n  - {name: bayesian, type: bayesian-average, params: {prior_mean: 3, weight: 10}}\n  - {name: wilson, type: wilson}\n"), 0o644)
	out := filepath.Join(dir, "out")
	rs := asResultsOf(t, out, scn)
	for _, name := range []string{"own-top-wilson.csv", "own-top-true-mean.csv", "own-top-bayesian.csv"} {
		head, rows := readTable(t, out, name)
		if strings.Join(head, ",") != "key,place,item,ratings,up votes (≥ 4 stars),mean stars,score" || len(rows) != 5 {
			t.Fatalf("%s: %q, %d rows", name, head, len(rows))
		}
		for _, row := range rows {
			c := items[row[0]]
			if c == nil {
				t.Fatalf("%s: no item %q in the log", name, row[0])
			}
			n, up, mean, score := atof(t, row[3]), atof(t, row[4]), atof(t, row[5]), atof(t, row[6])
			if n != float64(c.n) || up != float64(c.up) || math.Abs(mean-float64(c.sum)/float64(c.n)) > 5e-5 {
				t.Errorf("%s: %s: %v ratings, %v up, mean %v; the test counts %d, %d, %v", name, row[0], n, up, mean, c.n, c.up, float64(c.sum)/float64(c.n))
			}
			if name == "own-top-wilson.csv" && math.Abs(score-wilsonLower(n, up)) > 5e-5 {
				t.Errorf("wilson: %s scores %v, by hand %v", row[0], score, wilsonLower(n, up))
			}
			if name == "own-top-true-mean.csv" && (math.Abs(score-mean) > 5e-5 || n < 30) {
				t.Errorf("true-mean: %s scores %v, mean %v, rated %v times", row[0], score, mean, n)
			}
		}
	}
	var best float64 // the highest mean among the items rated enough, by the test's count
	for _, c := range items {
		if c.n >= 30 {
			best = max(best, float64(c.sum)/float64(c.n))
		}
	}
	if _, rows := readTable(t, out, "own-top-true-mean.csv"); math.Abs(atof(t, rows[0][5])-best) > 5e-5 {
		t.Errorf("the true-mean top is %q, the best mean by the test's count %v", rows[0], best)
	}
	for _, r := range rs {
		if r.Strategy == "bayesian" && r.Metric == metrics.OneFiveStar && (r.Value == nil || math.Abs(*r.Value-35.0/11) > 1e-12 || !strings.Contains(r.Note, "item sku-lonely")) {
			t.Errorf("bayesian one_five_star_score %v (%s), want (10·3 + 5)/11 of sku-lonely", optional(r.Value), r.Note)
		}
		if r.Strategy == "truth" && r.Metric == metrics.DistinctKeys && *r.Value != float64(len(items)) {
			t.Errorf("truth: %v items, the test counts %d", *r.Value, len(items))
		}
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestRatingsBadLog: a star off the scale is a bad line at the log's
// file:line (exit 2, nothing written), or a line skipped under skip_bad; a
// log without the stars column, or a replay without stars, is bad input.
func TestRatingsBadLog(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("item,stars\n")
	for i := range 5000 {
		s := 1 + i%5
		if i == 4321 { // line 4,323
			s = 7
		}
		fmt.Fprintf(&b, "sku-%d,%d\n", i%50, s)
	}
	log := filepath.Join(dir, "r.csv")
	os.WriteFile(log, []byte(b.String()), 0o644)
	scn := filepath.Join(dir, "bad.yaml")
	for _, c := range []struct{ name, workload, want string }{
		{"off-scale", "  stars: stars\n", log + ":4323: column \"stars\" (stars): 7 is off the scale 1..5"},
		{"scale", "  stars: stars\n  scale: {min: 1, max: 6}\n", "bad.yaml:8:"},
		{"no-stars", "", "bad.yaml:3: workload: as: ratings needs the column of the stars"},
		{"no-column", "  stars: rating\n", "rating"},
	} {
		os.WriteFile(scn, []byte("name: bad\nseed: 1\nworkload:\n  file: r.csv\n  as: ratings\n  key: item\n"+c.workload+"strategies:\n  - {name: wilson, type: wilson}\n"), 0o644)
		out := filepath.Join(dir, "out-"+c.name)
		_, stderr, code := cli(t, "run", "-q", "-out", out, scn)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: bad input wrote %s", c.name, out)
		}
	}
	os.WriteFile(scn, []byte("name: lenient\nseed: 1\nworkload:\n  file: r.csv\n  as: ratings\n  key: item\n  stars: stars\n  skip_bad: 1\nstrategies:\n  - {name: wilson, type: wilson}\n"), 0o644)
	var skipped, events float64 = -1, -1
	for _, r := range asResultsOf(t, filepath.Join(dir, "out-lenient"), scn) {
		switch {
		case r.Metric == metrics.SkippedLines:
			skipped = *r.Value
		case r.Strategy == "truth" && r.Metric == metrics.Events:
			events = *r.Value
		}
	}
	if skipped != 1 || events != 4999 {
		t.Errorf("skip_bad: %v lines skipped, %v ratings; want 1 and 4,999", skipped, events)
	}
}
