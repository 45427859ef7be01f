package workload

// The regression test pins the events of many small streams: every Stream,
// Timed and Audience config below is built in full and its events hashed
// (digest), and the lines must match testdata/regress.golden byte for
// byte, as in math/rand/v2's regress_test.go. A change to any generator,
// mixer, seed derivation or key map shows up here even when the
// statistical tests still pass. When a stream changes on purpose, rewrite
// the file with
//
//	go test ./workload/ -run TestRegress -update
//
// and say why in the commit.

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

var update = flag.Bool("update", false, "rewrite testdata/regress.golden from this build's streams")

const regressFile = "regress.golden"

func TestRegress(t *testing.T) {
	var out bytes.Buffer
	regressStreams(t, &out)
	regressTimed(t, &out)
	regressAudiences(t, &out)
	path := filepath.Join("testdata", regressFile)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	gotLines, wantLines := strings.Split(out.String(), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gotLines), len(wantLines)) {
		var g, w string
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if g != w {
			t.Errorf("%s:%d:\n got %s\nwant %s", regressFile, i+1, g, w)
		}
	}
}

// regressStreams writes a line for each Stream config: the digest of its
// events, and a hash of KeyOf and Prob over ranks 0..1008.
func regressStreams(t *testing.T, out *bytes.Buffer) {
	for _, seed := range []uint64{1, 2024} {
		for _, keys := range []uint64{1, 1000, 1_000_000} {
			for _, s := range []float64{0, 0.7, 1, 1.5} {
				for _, scramble := range []bool{false, true} {
					cfg := StreamConfig{Seed: seed, Label: "regress", Events: 20_000, Keys: keys, S: s,
						Scramble: scramble, Rate: 12_345, ChunkSize: 4096}
					st := mustStream(t, cfg)
					all := sequential(st)
					fmt.Fprintf(out, "stream seed=%d keys=%d s=%v scramble=%v: %d events %#016x, ranks %#016x\n",
						seed, keys, s, scramble, len(all), digest(all), regressRanks(st.KeyOf, st.Prob))
				}
			}
		}
	}
}

// regressTimed writes a line for each Timed config: the digest of its
// events, a hash of KeyOf and Prob, and one of RateAt and the expectations.
func regressTimed(t *testing.T, out *bytes.Buffer) {
	phases := []Phase{
		{Duration: 300 * msNs, Rate: 0, To: 40_000},
		{Duration: 400 * msNs, Rate: 40_000, To: 40_000},
		{Duration: 100 * msNs, Rate: 40_000, To: 90_000},
		{Duration: 300 * msNs, Rate: 90_000, To: 5_000},
		{Duration: 150 * msNs, Rate: 0, To: 0},
		{Duration: 250 * msNs, Rate: 7_000, To: 7_000},
	}
	for _, seed := range []uint64{1, 2024} {
		for _, arr := range []Arrivals{Even, Poisson} {
			for _, keys := range []uint64{1, 1000} {
				for _, resend := range []float64{0, 0.01} {
					for _, s := range []float64{0, 1.2} {
						for _, scramble := range []bool{false, true} {
							tm := mustTimed(t, TimedConfig{Seed: seed, Label: "regress", Keys: keys, S: s, Scramble: scramble,
								Arrivals: arr, Phases: phases, Reads: 2500, Resend: resend, ResendDelay: 200 * msNs, Window: 37 * msNs})
							all := timedAll(t, tm)
							h := xxhash.New()
							for at := int64(-5); at < tm.Duration()+10; at += 7_777_777 {
								fmt.Fprintf(h, "%v;", tm.RateAt(at))
							}
							fmt.Fprintf(h, "%v %v %d %d", tm.ExpectedWrites(), tm.ExpectedReads(), tm.Chunks(), tm.Duration())
							fmt.Fprintf(out, "timed seed=%d %v keys=%d resend=%v s=%v scramble=%v: %d events %#016x, ranks %#016x, rate %#016x\n",
								seed, arr, keys, resend, s, scramble, len(all), digest(all), regressRanks(tm.KeyOf, tm.Prob), h.Sum64())
						}
					}
				}
			}
		}
	}
}

// regressAudiences writes a line for each Audience config: the digest of
// all its days' events.
func regressAudiences(t *testing.T, out *bytes.Buffer) {
	days := []Day{{Viewers: 5000}, {Viewers: 4000, Overlap: 3000}, {Viewers: 7001, Overlap: 100}}
	for _, seed := range []uint64{1, 2024} {
		for _, v := range []struct {
			name  string
			views Views
		}{
			{"fixed=1", Views{Fixed: 1}},
			{"fixed=3", Views{Fixed: 3}},
			{"zipf/max=20/s=1", Views{ZipfMax: 20, ZipfS: 1}},
			{"zipf/max=7/s=0", Views{ZipfMax: 7, ZipfS: 0}},
		} {
			a := mustAudience(t, AudienceConfig{Seed: seed, Label: "regress", Days: days, Views: v.views, ChunkSize: 1111})
			var all, buf []Event
			for d := range a.Days() {
				for i := range a.Chunks(d) {
					buf = a.Chunk(d, i, buf)
					all = append(all, buf...)
				}
			}
			fmt.Fprintf(out, "audience seed=%d views=%s: %d events %#016x\n", seed, v.name, len(all), digest(all))
		}
	}
}

// regressRanks hashes keyOf and prob over ranks 0..1008 in steps of 7.
func regressRanks(keyOf func(uint64) uint64, prob func(uint64) float64) uint64 {
	h := xxhash.New()
	for r := uint64(0); r <= 1008; r += 7 {
		fmt.Fprintf(h, "%d %v;", keyOf(r), prob(r))
	}
	return h.Sum64()
}
