package scenarios

// Kinds of run. What a scenario simulates — a count stream, a timed stream,
// an audience, an accuracy profile — is one Go type per kind, in a file of
// its own (stream.go, timed.go, audience.go, profile.go), registered here by
// defineKind. The loader picks the kind once, from the key that gives it
// (profile) or from the one key of the workload that only that kind has
// (events, phases, audience); nothing after it asks which kind it is. A new
// kind is a new file that calls defineKind.

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Run is what a scenario simulates: one kind of run. Package sim runs each
// kind with its own type, found by Kind; the methods here are what the
// loader's rules need of every kind.
type Run interface {
	// Kind names the kind: "stream", "timed", "audience" or "profile".
	Kind() string
	// Where is the position of the key that gives the run.
	Where() Pos
	// Duration is the simulated time the run lasts in ns: 0 for a run
	// that is not timed (faults need a timed one).
	Duration() int64
	// simulates lists the figures the run simulates that the assumptions
	// may also state (figures.go).
	simulates() []Figure
	// refuses says why the run takes no such section (questions,
	// cluster, faults), or "".
	refuses(section string) string
}

// refuser is a kind that gives its own reason for refusing a key that
// another kind of the same section takes.
type refuser interface {
	refusal(key string) string
}

// kindDef is one kind of run, as the loader finds it.
type kindDef struct {
	name   string // what Run.Kind returns
	order  int    // its place among the kinds, in messages and the reference
	key    string // the key that gives it: "workload", or a key of its own
	marker string // the key of the workload only this kind has; "" for a key of its own
	over   string // the kind whose marker may be given too: this kind refines it (a board's stream is a timed one)
	what   string // "a count stream", for messages
	doc    string // the meaning of key (of the first kind, for a shared key)
	new    func() Run
}

var kinds []*kindDef

// defineKind registers a kind of run. It panics on a duplicate name or
// marker: a programming error caught when the package loads.
func defineKind(k *kindDef) {
	for _, o := range kinds {
		if o.name == k.name || o.key == k.key && (o.marker == k.marker || o.marker == "" || k.marker == "") {
			panic("scenarios: kind " + k.name + " clashes with " + o.name)
		}
	}
	kinds = append(kinds, k)
	slices.SortStableFunc(kinds, func(a, b *kindDef) int { return a.order - b.order })
}

// KindNames lists the names of the kinds of run, in order: what
// Run.Kind returns for each.
func KindNames() []string {
	var names []string
	for _, k := range kinds {
		names = append(names, k.name)
	}
	return names
}

// runKeys lists the keys that give a run, in the kinds' order.
func runKeys() []string {
	var ks []string
	for _, k := range kinds {
		if !slices.Contains(ks, k.key) {
			ks = append(ks, k.key)
		}
	}
	return ks
}

func isRunKey(key string) bool { return slices.Contains(runKeys(), key) }

// kindsOf returns the kinds given by key.
func kindsOf(key string) []*kindDef {
	var out []*kindDef
	for _, k := range kinds {
		if k.key == key {
			out = append(out, k)
		}
	}
	return out
}

// schema returns the schema of the kind's type.
func (k *kindDef) schema() *mapping { return schemaOf(reflect.TypeOf(k.new()).Elem()) }

// unionKeys lists the keys of the kinds, in order, each once.
func unionKeys(ks []*kindDef) []string {
	var out []string
	for _, k := range ks {
		for _, key := range k.schema().keys() {
			if !slices.Contains(out, key) {
				out = append(out, key)
			}
		}
	}
	return out
}

