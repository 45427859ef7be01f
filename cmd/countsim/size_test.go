package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"countsim/scenarios"
)

// sizeJSON runs countsim size -format json and decodes its rows.
func sizeJSON(t *testing.T, args ...string) []sizeRow {
	t.Helper()
	out, errOut, code := cli(t, append([]string{"size", "-q", "-format", "json", "-out", t.TempDir()}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []sizeRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v in:\n%s", err, out)
	}
	return rows
}

// rowOf is the design's row.
func rowOf(t *testing.T, rows []sizeRow, design string) sizeRow {
	t.Helper()
	for _, r := range rows {
		if r.Design == design {
			return r
		}
	}
	t.Fatalf("no row for %s in %+v", design, rows)
	return sizeRow{}
}

// withGoals writes the built-in scenario name with goals added at its top
// level, to a file of the test's.
func withGoals(t *testing.T, name, goals string) string {
	t.Helper()
	src, err := scenarios.BuiltinSource(name)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+"-goals.yaml")
	if err := os.WriteFile(path, append(src, []byte("\ngoals:\n"+goals)...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The count-min: on the search workload (search.yaml's: 10^7
// searches over 10^6 phrases), a per-key overestimate of at most 0.0001 × N
// = 1,000 at 99% takes w = ⌈e/0.0001⌉ = 27,183 and d = ⌈ln 100⌉ = 5, and the
// binomial test over keys and trials verifies it.
func TestSizeSearchCountMin(t *testing.T) {
	if testing.Short() {
		t.Skip("sizes five designs on 10^7 events")
	}
	rows := sizeJSON(t, withGoals(t, "search", "  meet: [\"max_overestimate <= 0.0001 * N\"]\n  confidence: 0.99\n  trials: 2\n"))
	cm := rowOf(t, rows, "count-min")
	w, d := cm.Params["width"].(float64), cm.Params["depth"].(float64)
	if w > 27183 || w < 1 || d > 5 || d < 1 {
		t.Errorf("count-min at width %v depth %v, want at most 27,183 × 5", w, d)
	}
	if cm.Verdict != "meets every goal" || len(cm.Goals) != 1 || !cm.Goals[0].Pass || !strings.Contains(cm.Goals[0].Note, "holds at false alarm") {
		t.Errorf("count-min not verified by the binomial test: %+v", cm)
	}
	if cm.PlanSize == nil || *cm.PlanSize != 27183 {
		t.Errorf("count-min's closed form %v, want 27,183", cm.PlanSize)
	}
	if cm.Runs > 36 {
		t.Errorf("count-min took %d trial runs, want a few dozen at most", cm.Runs)
	}
}

// The cheapest design that finds the search day's top 10 in every trial
// is printed first, with its bytes, and the designs that meet it are in
// order of bytes.
func TestSizeSearchTop10(t *testing.T) {
	if testing.Short() {
		t.Skip("sizes five designs on 10^7 events")
	}
	path := withGoals(t, "search", "  meet: [\"topk_recall == 1\"]\n  trials: 2\n")
	out, errOut, code := cli(t, "size", "-q", "-runs", "16", "-out", t.TempDir(), path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The columns start where the header's words do (tabwriter aligns them).
	var rows [][]string
	var starts []int
	for _, text := range strings.Split(out, "\n") {
		line := []rune(text) // tabwriter aligns runes, not bytes
		if strings.HasPrefix(text, "design ") {
			for _, h := range []string{"design", "type", "size", "bytes", "plan", "measured", "verdict"} {
				starts = append(starts, len([]rune(text[:strings.Index(text, h)])))
			}
			continue
		}
		if starts == nil {
			continue
		}
		if strings.TrimSpace(text) == "" { // the table's end: a note follows
			break
		}
		var c []string
		for i, at := range starts {
			end := len(line)
			if i+1 < len(starts) {
				end = min(starts[i+1], len(line))
			}
			c = append(c, strings.TrimSpace(string(line[min(at, len(line)):end])))
		}
		rows = append(rows, c)
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want the 5 designs:\n%s", len(rows), out)
	}
	if !strings.Contains(out, "to show that rate under 0.01 takes 459 trials without a failure") {
		t.Errorf("no note of the trials a 99%% confidence takes:\n%s", out)
	}
	if rows[0][6] != "meets every goal" {
		t.Fatalf("the first design does not meet the goal:\n%s", out)
	}
	prev := 0.0
	for _, r := range rows {
		if r[6] != "meets every goal" {
			continue
		}
		b, err := strconv.ParseFloat(strings.ReplaceAll(r[3], ",", ""), 64)
		if err != nil || b <= 0 {
			t.Fatalf("%s meets the goal with bytes %q:\n%s", r[0], r[3], out)
		}
		if b < prev {
			t.Errorf("%s (%v bytes) after a dearer design (%v bytes)", r[0], b, prev)
		}
		prev = b
		if !regexp.MustCompile(`topk_recall 1 \(held in 2 of 2 trials, fail ≤ 0\.9\)`).MatchString(r[5]) {
			t.Errorf("%s: measured %q, want recall 1 in 2 of 2 trials with its Clopper–Pearson bound (1 − 0.01^(1/2) = 0.9)", r[0], r[5])
		}
	}
}

// The cricket final's views at the 70% headroom goal: K = ⌈200,000 /
// 7,000⌉ = 29 stripes, 32 as a power of two, verified on the simulated
// cluster. Round-robin writes keep each stripe at the mean; random ones
// (the scenario's own select) sway above it, and size then measures the
// 29 over 7,000 and searches on (to 30: TestSizeRandomStripes).
func TestSizeCricketStripes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the cricket final's minute of views")
	}
	goals := "steps[views].goals={meet: [\"max_key_ops_per_s <= 0.7 * key_capacity\"], trials: 2%s}"
	rr := []string{"-set", "steps[views].strategies[striped-32].params.select=round-robin", "-set", "steps[views].strategies[striped-32-cached].params.select=round-robin"}
	for _, c := range []struct {
		pow2 string
		want float64
	}{{"", 29}, {", power_of_two: true", 32}} {
		rows := sizeJSON(t, append(append([]string{"-set", strings.Replace(goals, "%s", c.pow2, 1)}, rr...), "cricket-final")...)
		r := rowOf(t, rows, "striped-32")
		if got := r.Params["stripes"]; got != c.want || r.Verdict != "meets every goal" {
			t.Errorf("power_of_two %q: striped at %v stripes (%s), want %v", c.pow2, got, r.Verdict, c.want)
		}
		if r.PlanSize == nil || *r.PlanSize != c.want {
			t.Errorf("power_of_two %q: closed form %v, want %v", c.pow2, r.PlanSize, c.want)
		}
		if sk := rowOf(t, rows, "single-key"); !strings.HasPrefix(sk.Verdict, "not sized") {
			t.Errorf("single-key: %q, want not sized", sk.Verdict)
		}
	}
}

// tinyGoals is a small scenario with goals: count-min and Space-Saving on
// 200,000 events, a per-key bound and a byte budget.
const tinyGoals = `name: tiny
seed: 3
workload: {events: 200_000, keys: 20_000, s: 1.0, scramble: true}
questions: {top: 5}
strategies:
  - {name: cm, type: count-min, params: {width: 100, depth: 2}}
  - {name: ss, type: space-saving, params: {counters: 10}}
goals:
  meet: ["max_overestimate <= 0.001 * N", "bytes <= 1MiB"]
  trials: 2
`

// -write writes the sizes found as a scenario that check passes, the goals
// as expectations; it never writes over a file (exit 2, the file as it
// was), and a scenario without goals, or with bad ones, is bad input.
func TestSizeWrite(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(src, []byte(tinyGoals), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "sized.yaml")
	out, errOut, code := cli(t, "size", "-q", "-out", dir, "-write", dst, src)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "cm ") || !strings.Contains(out, "width 2,719, depth 5") {
		t.Errorf("count-min not at w = ⌈e/0.001⌉ = 2,719, d = 5:\n%s", out)
	}
	written, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"name: tiny-sized", "width: 2719", `expect: ["max_overestimate <= 0.001 * N", "bytes <= 1MiB"]`, "# countsim size:"} {
		if !strings.Contains(string(written), want) {
			t.Errorf("the sized scenario lacks %q:\n%s", want, written)
		}
	}
	if strings.Contains(string(written), "goals:") {
		t.Errorf("the sized scenario keeps its goals:\n%s", written)
	}
	if out, errOut, code := cli(t, "check", dst); code != 0 || !strings.Contains(out, "4 passed, 0 failed") {
		t.Errorf("check of the sized scenario: exit %d\n%s%s", code, out, errOut)
	}
	// Never over a file: exit 2, nothing changed.
	if _, errOut, code := cli(t, "size", "-q", "-out", dir, "-write", dst, src); code != 2 || !strings.Contains(errOut, "the file exists") {
		t.Errorf("-write over a file: exit %d, %s", code, errOut)
	}
	if again, _ := os.ReadFile(dst); string(again) != string(written) {
		t.Error("-write changed an existing file")
	}
	// A goal nothing meets: said, with the closest design and its miss;
	// exit 1.
	out, _, code = cli(t, "size", "-q", "-out", dir, "-set", "goals.meet[1]=bytes <= 20KB", src)
	if code != 1 || !strings.Contains(out, "No design meets max_overestimate <= 0.001 * N, bytes <= 20KB at 0.99. Closest: cm at width 2,719, depth 5, which misses bytes <= 20KB: worst 54,380, 172% past 20,000.") {
		t.Errorf("an unmet goal: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"small"}, "no built-in scenario"},
		{[]string{"testdata/small.yaml"}, "has no goals"},
		{[]string{"-set", "goals={meet: [\"x <= 0.1 * nope\"]}", src}, `unknown figure "nope"`},
		{[]string{src, src}, "name one scenario"},
	} {
		if _, errOut, code := cli(t, append([]string{"size", "-q", "-out", dir}, c.args...)...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("size %v: exit %d, %s; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// A scenario with goals and no strategies has size try every type it can
// size: those the workload runs are sized, the rest said not to be for
// it, a type that measures none of the goals said so; run, check and plan
// refuse such a file, exit 2, naming it.
func TestSizeEveryType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "all.yaml")
	doc := `name: all-types
seed: 3
workload:
  events: 300_000
  keys: 30_000
  distribution: zipf
  s: 1.0
  scramble: true
questions:
  top: 10
goals:
  meet: ["topk_recall == 1"]
  trials: 2
`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := sizeJSON(t, path)
	// The sizes found, written out, are a scenario check takes: the
	// strategies: the file lacked are added.
	sized := filepath.Join(t.TempDir(), "sized.yaml")
	if _, errOut, code := cli(t, "size", "-q", "-out", t.TempDir(), "-write", sized, path); code != 0 {
		t.Fatalf("size -write: exit %d: %s", code, errOut)
	}
	if out, errOut, code := cli(t, "check", sized); code != 0 || !strings.Contains(out, "5 passed, 0 failed") {
		t.Errorf("check of the sized scenario: exit %d\n%s%s", code, out, errOut)
	}
	types := map[string]string{}
	for _, r := range rows {
		types[r.Type] = r.Verdict
	}
	for _, typ := range []string{"count-min", "space-saving", "misra-gries", "heavykeeper", "exact"} {
		if v := types[typ]; v != "meets every goal" {
			t.Errorf("%s: verdict %q, want it sized to meet the goal", typ, v)
		}
	}
	for _, typ := range []string{"striped", "batched"} {
		if v := types[typ]; v != "not sized: not for this workload" {
			t.Errorf("%s: verdict %q, want not for this workload", typ, v)
		}
	}
	if v := types["hll"]; v != "not sized: measures none of the goals' metrics" {
		t.Errorf("hll: verdict %q, want it to measure none of the goals", v)
	}
	if r := rowOf(t, rows, "hll"); r.Runs > 2 {
		t.Errorf("hll took %d trial runs, want its first candidate's alone", r.Runs)
	}
	for _, cmd := range []string{"run", "check", "plan"} {
		out := t.TempDir()
		args := []string{cmd, path}
		if cmd == "run" {
			args = []string{cmd, "-out", out, path}
		}
		_, errOut, code := cli(t, args...)
		if code != 2 || !strings.Contains(errOut, path+":1: all-types: no strategies to run") {
			t.Errorf("%s: exit %d, stderr %q: want 2 and the file named", cmd, code, errOut)
		}
		if entries, _ := os.ReadDir(out); len(entries) > 0 {
			t.Errorf("%s wrote %d entries", cmd, len(entries))
		}
	}
}
