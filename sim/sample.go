package sim

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/workload"
)

// Sample logs: a kind's stream written as a recorded log (countsim sample),
// with string keys and actors, so that a team can try replaying one, and so
// that a log replayed (workload: {file: …, as: KIND}) can be held to give
// the same measured rows as the synthetic run it came from. Each kind that
// can be sampled registers a sampler in its own file (defineSampler).

// SampleNames names the keys and actors of one chunk of sampled events:
// the strings a team's log would hold for them. Each is valid for the
// chunk it comes with.
type SampleNames struct {
	Key   func(key uint64) string
	Actor func(actor uint64) string // nil: an actor is written as its id
}

// Sampled says how to replay a sample log as the run it came from: the
// kind it is replayed as and the workload keys besides its columns, in
// order (a day's length, the phrases to watch, …), each a key and its
// value as YAML.
type Sampled struct {
	As     string
	Keys   [][2]string
	Events int64 // events written
	// Cut says the log holds the head of the stream only (a count
	// stream's first n): the answers of the whole stream are not its.
	Cut bool
	// Files are the further files the replay reads beside the log (a
	// board's standings), in order.
	Files []SampleFile
	// Unjudged names the metrics a replay of the log cannot measure (a
	// ratings run's hidden qualities): the expectations on them are left
	// out of the replay scenario.
	Unjudged []string
}

// SampleFile is a further file of a sample: written as the log is (its
// format, the names of its keys) to the log's path with Suffix put before
// its extensions, and read by the replay's workload key Key (its path) and
// Keys (how, in YAML).
type SampleFile struct {
	Key, Suffix string
	Keys        [][2]string
	// Write draws the file's events and hands them to each, in order.
	Write func(each func(events []workload.Event, names SampleNames) error) error
}

// A sampler draws the first n events of a scenario's stream (a scenario
// without steps, of its kind) and hands them to each, chunk by chunk in
// order.
type sampler func(scn *scenarios.Scenario, n int64, each func(events []workload.Event, names SampleNames) error) (*Sampled, error)

// samplers maps a kind of run to its sampler.
var samplers = map[string]sampler{}

// defineSampler registers the sampler of a kind of run. It panics on a
// duplicate.
func defineSampler(kind string, s sampler) {
	if _, dup := samplers[kind]; dup {
		panic("sim: sampler of " + kind + " defined twice")
	}
	samplers[kind] = s
}

// SampledKinds lists the kinds of run Sample writes, in order.
func SampledKinds() []string { return slices.Sorted(maps.Keys(samplers)) }

// Sample draws the first n events of scn's stream — all of it, for a kind
// whose answers need the whole (a day, a burst) — and hands them, chunk by
// chunk in order, with the names of their keys and actors, to each. scn is
// a scenario without steps (or one step of one).
func Sample(scn *scenarios.Scenario, n int64, each func(events []workload.Event, names SampleNames) error) (*Sampled, error) {
	if len(scn.Steps) > 0 {
		return nil, fmt.Errorf("%s is told in steps: sample one of them (%s)", scn.ID(), stepNames(scn))
	}
	if err := CanSample(scn); err != nil {
		return nil, err
	}
	return samplers[scn.Run.Kind()](scn, n, each)
}

// CanSample says why Sample cannot write scn's stream, or nil.
func CanSample(scn *scenarios.Scenario) error {
	kind := scn.Run.Kind()
	if _, ok := samplers[kind]; ok || len(scn.Steps) > 0 {
		return nil
	}
	why := ""
	if kind == "profile" {
		why = ": an accuracy profile is seeded trials at cardinalities, with no stream to write"
	}
	return fmt.Errorf("%s is a %s, which sample does not write%s (allowed: a scenario of kind %s)", scn.ID(), kind, why, strings.Join(SampledKinds(), ", "))
}

func stepNames(scn *scenarios.Scenario) string {
	var names []string
	for _, st := range scn.Steps {
		names = append(names, st.Step)
	}
	return strings.Join(names, ", ")
}

func init() { defineSampler("stream", sampleStream) }

// sampleStream samples a count stream: its first n events — chunk by chunk
// the very stream of the run, cut at n (the same events as the scenario
// with events: n, but for a planted key, spread over the whole run) — a
// key named by its popularity ("phrase #1" the most searched).
func sampleStream(scn *scenarios.Scenario, n int64, each func([]workload.Event, SampleNames) error) (*Sampled, error) {
	spec := scn.Run.(*scenarios.Stream)
	src, err := workload.NewStream(streamConfig(scn.Seed, spec)) // the whole stream, cut at n: a planted key spread over all of it, as in the run

	if err != nil {
		return nil, err
	}
	var buf []workload.Event
	var ranks []uint32
	rank := map[uint64]uint32{}
	names := SampleNames{Key: func(key uint64) string { return "phrase #" + strconv.Itoa(int(rank[key])) }}
	out := &Sampled{As: "count"}
	for i := 0; i < src.Chunks() && out.Events < n; i++ {
		buf, ranks = src.ChunkRanks(i, buf, ranks)
		if left := n - out.Events; int64(len(buf)) > left {
			buf, ranks = buf[:left], ranks[:left]
		}
		clear(rank) // the names of this chunk's keys only: memory stays bounded
		for j, e := range buf {
			rank[e.Key] = ranks[j]
		}
		if err := each(buf, names); err != nil {
			return nil, err
		}
		out.Events += int64(len(buf))
	}
	out.Cut = out.Events < spec.Events
	return out, nil
}

// drawAll hands every chunk of src, a kind's whole stream, to each with the
// names of its keys and actors, counting the events in out.
func drawAll(src engine.Source, names SampleNames, out *Sampled, each func([]workload.Event, SampleNames) error) (*Sampled, error) {
	var buf []workload.Event
	for i := range src.Chunks() {
		buf = src.Chunk(i, buf)
		if err := each(buf, names); err != nil {
			return nil, err
		}
		out.Events += int64(len(buf))
	}
	return out, nil
}
