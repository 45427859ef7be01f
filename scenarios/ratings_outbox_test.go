package scenarios

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// checkAccepted holds what the loader accepted of a rating-outbox run to
// the ranges of its keys and to its rules (FuzzParse).
func (r *RatingOutbox) checkAccepted(s *Scenario) error {
	st, o := r.Stream, r.Outbox
	lo, hi := st.ScaleRange()
	q := st.Quality
	in01 := func(x float64) bool { return x >= 0 && x <= 1 }
	switch {
	case r.Batch < 1 || r.Batch > 1<<20 || r.Top < 1 || r.Top > 1000 || !(r.PriorMean >= 1 && r.PriorMean <= 5) || !(r.Weight >= 0) || math.IsInf(r.Weight, 0):
		return fmt.Errorf("batch, top, prior_mean or weight out of range")
	case st.Items < 1 || st.Items > 1e9 || st.Events < 1 || st.Events > 1e8 || !(st.S >= 0) || math.IsInf(st.S, 0):
		return fmt.Errorf("items, events or s out of range")
	case !in01(st.EditShare) || !in01(st.DeleteShare) || st.EditShare+st.DeleteShare > 1:
		return fmt.Errorf("edit share %v, delete share %v", st.EditShare, st.DeleteShare)
	case !in01(o.Redeliver) || !(o.Delay >= 0) || math.IsInf(o.Delay, 0) || !(o.Retry >= 0) || math.IsInf(o.Retry, 0):
		return fmt.Errorf("outbox %+v", o)
	case lo < 1 || hi > 5 || lo >= hi:
		return fmt.Errorf("scale %d..%d", lo, hi)
	case !(q.Min >= float64(lo) && q.Min <= q.Max && q.Max <= float64(hi)):
		return fmt.Errorf("quality %v..%v on the scale %d..%d", q.Min, q.Max, lo, hi)
	case s.Questions.Top != 0 || s.Cluster != nil || len(s.Faults) > 0 || r.Duration() != 0 || r.Pos.Line < 1 || st.Pos.Line < 1:
		return fmt.Errorf("questions, a cluster, faults or positions")
	}
	return nil
}

// outboxYAML is a small rating-outbox run; each case below edits one line.
const outboxYAML = `name: o
seed: 1
workload:
  reviews:
    items: 1000
    events: 20000
    quality: {min: 2, max: 4.5}
    edit_share: 0.3
    delete_share: 0.2
  outbox:
    redeliver: 0.05
    delay: 10
  top: 5
strategies:
  - name: idem
    type: outbox-idempotent
`

func TestRatingOutboxLoads(t *testing.T) {
	s, err := Parse("o.yaml", []byte(outboxYAML))
	if err != nil {
		t.Fatal(err)
	}
	r, ok := s.Run.(*RatingOutbox)
	if !ok {
		t.Fatalf("got a run of type %T", s.Run)
	}
	if err := r.checkAccepted(s); err != nil {
		t.Fatal(err)
	}
	st, o := r.Stream, r.Outbox
	if st.Items != 1000 || st.Events != 20000 || st.S != 1 || st.EditShare != 0.3 || st.DeleteShare != 0.2 ||
		o.Redeliver != 0.05 || o.Delay != 10 || o.Retry != 500 || r.Top != 5 || r.PriorMean != 4 || r.Weight != 20 || r.Batch != 4096 ||
		r.Pos.Line != 3 || st.Pos.Line != 4 {
		t.Errorf("got %+v", r)
	}
	if lo, hi := st.ScaleRange(); lo != 1 || hi != 5 {
		t.Errorf("scale %d..%d, want 1..5", lo, hi)
	}
	// Without an outbox section: its defaults.
	s, err = Parse("o.yaml", []byte(strings.Replace(outboxYAML, "  outbox:\n    redeliver: 0.05\n    delay: 10\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if o := s.Run.(*RatingOutbox).Outbox; o.Redeliver != 0.01 || o.Delay != 50 || o.Retry != 500 {
		t.Errorf("default outbox %+v, want redeliver 0.01, delay 50, retry 500", o)
	}
	if got := s.Figures; len(got) != 2 || got[0].Simulated != 20000 || got[1].Simulated != 1000 {
		t.Errorf("figures %+v, want events 20000 and keys 1000", got)
	}
}

// Shares, probabilities and delays out of range, shares summing above 1,
// and the sections a rating-outbox run does not take are refused at their
// line with what is allowed.
func TestRatingOutboxRefused(t *testing.T) {
	for _, c := range []struct {
		name, old, new string
		line           int
		want           string
	}{
		{"shares above 1", "delete_share: 0.2", "delete_share: 0.8", 9,
			"workload.reviews.delete_share: edit_share 0.3 + delete_share 0.8 = 1.1 is above 1 (allowed: a sum of at most 1, the rest of the events creates)"},
		{"edit share alone above 1", "    delete_share: 0.2\n", "    delete_share: 0.75\n", 9, "edit_share 0.3 + delete_share 0.75 = 1.05 is above 1"},
		{"edit share 1.5", "edit_share: 0.3", "edit_share: 1.5", 8, "workload.reviews.edit_share: 1.5 is out of range (allowed: a number in [0,1])"},
		{"redeliver 2", "redeliver: 0.05", "redeliver: 2", 11, "workload.outbox.redeliver: 2 is out of range (allowed: a number in [0,1])"},
		{"delay negative", "delay: 10", "delay: -1", 12, "workload.outbox.delay: -1 is out of range"},
		{"retry a word", "delay: 10", "delay: 10\n    retry: soon", 13, "workload.outbox.retry"},
		{"unknown outbox key", "delay: 10", "delay: 10\n    dup: 0.1", 13, `unknown key "dup"`},
		{"events 0", "events: 20000", "events: 0", 6, "workload.reviews.events: 0 is out of range (allowed: 1..100000000)"},
		{"events fractional", "events: 20000", "events: 2.5", 6, "workload.reviews.events: 2.5 is not"},
		{"quality above the scale", "quality: {min: 2, max: 4.5}", "quality: {min: 2, max: 4.5}\n    scale: {min: 1, max: 4}", 7,
			"workload.reviews.quality.max: 4.5 is outside the scale 1..4 (allowed: 1..4, the scale's stars)"},
		{"quality missing", "    quality: {min: 2, max: 4.5}\n", "", 4, `missing required key "quality"`},
		{"keys beside reviews", "top: 5", "top: 5\n  keys: 5", 14, "a rating-outbox run's keys are its items, workload.reviews.items"},
		{"questions", "seed: 1", "seed: 1\nquestions: {top: 5}", 3, "questions: a rating-outbox run asks for its top K in workload.top"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(outboxYAML, c.old, c.new, 1)
			if src == outboxYAML {
				t.Fatalf("no %q in the scenario", c.old)
			}
			_, err := Parse("o.yaml", []byte(src))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Pos.Line != c.line || !strings.Contains(e.Error(), c.want) || !strings.HasPrefix(e.Error(), fmt.Sprintf("o.yaml:%d", c.line)) {
				t.Errorf("got %q, want o.yaml:%d and %q", e.Error(), c.line, c.want)
			}
		})
	}
}
