package sim

import (
	"math"
	"strings"
	"testing"

	"countsim/scenarios"
	"countsim/workload"
)

// trendScenario parses a small trending scenario: 10 minutes of 100
// searches a second over 500 phrases in 3 regions, two plants.
func trendScenario(t *testing.T) *scenarios.Scenario {
	t.Helper()
	scn, err := scenarios.Parse("t.yaml", []byte(`name: t
seed: 7
workload:
  trending:
    rate: 100
    duration: 10m
    keys: 500
    regions: 3
    checkpoint: 2m
    plants:
      - {name: flat, rank: 400, start: 1m, end: 4m, share: 0.1}
      - {name: ramp, rank: 450, start: 5m, end: 9m, share: 0, to: 0.3, region: 1}
strategies: [{name: d, type: decay, params: {half_life: 3m}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	return scn
}

// TestPlantDecayed: a plant's planned decayed score is its course
// integrated with the decay — against the closed form of a constant share,
// rate · share · h/ln 2 · (2^(−(now−end)/h) − 2^(−(now−start)/h)), and
// against the sum over the generator's own event times of a ramp's share,
// each plus the background traffic of its rank.
func TestPlantDecayed(t *testing.T) {
	scn := trendScenario(t)
	s := &scn.Run.(*scenarios.Trending).Stream
	src, err := workload.NewTrending(trendConfig(scn.Seed, s))
	if err != nil {
		t.Fatal(err)
	}
	g := &trendGen{spec: s, src: src}
	const h, now = int64(180e9), int64(600e9 - 1)
	hs, secs := 180.0, float64(now)/1e9
	all := s.Rate * hs / math.Ln2 * (1 - math.Exp2(-secs/hs))
	flat := s.Rate * 0.1 * hs / math.Ln2 * (math.Exp2(-(secs-240)/hs) - math.Exp2(-(secs-60)/hs))
	want := flat + (all-flat)*src.Prob(400)
	if got := g.plantDecayed(0, h, now); math.Abs(got/want-1) > 1e-6 {
		t.Errorf("flat: planned %.6f, closed form %.6f", got, want)
	}
	var ramp float64 // an event every 10 ms, a third of them in region 1
	for i := int64(0); i < src.Events(); i++ {
		at := float64(i) / s.Rate
		if at >= 300 && at < 540 {
			ramp += 0.3 * (at - 300) / 240 * math.Exp2(-(secs-at)/hs) / 3
		}
	}
	want = ramp + (all-ramp)*src.Prob(450)
	if got := g.plantDecayed(1, h, now); math.Abs(got/want-1) > 1e-3 {
		t.Errorf("ramp: planned %.6f, the events' sum %.6f", got, want)
	}
	if got := g.plantDecayed(1, h, 200e9); got > all*src.Prob(450)*1.0001 {
		t.Errorf("ramp before its start: planned %.6f, more than its background", got)
	}
}

// TestSampleTrending: the sampler writes the whole stream in order, a
// plant's phrase by its plant's name and every other by its background
// rank, an actor as its region, and keys that watch each plant from its
// start in its region; past n events it refuses.
func TestSampleTrending(t *testing.T) {
	scn := trendScenario(t)
	s := &scn.Run.(*scenarios.Trending).Stream
	src, err := workload.NewTrending(trendConfig(scn.Seed, s))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]uint64{}
	var events int64
	var last int64 = -1
	sampled, err := Sample(scn, 1e6, func(ev []workload.Event, names SampleNames) error {
		for _, e := range ev {
			if e.At < last || e.Actor >= 3 || names.Actor(e.Actor) != "region "+string(rune('0'+e.Actor)) {
				t.Fatalf("event %+v after %d, actor named %q", e, last, names.Actor(e.Actor))
			}
			last = e.At
			n := names.Key(e.Key)
			if k, ok := byName[n]; ok && k != e.Key {
				t.Fatalf("%q names keys %d and %d", n, k, e.Key)
			}
			byName[n] = e.Key
		}
		events += int64(len(ev))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if events != src.Events() || sampled.Events != events || sampled.As != "trending" || sampled.Cut {
		t.Errorf("sampled %+v, %d events; the stream holds %d", sampled, events, src.Events())
	}
	for name, rank := range map[string]uint64{"flat": 400, "ramp": 450, "phrase #1": 1, "phrase #2": 2} {
		if byName[name] != src.KeyOf(rank) {
			t.Errorf("%q is key %d, rank %d's is %d", name, byName[name], rank, src.KeyOf(rank))
		}
	}
	keys := map[string]string{}
	for _, kv := range sampled.Keys {
		keys[kv[0]] = kv[1]
	}
	if keys["checkpoint"] != "2m0s" || keys["regions"] != "3" || keys["phrases"] != "500" ||
		keys["watch"] != `[{name: "flat", key: "flat", start: 1m0s}, {name: "ramp", key: "ramp", start: 5m0s, region: 1}]` {
		t.Errorf("replay keys %v", keys)
	}
	if _, err := Sample(scn, src.Events()-1, func([]workload.Event, SampleNames) error { return nil }); err == nil ||
		!strings.Contains(err.Error(), "sampled whole") {
		t.Errorf("a sample of fewer events than the stream: %v", err)
	}
}
