package scenarios

// One source for every real-world figure. A scenario states a figure such
// as a key's capacity once; the plan (from the assumptions) and the
// simulation (the cluster, the phases) both take it from there:
//
//   - key_capacity: the cluster's defaults to the assumptions', and the
//     assumptions take the cluster's when they state none;
//   - peak_rate: the assumptions take the peak of the phases when they
//     state none;
//   - read_rate: the assumptions take the timed stream's reads when they
//     state none;
//   - keys: the assumptions take an audience's largest day of viewers when
//     they state none (an audience's sizes are real-world counts).
//
// A step may state its own assumptions, over the file's, for the figures
// that concern it alone.
//
// A scenario may simulate something other than the full-scale assumptions
// on purpose (the search day simulates 10 M of its 2 B searches; a cluster
// of smaller keys). Then both figures stand: the plan at the simulated
// scale is worked out from what was simulated ([Scenario.Simulated]), the
// plan at full scale from the assumptions, and [Scenario.Differing] lists
// the figures that differ, with the line of each, for the report's header.

import (
	"reflect"
	"slices"
)

// Figure is one real-world figure that a simulation also states.
type Figure struct {
	Name      string  // the assumption's key: "key_capacity"
	Assumed   float64 // assumptions.<Name> as the file states it; 0 when it does not
	AssumedAt Pos     // where; zero when not stated
	Simulated float64 // the figure as simulated
	// SimulatedAt is the key that states the simulated figure
	// ("cluster.key_capacity", "workload.phases"), and SimulatedPos its
	// position (zero when the figure comes from the assumptions).
	SimulatedAt  string
	SimulatedPos Pos
	// Linked figures stated once serve both: the side that does not state
	// one takes the other's.
	Linked bool
}

// Differs reports whether the file states the figure in its assumptions
// and simulates another value.
func (f Figure) Differs() bool { return f.AssumedAt.Line > 0 && f.Assumed != f.Simulated }

// assumption returns the field of a that holds the figure key, or an
// invalid Value if there is none.
func assumption(a *Assumptions, key string) reflect.Value {
	sc := schemaOf(reflect.TypeFor[Assumptions]())
	f := sc.field(key)
	if f == nil {
		return reflect.Value{}
	}
	return reflect.ValueOf(a).Elem().FieldByIndex(f.Index)
}

// link resolves the linked figures of s, read from the file at path (""
// or "steps[i]"), and records every figure in s.Figures.
func (d *decoder) link(s *Scenario, path string) error {
	figs := slices.Clone(s.Run.simulates())
	if c := s.Cluster; c != nil {
		cpath := join(path, "cluster")
		f := Figure{Name: "key_capacity", Simulated: c.KeyCapacity, SimulatedAt: "cluster.key_capacity", Linked: true}
		if p, ok := d.keys[join(cpath, "key_capacity")]; ok {
			f.SimulatedPos = p
		} else {
			if s.Assumptions.KeyCapacity == 0 {
				return d.failAt(d.keys[cpath], cpath, "missing required key %q (allowed: cluster.key_capacity, or assumptions.key_capacity, which the cluster takes when it gives none)", "key_capacity")
			}
			c.KeyCapacity = s.Assumptions.KeyCapacity
			f.Simulated, f.SimulatedAt = c.KeyCapacity, "assumptions.key_capacity"
		}
		figs = append(figs, f)
	}
	for i := range figs {
		f := &figs[i]
		if f.SimulatedPos == (Pos{}) {
			f.SimulatedPos = d.keys[join(path, f.SimulatedAt)]
		}
		v := assumption(&s.Assumptions, f.Name)
		if p, ok := s.KeyPos("assumptions." + f.Name); ok {
			f.Assumed, f.AssumedAt = v.Float(), p
		} else if f.Linked {
			v.SetFloat(f.Simulated)
		}
	}
	s.Figures = figs
	return nil
}

// Simulated returns the figures as simulated: the assumptions, with each
// figure the run (or its cluster) simulates at its simulated value. Plans
// at the simulated scale work from these; plans at full scale from
// Assumptions.
func (s *Scenario) Simulated() Assumptions {
	a := s.Assumptions
	for _, f := range s.Figures {
		if v := assumption(&a, f.Name); v.IsValid() {
			v.SetFloat(f.Simulated)
		}
	}
	return a
}
