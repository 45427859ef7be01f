package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/workload"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
)

// A log replayed as trending phrases (as: trending, issue 25): the log's
// events fed, on its own clock, to the trending run of trending.go — the
// same designs, truth and scorer — each event's region its actor_id, and
// the phrases its scenario watches in the place of a generated stream's
// plants. Their truth is the log's own: the exact score of each law at
// every checkpoint, worked out from the events, so that each design's
// detection latency is measured against when that truth puts a phrase in
// its top K, and its decayed score at the last checkpoint against the
// exact one.
//
// The log is read whole at Prepare, once before the replay: its events,
// its distinct phrases and its span, which the checkpoints, the designs'
// sizes and their plans are then worked out for; the key of each watched
// string and its first event; and a region past regions, refused as bad
// input at its line.

func init() { defineLogAs("trending", newLogTrending) }

// logTrending is the trending run of a log: its reader churns.
type logTrending struct{ *trendingKind }

func (k logTrending) Churns() bool { return true }

// maxLogCheckpoints is the most checkpoints a log's span may hold: every
// design's top K is kept at each (a year of minutes is 525,600).
const maxLogCheckpoints = 1_000_000

// logTrendFigures is what the read at Prepare found in a log.
type logTrendFigures struct {
	events int64
	keys   int
	last   int64    // the last event's At
	watch  []uint64 // each watched phrase's key
	first  []int64  // and its first event's At, −1 if none
}

func newLogTrending(h *engine.Harness, b *logBase) (engine.Kind, error) {
	spec := b.spec
	opt := &spec.LogTrending
	f, err := readLogTrend(h.Ctx, b, opt)
	if err != nil {
		return nil, err
	}
	cp := opt.Checkpoint
	if n := f.last/cp + 1; n > maxLogCheckpoints {
		return nil, scenarios.Errorf(spec.Pos, "workload.checkpoint: the log spans %s, %s checkpoints of %s, more than %s (allowed: a checkpoint of at least %s)",
			time.Duration(f.last), metrics.Format(float64(n)), time.Duration(cp), metrics.Format(maxLogCheckpoints), time.Duration(f.last/maxLogCheckpoints+1))
	}
	in := &trendInput{events: f.events, length: (f.last/cp + 1) * cp, checkpoint: cp, regions: opt.Regions, batch: spec.Batch, series: "watch-"}
	for i, w := range opt.Watch {
		if f.first[i] < 0 {
			return nil, scenarios.Errorf(w.Pos, "workload.watch[%d].key: %q is on no line of %s (allowed: a string of its %s column)", i, w.Key, b.cfg.Path, spec.Key)
		}
		ph := trendPhrase{name: w.Name, key: f.watch[i], start: f.first[i], region: -1}
		if w.HasStart {
			ph.start = w.Start
		}
		if !w.AllRegions {
			ph.region = w.Region
		}
		in.phrases = append(in.phrases, ph)
	}
	src := b.source()
	in.src = src
	in.after = func() error {
		if src.err != nil {
			return b.badInput(src.err)
		}
		return nil
	}
	in.what = func(k int) string {
		return fmt.Sprintf("Recorded log as trending phrases: %s (%s, key column %s, timed by column %s), %s events over %s, %s phrases, %s, %s watched, the top %d of now asked every %s.",
			b.cfg.Path, spec.Format, spec.Key, spec.Time, metrics.Format(float64(f.events)), durationOf(in.length), metrics.Format(float64(f.keys)),
			engine.Count(float64(opt.Regions), "region"), engine.Count(float64(len(opt.Watch)), "phrase"), k, durationOf(cp))
	}
	about := "estimated from its head at"
	if b.whole {
		about = "as the read of its head at Prepare found:"
	}
	in.notes = append(in.notes, fmt.Sprintf("The log was read whole before the replay: %s events and %s distinct phrases over %s (%s %s events and %s phrases); the checkpoints, the designs' sizes and their plans are worked out for these.",
		metrics.Format(float64(f.events)), metrics.Format(float64(f.keys)), durationOf(in.length), about, metrics.Format(math.Round(b.logEvents)), metrics.Format(math.Round(b.logKeys))))
	keys := opt.Keys
	if keys == 0 {
		keys = uint64(max(f.keys, 1))
	} else {
		in.notes = append(in.notes, fmt.Sprintf("The designs are sized for %s phrases (phrases: %d), the log holding %s.", metrics.Format(float64(keys)), keys, metrics.Format(float64(f.keys))))
	}
	k, err := newTrendRunner(h, in, keys)
	if err != nil {
		return nil, err
	}
	return logTrending{k}, nil
}