// run decodes the value of a key that gives a run (kn) into dst, a Run:
// the kind whose marker the mapping holds, or the key's own kind.
func (d *decoder) run(kn, vn *yaml.Node, path string, dst reflect.Value) error {
	key := kn.Value
	if !dst.IsNil() {
		parent := strings.TrimSuffix(strings.TrimSuffix(path, key), ".")
		for _, other := range runKeys() {
			if p, ok := d.keys[join(parent, other)]; ok && other != key {
				return d.fail(kn, path, "%s is given too, at line %d (allowed: %s, only one)", other, p.Line, orList(runKeys()))
			}
		}
	}
	cands := kindsOf(key)
	k := cands[0]
	if len(cands) > 1 || k.marker != "" {
		var err error
		if k, err = d.pickKind(kn, vn, path, cands); err != nil {
			return err
		}
		if k == nil {
			k = cands[0] // not a mapping: reading it says so
		}
	}
	r := k.new()
	v := reflect.ValueOf(r).Elem()
	opts := objectOpts{allowed: unionKeys(cands), other: func(kn, _ *yaml.Node, key, path string) (bool, error) {
		var takers []*kindDef
		for _, c := range cands {
			if c == k || c.schema().field(key) == nil {
				continue
			}
			if rf, ok := c.new().(refuser); ok && rf.refusal(key) != "" && c.over != "" {
				continue // a refinement that has the key but refuses it
			}
			takers = append(takers, c)
		}
		// A refinement whose base takes the key too is not named: the base's
		// marker is the plain way to the key.
		takers = slices.DeleteFunc(takers, func(c *kindDef) bool {
			return c.over != "" && slices.ContainsFunc(takers, func(o *kindDef) bool { return o.name == c.over })
		})
		if len(takers) == 0 {
			return false, nil
		}
		var markers, whats []string
		for _, t := range takers {
			markers, whats = append(markers, t.marker), append(whats, t.what)
		}
		reason := fmt.Sprintf("needs %s, %s", orList(markers), orList(whats))
		if rf, ok := r.(refuser); ok {
			if why := rf.refusal(key); why != "" {
				reason = why
			}
		}
		return false, d.fail(kn, join(path, key), "%s (allowed: remove %s, or give %s instead of %s)", reason, key, orList(markers), k.marker)
	}}
	if _, err := d.object(kn, vn, path, k.schema(), v, opts); err != nil {
		return err
	}
	dst.Set(reflect.ValueOf(r))
	return nil
}

// pickKind finds the one kind of cands whose marker the mapping vn holds.
func (d *decoder) pickKind(kn, vn *yaml.Node, path string, cands []*kindDef) (*kindDef, error) {
	var (
		picked *kindDef
		at     *yaml.Node
	)
	var oneOf []string
	for _, c := range cands {
		oneOf = append(oneOf, c.marker+" for "+c.what)
	}
	if vn.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(vn.Content); i += 2 {
			m := vn.Content[i]
			if !nameKey(m) || at != nil && m.Value == at.Value {
				continue // repeats and bad keys are the mapping's own errors
			}
			for _, c := range cands {
				switch {
				case c.marker != m.Value:
					continue
				case picked != nil && picked.over == c.name:
					continue // the refinement picked stays
				case picked != nil && c.over != picked.name:
					return nil, d.fail(m, join(path, m.Value), "%s is given too, at line %d (allowed: one of %s)", at.Value, at.Line, orList(oneOf))
				}
				picked, at = c, m
			}
		}
	}
	if picked != nil || d.plain(vn, path) != nil || vn.Kind != yaml.MappingNode && !isNull(vn) {
		return picked, nil // a bad mapping is reported when it is read
	}
	union := unionKeys(cands)
	for i := 0; i+1 < len(vn.Content); i += 2 {
		m := vn.Content[i]
		if _, err := d.key(m, path, map[string]*yaml.Node{}); err != nil {
			return nil, err // a key that names nothing, at its own line
		}
		if !slices.Contains(union, m.Value) {
			return nil, d.fail(m, path, "unknown key %q (allowed: %s)%s", m.Value, joinKeys(union), DidYouMean(m.Value, union))
		}
	}
	var needs, allowed []string
	for _, c := range cands {
		f := c.schema().field(c.marker)
		needs = append(needs, fmt.Sprintf("%s (%s)", c.marker, c.what))
		rule := f.Allowed
		switch f.form {
		case formList:
			rule = f.listRule(true)
		case formStruct, formOptional:
			rule = f.elem.mappingRule()
		}
		allowed = append(allowed, c.marker+": "+rule)
	}
	return nil, d.fail(kn, "", "%s needs %s (allowed: %s)", path, orList(needs), strings.Join(allowed, "; or "))
}

// nameKey reports whether the key node m is one the decoder may read as a
// name (decoder.key refuses the others, when the mapping is read).
func nameKey(m *yaml.Node) bool {
	return m.Kind == yaml.ScalarNode && m.Tag != "!!merge" && m.Value != "" && !isNull(m)
}

// orList joins items as "a", "a or b", "a, b or c".
func orList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
