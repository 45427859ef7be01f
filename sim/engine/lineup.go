package engine

import (
	"slices"

	"countsim/strategies"
)

// Lineup is the designs of a run, in the scenario's order (a sweep's
// members and real-store twins included), and the Env they are built for.
// A kind's constructor sizes env (its keys, events, duration…); Prepare
// then decodes, checks and plans each design against it and adds it here;
// the kind builds the designs afresh for every run of its own (build). The
// Setup and its kind share one Lineup.
type Lineup struct {
	Env     strategies.Env
	Members []Design
}

// Build builds every design for the Env envOf gives it, into r: its
// designs, their names (the lanes' and the progress line's), and what the
// feed keeps of each.
func (l *Lineup) Build(r *Run, envOf func(i int) strategies.Env) error {
	r.Designs = make([]strategies.Strategy, len(l.Members))
	r.Names = make([]string, len(l.Members))
	r.Elapsed = make([]int64, len(l.Members))
	r.Next = make([]int, len(l.Members))
	for i, d := range l.Members {
		s, err := d.Build(envOf(i))
		if err != nil {
			return err
		}
		r.Designs[i], r.Names[i] = s, d.Name()
	}
	return nil
}

// SameEnv is the lineup's env for every design, for build.
func (l *Lineup) SameEnv(int) strategies.Env { return l.Env }

// twin adds, after each design that lives on servers, its twin on a real
// store named backend, without the scenario's expectations (they state the
// simulation's numbers).
func (l *Lineup) twin(backend string) {
	var all []Design
	for _, d := range l.Members {
		all = append(all, d)
		if d.Typ.OnServers() {
			t := d
			t.Real = backend
			t.Spec.Expect, t.Spec.Shows = nil, nil
			all = append(all, t)
		}
	}
	l.Members = all
}

// hasTwins reports whether a design runs on a real store.
func (l *Lineup) hasTwins() bool {
	return slices.ContainsFunc(l.Members, func(d Design) bool { return d.Real != "" })
}