// readLogTrend reads the log whole: its events, distinct phrases and last
// time, and the key and first event of each watched string. The key
// column's text is hashed to find a watched string; a log with key_id is
// read with that column as each event's ID, so that one pass sees both.
// An event's region (its actor) past opt.Regions is bad input at its
// line. It stops with ctx's error when ctx ends first.
func readLogTrend(ctx context.Context, b *logBase, opt *scenarios.LogTrending) (*logTrendFigures, error) {
	cfg := b.cfg
	byID := cfg.KeyID != ""
	if byID {
		cfg.EventID, cfg.ID, cfg.KeyID = cfg.KeyID, "", ""
	}
	r, err := workload.OpenLog(cfg)
	if err != nil {
		return nil, b.badInput(err)
	}
	defer r.Close()
	f := &logTrendFigures{watch: make([]uint64, len(opt.Watch)), first: make([]int64, len(opt.Watch))}
	hashes := map[uint64]int{}
	for i, w := range opt.Watch {
		hashes[xxhash.Sum64String(w.Key)] = i
		f.first[i] = -1
	}
	seen := map[uint64]struct{}{}
	buf := make([]workload.Event, 0, 4096)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch, err := r.Read(buf[:0])
		for j := range batch {
			e := &batch[j]
			if e.Actor >= uint64(opt.Regions) {
				return nil, b.badInput(regionLine(cfg, f.events+int64(j), e.Actor, opt.Regions))
			}
			key := e.Key
			if byID {
				key = e.ID
			}
			seen[key] = struct{}{}
			if i, ok := hashes[e.Key]; ok && f.first[i] < 0 {
				f.watch[i], f.first[i] = key, e.At
			}
			f.last = e.At
		}
		f.events += int64(len(batch))
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, b.badInput(err)
		}
	}
	f.keys = len(seen)
	return f, nil
}

// regionLine is the bad line of event n (from 0) of the log, whose region
// is past regions: the log read again an event at a time up to it.
func regionLine(cfg workload.LogConfig, n int64, region uint64, regions int) error {
	r, err := workload.OpenLog(cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	buf := make([]workload.Event, 0, 1)
	for i := int64(0); i <= n; i++ {
		if _, err := r.Read(buf[:0]); err != nil {
			return err
		}
	}
	return &workload.LogError{Path: cfg.Path, Line: r.Line(), Msg: fmt.Sprintf("%s: region %d is not one of the %d regions (allowed: 0..%d, or more regions:)",
		cfg.ActorID, region, regions, regions-1)}
}

func init() { defineSampler("trending", sampleTrending) }

// sampleTrending samples a trending stream whole: a phrase named by its
// background popularity ("phrase #12"), a plant's by its plant's name, an
// event's actor its region ("region 2"); the replay watches each plant by
// its string, from its start and in its region, sized and checkpointed as
// the synthetic run.
func sampleTrending(scn *scenarios.Scenario, n int64, each func([]workload.Event, SampleNames) error) (*Sampled, error) {
	spec := scn.Run.(*scenarios.Trending)
	s := &spec.Stream
	src, err := workload.NewTrending(trendConfig(scn.Seed, s))
	if err != nil {
		return nil, err
	}
	if src.Events() > n {
		return nil, fmt.Errorf("%s holds %s events, more than %s: a trending stream is sampled whole (allowed: -events %d or more)",
			scn.ID(), metrics.Format(float64(src.Events())), metrics.Format(float64(n)), src.Events())
	}
	plants := map[uint64]string{}
	var watch []string
	for _, p := range s.Plants {
		plants[src.KeyOf(p.Rank)] = p.Name
		w := fmt.Sprintf("{name: %s, key: %s, start: %s", strconv.Quote(p.Name), strconv.Quote(p.Name), time.Duration(p.Start))
		if !p.AllRegions {
			w += fmt.Sprintf(", region: %d", p.Region)
		}
		watch = append(watch, w+"}")
	}
	scr := workload.NewScrambler(scn.Seed)
	names := SampleNames{
		Key: func(key uint64) string {
			if name, ok := plants[key]; ok {
				return name
			}
			rank := key
			if s.Scramble {
				rank = scr.Rank(key)
			}
			return "phrase #" + strconv.FormatUint(rank, 10)
		},
		Actor: func(a uint64) string { return "region " + strconv.FormatUint(a, 10) },
	}
	out := &Sampled{As: "trending", Keys: [][2]string{
		{"checkpoint", time.Duration(s.Checkpoint).String()},
		{"regions", strconv.Itoa(s.Regions)},
		{"phrases", strconv.FormatUint(min(s.Keys, uint64(src.Events())), 10)},
		{"watch", "[" + strings.Join(watch, ", ") + "]"},
		{"batch", strconv.Itoa(spec.Batch)},
	}}
	return drawAll(src, names, out, each)
}
