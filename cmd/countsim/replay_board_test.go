package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
)

// builtinScaled is the text of the built-in scenario with each of its
// texts old replaced by new (each must occur once: a test that scales a
// built-in follows it, and fails loudly when it changes).
func builtinScaled(t *testing.T, builtin string, replace ...string) string {
	t.Helper()
	src, err := scenarios.BuiltinSource(builtin)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for i := 0; i+1 < len(replace); i += 2 {
		if n := strings.Count(s, replace[i]); n != 1 {
			t.Fatalf("%s holds %q %d times, want once: scale it anew", builtin, replace[i], n)
		}
		s = strings.Replace(s, replace[i], replace[i+1], 1)
	}
	return s
}

// scaledBuiltin writes to dir/name.yaml the built-in scenario scaled as
// builtinScaled does, its expectations left out (they state the full
// run's numbers).
func scaledBuiltin(t *testing.T, dir, builtin, name string, replace ...string) string {
	t.Helper()
	s := builtinScaled(t, builtin, replace...)
	e, err := scenarios.NewEdit([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	e.DropExpectations()
	if err := e.Set("name", name); err != nil {
		t.Fatal(err)
	}
	out, err := e.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// replaysAs runs the synthetic scenario and its replay into folders
// beside out and holds the replay to the synthetic run's measured rows (at
// least least of them, rows among them), its report.md to holding every
// note: what the replay says of the log it read.
func replaysAs(t *testing.T, what, out, synthetic, replay string, least int, rows []string, notes ...string) {
	t.Helper()
	want := measuredRows(runResultsOf(t, out+"-synthetic", synthetic))
	got := measuredRows(runResultsOf(t, out+"-replay", replay))
	asSame(t, what, got, want, least)
	t.Logf("%s: %d measured rows of the designs compared", what, len(want))
	for _, k := range rows {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: no row %s: the test shows less than it says", what, k)
		}
	}
	md, _ := filepath.Glob(filepath.Join(out+"-replay", "*", "report.md"))
	if len(md) != 1 {
		t.Fatalf("%s: report.md: %v", what, md)
	}
	b, _ := os.ReadFile(md[0])
	for _, n := range notes {
		if !bytes.Contains(b, []byte(n)) {
			t.Errorf("%s: the report does not say %q", what, n)
		}
	}
}

// syntheticOf is the replay scenario replay (as sample -replay wrote it)
// with its workload put back to the synthetic one of step of the scenario
// at scaled ("" for one without steps): the same scenario but for where
// its events come from. It is written to dir/name.yaml.
func syntheticOf(t *testing.T, dir, name, scaled, step, replay string) string {
	t.Helper()
	src, err := os.ReadFile(scaled)
	if err != nil {
		t.Fatal(err)
	}
	synth, err := scenarios.NewEdit(src)
	if err != nil {
		t.Fatal(err)
	}
	at := "workload"
	if step != "" {
		at = "steps[" + step + "].workload"
	}
	w, err := synth.Get(at)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(replay)
	if err != nil {
		t.Fatal(err)
	}
	e, err := scenarios.NewEdit(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Set("workload", w); err != nil {
		t.Fatal(err)
	}
	if err := e.Set("name", name); err != nil {
		t.Fatal(err)
	}
	out, err := e.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// measuredRows are a run's measured values of the designs (the truth's
// and the clock's left out), by design, metric and scale: what a replay
// must give as the synthetic run did. Plans are apart (plannedRows).
func measuredRows(rs []metrics.Result) map[string]string {
	out := map[string]string{}
	for _, r := range rs {
		if r.Timing || strings.HasPrefix(r.Strategy, "truth") || r.Value == nil {
			continue
		}
		out[r.Strategy+" "+string(r.Metric)+" "+string(r.Scale)] = metrics.Format(*r.Value)
	}
	return out
}

// TestBoardSampleReplaysTheSyntheticRun: the cricket final's board step,
// scaled down to 20,000 players and 2 s of 20,000 changes a second, and
// the full board of leaderboard-full with its standings, scaled the same
// way, sampled (CSV; gzipped NDJSON with the standings as a second file)
// and replayed as board by the scenarios sample -replay writes give every
// design the same measured rows as the synthetic runs: the boards' leaders
// and ranks under every tie policy, their bytes, and the load on each
// one's simulated cluster. Only plans differ, worked out from the log's
// own figures (its busiest second for the peak), which a note gives.
func TestBoardSampleReplaysTheSyntheticRun(t *testing.T) {
	if testing.Short() {
		t.Skip("an acceptance run: two boards sampled and replayed, eight runs (the race-free pass runs it)")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		builtin, step, format, log string
		replace                    []string
		standings                  bool
	}{
		{"cricket-final", "leaderboard", "csv", "lb.csv", []string{
			"keys: 20_000_000     # players", "keys: 20_000     # players",
			"duration: 20s    # the rates", "duration: 2s    # the rates",
			"rate: 50_000     # score changes", "rate: 20_000     # score changes"}, false},
		{"leaderboard-full", "", "ndjson", "full.ndjson.gz", []string{
			"workload:\n  keys: 20_000_000", "workload:\n  keys: 20_000",
			"duration: 60s", "duration: 2s",
			"rate: 50_000", "rate: 20_000",
			"start_max: 10_000", "start_max: 1_000"}, true},
	} {
		t.Run(c.builtin, func(t *testing.T) {
			scaled := scaledBuiltin(t, dir, c.builtin, c.builtin+"-small", c.replace...)
			log, replay := filepath.Join(dir, c.log), filepath.Join(dir, c.builtin+"-replay.yaml")
			args := []string{"sample", "-events", "100000", "-format", c.format, "-o", log, "-replay", replay}
			if c.step != "" {
				args = append(args, "-step", c.step)
			}
			stdout, stderr, code := cli(t, append(args, scaled)...)
			if code != 0 {
				t.Fatalf("sample: exit %d: %s", code, stderr)
			}
			text, err := os.ReadFile(replay)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"  as: board\n", "  key_id: key_id\n", "  op: op\n", "  checked: "} {
				if !strings.Contains(string(text), want) {
					t.Errorf("the replay scenario lacks %q:\n%s", want, text)
				}
			}
			if got := strings.Contains(string(text), "  standings: "); got != c.standings {
				t.Errorf("the replay scenario names standings: %v, want %v:\n%s", got, c.standings, text)
			}
			if c.standings && !strings.Contains(stdout, "wrote its standings to ") {
				t.Errorf("sample did not say where the standings went:\n%s", stdout)
			}
			synthetic := syntheticOf(t, dir, c.builtin+"-synthetic", scaled, c.step, replay)
			replaysAs(t, c.builtin, filepath.Join(dir, c.builtin), synthetic, replay, 80,
				[]string{"sorted-set max_key_ops_per_s sim", "sharded-8 ranks_wrong_dense sim", "sorted-set top_exact sim"},
				"The log held ", "read whole at Prepare")
		})
	}
}

// TestBoardLogBadInput: a log replayed as board refuses bad input with the
// file and line where it is — a score that is not a number in the log, a
// line of the standings without a score, a player standing twice (at the
// later line), a score column the log lacks, standings that are not there
// — exit 2, and nothing written.
func TestBoardLogBadInput(t *testing.T) {
	const log = "user,ts,points,score,kind\nann,1767225600.5,3,,write\nbob,1767225601.0,2,,write\nann,1767225601.5,0,%s,write\ncy,1767225602,0,,read\n"
	const standings = "user,season\nann,10\nbob,%s\ncy,7\n%s"
	scenario := "name: bad-board\nseed: 1\nworkload:\n  file: log.csv\n  key: user\n  time: ts\n  delta: points\n  score: %s\n  op: kind\n  as: board\n" +
		"  standings: %s\n  standings_score: season\nstrategies:\n  - {name: hist, type: score-histogram, params: {width: 1}}\n"
	for _, c := range []struct {
		name, score, season, again, column, stand string
		where, want                               string
		validate                                  bool // refused at Prepare already
	}{
		{"good", "40", "12", "", "score", "season.csv", "", "", false},
		{"score not a number", "forty", "12", "", "score", "season.csv", "log.csv:4:", `"forty" is not a decimal int64`, true},
		{"standings without a score", "40", "", "", "score", "season.csv", "season.csv:3:", "no score in column season", true},
		{"a player standing twice", "40", "12", "ann,3\n", "score", "season.csv", "season.csv:5:", "the player of line 2 stands again", false},
		{"no such score column", "40", "12", "", "points_total", "season.csv", "log.csv", "points_total", true},
		{"no standings file", "40", "12", "", "score", "nope.csv", "bad-board.yaml:", "workload.standings", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"log.csv": fmt.Sprintf(log, c.score), "season.csv": fmt.Sprintf(standings, c.season, c.again),
				"bad-board.yaml": fmt.Sprintf(scenario, c.column, c.stand)}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			file, out := filepath.Join(dir, "bad-board.yaml"), filepath.Join(dir, "reports")
			runs := [][]string{{"run", "-q", "-out", out, file}}
			if c.validate {
				runs = append(runs, []string{"validate", file})
			}
			for _, args := range runs {
				_, errOut, code := cli(t, args...)
				if c.want == "" {
					if code != 0 {
						t.Fatalf("%s: exit %d: %s", args[0], code, errOut)
					}
					continue
				}
				if code != 2 || !strings.Contains(errOut, c.where) || !strings.Contains(errOut, c.want) {
					t.Errorf("%s: exit %d, %q; want exit 2, %q and %q", args[0], code, errOut, c.where, c.want)
				}
			}
			if _, err := os.Stat(out); c.want != "" && !os.IsNotExist(err) {
				t.Errorf("run wrote %s on bad input", out)
			}
		})
	}
}
