package scenarios

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// checkAccepted holds what the loader accepted of a ratings run to the
// ranges of its keys and to its rules (FuzzParse).
func (r *Ratings) checkAccepted(s *Scenario) error {
	st := r.Stream
	lo, hi := st.ScaleRange()
	q := st.Quality
	switch {
	case r.Batch < 1 || r.Batch > 1<<20 || r.Top < 1 || r.Top > 1000 || r.Few < 1 || r.Few > 1e6 || r.Enough < 1 || r.Enough > 1e9:
		return fmt.Errorf("batch, top, few or enough out of range")
	case st.Items < 1 || st.Items > 1e9 || st.Ratings < 1 || st.Ratings > 1e10 || !(st.S >= 0) || math.IsInf(st.S, 0):
		return fmt.Errorf("items, ratings or s out of range")
	case lo < 1 || hi > 5 || lo >= hi:
		return fmt.Errorf("scale %d..%d", lo, hi)
	case !(q.Min >= float64(lo) && q.Min <= q.Max && q.Max <= float64(hi)):
		return fmt.Errorf("quality %v..%v on the scale %d..%d", q.Min, q.Max, lo, hi)
	case s.Questions.Top != 0 || s.Cluster != nil || len(s.Faults) > 0 || r.Duration() != 0 || r.Pos.Line < 1 || st.Pos.Line < 1:
		return fmt.Errorf("questions, a cluster, faults or positions")
	}
	return nil
}

// ratingsYAML is a small ratings run; each case below edits one line.
const ratingsYAML = `name: r
seed: 1
workload:
  ratings:
    items: 1000
    ratings: 20000
    s: 1
    scale: {min: 1, max: 5}
    quality: {min: 2, max: 4.5}
  top: 10
strategies:
  - name: bayes
    type: bayesian-average
`

func TestRatingsLoads(t *testing.T) {
	s, err := Parse("r.yaml", []byte(ratingsYAML))
	if err != nil {
		t.Fatal(err)
	}
	r, ok := s.Run.(*Ratings)
	if !ok {
		t.Fatalf("got a run of type %T", s.Run)
	}
	if err := r.checkAccepted(s); err != nil {
		t.Fatal(err)
	}
	st := r.Stream
	if st.Items != 1000 || st.Ratings != 20000 || st.S != 1 || st.Quality.Min != 2 || st.Quality.Max != 4.5 ||
		r.Top != 10 || r.Few != 5 || r.Enough != 30 || r.Batch != 4096 || r.Pos.Line != 3 || st.Pos.Line != 4 {
		t.Errorf("got %+v", r)
	}
	if lo, hi := st.ScaleRange(); lo != 1 || hi != 5 {
		t.Errorf("scale %d..%d, want 1..5", lo, hi)
	}
	// Without a scale, 1..5.
	s, err = Parse("r.yaml", []byte(strings.Replace(ratingsYAML, "    scale: {min: 1, max: 5}\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := s.Run.(*Ratings).Stream.ScaleRange(); lo != 1 || hi != 5 {
		t.Errorf("no scale: %d..%d, want 1..5", lo, hi)
	}
	if got := s.Figures; len(got) != 2 || got[0].Simulated != 20000 || got[1].Simulated != 1000 {
		t.Errorf("figures %+v, want events 20000 and keys 1000", got)
	}
}

// A scale or a quality outside 1..5, or outside each other, is refused at
// its line with what is allowed; so are the sections a ratings run does not
// take and the keys of other kinds.
func TestRatingsRefused(t *testing.T) {
	for _, c := range []struct {
		name, old, new string
		line           int
		want           string
	}{
		{"quality above 5", "quality: {min: 2, max: 4.5}", "quality: {min: 2, max: 7}", 9, "workload.ratings.quality.max: 7 is out of range (allowed: a number from 1 to 5)"},
		{"quality below 1", "quality: {min: 2, max: 4.5}", "quality: {min: 0.5, max: 4.5}", 9, "workload.ratings.quality.min: 0.5 is out of range (allowed: a number from 1 to 5)"},
		{"quality above the scale", "scale: {min: 1, max: 5}", "scale: {min: 1, max: 4}", 9,
			"workload.ratings.quality.max: 4.5 is outside the scale 1..4 (allowed: 1..4, the scale's stars)"},
		{"quality below the scale", "scale: {min: 1, max: 5}", "scale: {min: 3, max: 5}", 9,
			"workload.ratings.quality.min: 2 is outside the scale 3..5 (allowed: 3..5, the scale's stars)"},
		{"quality reversed", "quality: {min: 2, max: 4.5}", "quality: {min: 4, max: 3}", 9, "workload.ratings.quality.max: 3 is below min, 4 (allowed: 4..5)"},
		{"quality missing", "    quality: {min: 2, max: 4.5}\n", "", 4, `missing required key "quality"`},
		{"scale above 5", "scale: {min: 1, max: 5}", "scale: {min: 1, max: 10}", 8, "workload.ratings.scale.max: 10 is out of range (allowed: 1..5)"},
		{"scale below 1", "scale: {min: 1, max: 5}", "scale: {min: 0, max: 5}", 8, "workload.ratings.scale.min: 0 is out of range (allowed: 1..5)"},
		{"scale empty", "scale: {min: 1, max: 5}", "scale: {min: 3, max: 3}", 8, "workload.ratings.scale.max: scale 3..3 is empty (allowed: min below max, both in 1..5)"},
		{"scale min alone", "scale: {min: 1, max: 5}", "scale: {min: 5}", 8, "workload.ratings.scale.min: scale 5..5 is empty"},
		{"items 0", "items: 1000", "items: 0", 5, "workload.ratings.items: 0 is out of range (allowed: 1..1e9)"},
		{"ratings fractional", "ratings: 20000", "ratings: 2.5", 6, "workload.ratings.ratings: 2.5 is not"},
		{"top 0", "top: 10", "top: 0", 10, "workload.top: 0 is out of range (allowed: 1..1000)"},
		{"keys beside ratings", "top: 10", "top: 10\n  keys: 5", 11, "a ratings run's keys are its items, workload.ratings.items"},
		{"questions", "seed: 1", "seed: 1\nquestions: {top: 5}", 3, "questions: a ratings run asks for its top K in workload.top"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(ratingsYAML, c.old, c.new, 1)
			if src == ratingsYAML {
				t.Fatalf("no %q in the scenario", c.old)
			}
			_, err := Parse("r.yaml", []byte(src))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Pos.Line != c.line || !strings.Contains(e.Error(), c.want) || !strings.HasPrefix(e.Error(), fmt.Sprintf("r.yaml:%d", c.line)) {
				t.Errorf("got %q, want r.yaml:%d and %q", e.Error(), c.line, c.want)
			}
		})
	}
}
