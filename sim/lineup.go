package sim

import (
	"slices"

	"countsim/strategies"
)

// lineup is the designs of a run, in the scenario's order (a sweep's
// members and real-store twins included), and the Env they are built for.
// A kind's constructor sizes env (its keys, events, duration…); Prepare
// then decodes, checks and plans each design against it and adds it here;
// the kind builds the designs afresh for every run of its own (build). The
// Setup and its kind share one lineup.
type lineup struct {
	env     strategies.Env
	designs []design
}

// build builds every design for the Env envOf gives it, into r: its
// designs, their names (the lanes' and the progress line's), and what the
// feed keeps of each.
func (l *lineup) build(r *run, envOf func(i int) strategies.Env) error {
	r.designs = make([]strategies.Strategy, len(l.designs))
	r.names = make([]string, len(l.designs))
	r.elapsed = make([]int64, len(l.designs))
	r.next = make([]int, len(l.designs))
	for i, d := range l.designs {
		s, err := d.build(envOf(i))
		if err != nil {
			return err
		}
		r.designs[i], r.names[i] = s, d.name()
	}
	return nil
}

// sameEnv is the lineup's env for every design, for build.
func (l *lineup) sameEnv(int) strategies.Env { return l.env }

// twin adds, after each design that lives on servers, its twin on a real
// store named backend, without the scenario's expectations (they state the
// simulation's numbers).
func (l *lineup) twin(backend string) {
	var all []design
	for _, d := range l.designs {
		all = append(all, d)
		if d.typ.OnServers() {
			t := d
			t.real = backend
			t.spec.Expect, t.spec.Shows = nil, nil
			all = append(all, t)
		}
	}
	l.designs = all
}

// hasTwins reports whether a design runs on a real store.
func (l *lineup) hasTwins() bool {
	return slices.ContainsFunc(l.designs, func(d design) bool { return d.real != "" })
}
