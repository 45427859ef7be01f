package engine

import (
	"runtime"
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
	n := len(l.Members)
	r.Designs = make([]strategies.Strategy, n)
	r.Names = make([]string, n)
	r.Elapsed = make([]int64, n)
	r.Next = make([]int, n)
	// The designs are built side by side, one job each: a design sized
	// for its stream touches its tables up front (ExactDistinct's 512 MB
	// at the cricket final's viewers, split-topk's nodes), and built one
	// after another those page faults held one core while the other
	// idled. A design's build depends on its Env alone; the error is the
	// first design's that failed, as when they were built in order.
	errs := make([]error, n)
	jobs := make([]func(), n)
	for i, d := range l.Members {
		jobs[i] = func() {
			r.Designs[i], errs[i] = d.Build(envOf(i))
			r.Names[i] = d.Name()
		}
	}
	Workers(runtime.GOMAXPROCS(0)).Parallel(jobs)
	for _, err := range errs {
		if err != nil {
			return err
		}
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
