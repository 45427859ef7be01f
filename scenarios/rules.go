package scenarios

// Rules across sections and entries: a run given and the sections it
// takes, faults against their stream and cluster, and names unique in the
// file. The rules within one kind of run are in its own file; the linked
// figures are in figures.go.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// failAt returns an *Error at p whose message starts with path.
func (d *decoder) failAt(p Pos, path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	return &Error{Pos: p, Msg: msg}
}

// checkBody checks the sections of one run together once its mapping is
// read: a run is given, and it takes the other sections given. k is where
// a missing run is reported (the document, or the step's entry); top says
// whether this is the file's top level, where steps are the third choice.
func (d *decoder) checkBody(b *body, g given, k *yaml.Node, path string, top bool) error {
	if b.Run == nil {
		var keys, allowed []string
		for _, key := range runKeys() {
			keys = append(keys, fmt.Sprintf("%q", key))
			allowed = append(allowed, key+", "+kindsOf(key)[0].doc)
		}
		if top {
			allowed = append(allowed, "or steps, each with one of them")
		}
		return d.fail(k, path, "missing required key %s (allowed: %s)", orList(keys), strings.Join(allowed, "; "))
	}
	if _, ok := g.keys["strategies"]; !ok && b.Goals == nil {
		return d.fail(k, path, "missing required key %q (allowed: strategies, the designs to compare; or goals:, with which countsim size sizes every design type that answers them)", "strategies")
	}
	var runKey string
	for _, key := range g.order {
		if isRunKey(key) {
			runKey = key
		}
	}
	for _, key := range g.order {
		if why := b.Run.refuses(key); why != "" {
			var others []string
			for _, o := range runKeys() {
				if o != runKey {
					others = append(others, o)
				}
			}
			return d.fail(g.keys[key], join(path, key), "%s (allowed: remove %s, or give %s instead of %s at line %d)",
				why, key, orList(others), runKey, g.keys[runKey].Line)
		}
	}
	if b.Questions.Pos == (Pos{}) {
		b.Questions.Pos = d.pos(k)
	}
	return nil
}

// faultKeys are the keys each kind of fault takes beside at and kind, the
// required first (required counts them).
var faultKeys = []struct {
	kind     string
	keys     []string
	required int
	what     []string // what each key is, for a missing one
}{
	{"app-crash", []string{"server"}, 1, []string{"the crashed app server's number, from 0"}},
	{"node-loss", []string{"node"}, 1, []string{"the lost store node's number, from 0"}},
	{"node-down", []string{"node", "for"}, 2, []string{"the store node's number, from 0", "how long it answers nothing, a duration"}},
	{"node-slow", []string{"node", "for", "share"}, 3, []string{"the store node's number, from 0", "how long it is slow, a duration", "the share of its capacity it keeps, in (0,1)"}},
	{"partition", []string{"for", "servers", "nodes"}, 3, []string{"how long it lasts, a duration", "the app servers cut off, a list of integers", "the store nodes they cannot reach, a list of integers"}},
	{"failover", []string{"node", "delay", "lag"}, 2, []string{"the dying master's node number, from 0", "how long until its replica answers, a duration", "its replication lag, a duration (0: nothing lost)"}},
}

// faultTargetKeys are every kind's keys beside at and kind.
var faultTargetKeys = []string{"server", "node", "for", "share", "servers", "nodes", "delay", "lag"}

// check: each kind of fault takes its own keys, its required ones given,
// a partition's sides not empty nor repeating a number.
func (f *Fault) check(r *rule) error {
	for _, fk := range faultKeys {
		if fk.kind != f.Kind {
			continue
		}
		for _, key := range faultTargetKeys {
			if r.has(key) && !slices.Contains(fk.keys, key) {
				return r.failKey(key, "kind %s does not take %s (allowed: %s)", f.Kind, key, strings.Join(fk.keys, ", "))
			}
		}
		for i, key := range fk.keys[:fk.required] {
			if !r.has(key) {
				return r.failHere("kind %s needs key %q (allowed: %s: %s)", f.Kind, key, key, fk.what[i])
			}
		}
	}
	for _, side := range []struct {
		key  string
		nums []int
	}{{"servers", f.Servers}, {"nodes", f.Nodes}} {
		if !r.has(side.key) {
			continue
		}
		if len(side.nums) == 0 {
			return r.fail(side.key, "an empty list cuts nothing off (allowed: one or more numbers, from 0)")
		}
		for i, n := range side.nums {
			if slices.Index(side.nums, n) < i {
				return r.fail(side.key, "%d is listed twice (allowed: each number once)", n)
			}
		}
	}
	switch f.Kind {
	case "app-crash":
		f.Target = f.Server
	default:
		f.Target = f.Node
	}
	return nil
}

// checkFaults checks the faults of s against the rest of it: they need a
// timed stream, fall within it in time order (those with a duration end
// within it), and name servers and nodes that exist. path is "" at the top
// level and "steps[i]" in a step.
func (d *decoder) checkFaults(s *Scenario, path string) error {
	if len(s.Faults) == 0 {
		return nil
	}
	fpath := join(path, "faults")
	total := s.Run.Duration()
	if total == 0 {
		return d.failAt(d.keys[fpath], fpath, "faults need a timed stream (allowed: workload phases instead of events or audience, or no faults)")
	}
	node := func(i int, key string) *yaml.Node { return d.nodes[fmt.Sprintf("%s[%d].%s", fpath, i, key)] }
	for i, f := range s.Faults {
		path := fmt.Sprintf("%s[%d]", fpath, i)
		if f.At >= total {
			return d.fail(node(i, "at"), join(path, "at"), "%v is not within the stream (allowed: a time before %v, the phases' total duration)",
				time.Duration(f.At), time.Duration(total))
		}
		if i > 0 && f.At < s.Faults[i-1].At {
			return d.fail(node(i, "at"), join(path, "at"), "%v is before %v of %s[%d] at line %d (allowed: faults in time order)",
				time.Duration(f.At), time.Duration(s.Faults[i-1].At), fpath, i-1, node(i-1, "at").Line)
		}
		for _, key := range []string{"for", "delay"} {
			long := map[string]int64{"for": f.For, "delay": f.Delay}[key]
			if n := node(i, key); n != nil && f.At+long > total {
				return d.fail(n, join(path, key), "%v from %v ends at %v, after the stream's end (allowed: at most %v, so that it ends within the phases' total duration of %v)",
					time.Duration(long), time.Duration(f.At), time.Duration(f.At+long), time.Duration(total-f.At), time.Duration(total))
			}
		}
		if n := node(i, "lag"); n != nil && f.Lag > f.At {
			return d.fail(n, join(path, "lag"), "%v reaches back before the stream's start, %v before the failover (allowed: a lag of at most %v)",
				time.Duration(f.Lag), time.Duration(f.At), time.Duration(f.At))
		}
		if f.Kind == "app-crash" {
			if a := s.Assumptions.AppServers; a > 0 && float64(f.Target) >= a {
				return d.fail(node(i, "server"), join(path, "server"), "%d is out of range (allowed: 0..%d, as assumptions.app_servers is %d)",
					f.Target, int64(a)-1, int64(a))
			}
			continue
		}
		c := s.Cluster
		if c == nil {
			return d.fail(node(i, "kind"), join(path, "kind"), "%s needs a cluster (allowed: add cluster:, or kind app-crash)", f.Kind)
		}
		if f.Kind != "partition" && f.Target >= c.Nodes {
			return d.fail(node(i, "node"), join(path, "node"), "%d is out of range (allowed: 0..%d, as cluster.nodes is %d)",
				f.Target, c.Nodes-1, c.Nodes)
		}
		for j, n := range f.Nodes {
			if n >= c.Nodes {
				return d.fail(node(i, "nodes").Content[j], fmt.Sprintf("%s.nodes[%d]", path, j), "%d is out of range (allowed: 0..%d, as cluster.nodes is %d)",
					n, c.Nodes-1, c.Nodes)
			}
		}
		for j, n := range f.Servers {
			if a := s.Assumptions.AppServers; a > 0 && float64(n) >= a {
				return d.fail(node(i, "servers").Content[j], fmt.Sprintf("%s.servers[%d]", path, j), "%d is out of range (allowed: 0..%d, as assumptions.app_servers is %d)",
					n, int64(a)-1, int64(a))
			}
		}
	}
	return nil
}

// check: the strategy's name is unique in the file, across its steps, its
// type is not empty, and a parameter it sweeps is not in its params too
// (one of the two would be dropped without a word).
func (s *Strategy) check(r *rule) error {
	d := r.d
	use, dup := d.strategyNames[s.Name]
	switch {
	case dup && use.step == d.step:
		return d.fail(r.vals["name"], r.path, "name %q used twice (first at line %d; allowed: a name unique in the file)", s.Name, use.line)
	case dup:
		return d.fail(r.vals["name"], r.path, "name %q used in step %q at line %d (allowed: a name unique in the file, across all steps)",
			s.Name, d.stepNames[use.step], use.line)
	}
	d.strategyNames[s.Name] = strategyUse{line: r.vals["name"].Line, step: d.step}
	if s.Type == "" {
		return r.fail("type", "empty (allowed: a design type such as count-min)")
	}
	if sw := s.Sweep; sw != nil {
		for _, p := range s.Params {
			if p.Key == sw.Key {
				e := Errorf(sw.Pos, "%s: %s is also given in params, at line %d (allowed: %s in sweep or in params, not both)",
					join(r.path, "sweep."+sw.Key), sw.Key, p.Pos.Line, sw.Key)
				e.Path = join(r.path, "sweep."+sw.Key)
				return e
			}
		}
	}
	return nil
}
