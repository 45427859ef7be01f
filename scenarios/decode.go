package scenarios

// The strict decoder: it walks the YAML node tree of one file and fills the
// scenario types by their schema (schema.go). Every error is an *Error at
// the line of the offending key or value whose message starts with the
// key's path ("workload.phases[1].rate") and ends with what is allowed.

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"

	"go.yaml.in/yaml/v3"
)

// decoder walks the node tree of one file.
type decoder struct {
	file string
	// keys and nodes record every key given, by path: its position, and
	// its value's node (for rules that point at a value).
	keys  map[string]Pos
	nodes map[string]*yaml.Node
	// strategyNames maps each strategy name to its first use: names are
	// unique in the file, across all its steps.
	strategyNames map[string]strategyUse
	step          int      // the step being read, or -1
	stepNames     []string // of the steps read so far
	// setNodes are the nodes a -set gave (set.go), each with its argument:
	// a message about one names the -set.
	setNodes map[*yaml.Node]string
}

// strategyUse is where a strategy name was first given: the line of its
// value, and the step it belongs to (-1 outside steps).
type strategyUse struct {
	line, step int
}

func newDecoder(file string) *decoder {
	return &decoder{file: file, keys: map[string]Pos{}, nodes: map[string]*yaml.Node{},
		strategyNames: map[string]strategyUse{}, step: -1, setNodes: map[*yaml.Node]string{}}
}

func (d *decoder) pos(n *yaml.Node) Pos {
	return Pos{File: d.file, Line: n.Line, Col: n.Column, Set: d.setNodes[n]}
}

// fail returns an *Error at n whose message starts with path.
func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	e := Errorf(d.pos(n), "%s", msg)
	e.Path = path
	return e
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// given is what one mapping gave: its keys and values, in file order.
type given struct {
	keys  map[string]*yaml.Node
	vals  map[string]*yaml.Node
	order []string
}

// objectOpts adjust how object reads a mapping.
type objectOpts struct {
	// refuse, when set, may refuse a key of the schema at this place.
	refuse func(kn *yaml.Node, key, path string) error
	// other handles a key outside the schema; it reports whether it did.
	other func(kn, vn *yaml.Node, key, path string) (bool, error)
	// allowed are the keys an unknown key's message lists; default: the schema's.
	allowed []string
	// optional keys are not required here although the schema says so.
	optional []string
}

// checker is a type with rules across its keys, checked once its mapping
// is read.
type checker interface {
	check(r *rule) error
}

// entryStarter is a list entry type told its index before it is read.
type entryStarter interface {
	start(d *decoder, i int)
}

// rule is what a check method sees of the mapping it checks.
type rule struct {
	d    *decoder
	k    *yaml.Node // the mapping's key, or the list entry
	path string
	given
}

// has reports whether the mapping gave key.
func (r *rule) has(key string) bool { return r.keys[key] != nil }

// fail returns an error at the value of key (which must be given).
func (r *rule) fail(key, format string, args ...any) error {
	return r.d.fail(r.vals[key], join(r.path, key), format, args...)
}

// failKey returns an error at key itself.
func (r *rule) failKey(key, format string, args ...any) error {
	return r.d.fail(r.keys[key], join(r.path, key), format, args...)
}

// failHere returns an error at the mapping's key or entry.
func (r *rule) failHere(format string, args ...any) error {
	return r.d.fail(r.k, r.path, format, args...)
}

// object decodes the mapping v into dst, a struct of schema sc, in file
// order. k is where a missing required key is reported (the mapping's own
// key, or the mapping itself); a null v is an empty mapping. Defaults are
// set first; the struct's check, if it has one, runs last.
func (d *decoder) object(k, v *yaml.Node, path string, sc *mapping, dst reflect.Value, o objectOpts) (given, error) {
	g := given{keys: map[string]*yaml.Node{}, vals: map[string]*yaml.Node{}}
	allowed := o.allowed
	if allowed == nil {
		allowed = sc.keys()
	}
	if err := d.plain(v, path); err != nil {
		return g, err
	}
	if v.Kind != yaml.MappingNode && !isNull(v) {
		return g, d.fail(v, path, "%s is not a mapping (allowed: a mapping with keys %s)", describe(v), joinKeys(allowed))
	}
	for _, f := range sc.fields {
		if f.def != nil {
			if err := d.value(f, f.def, f.def, "default of "+f.Key, dst.FieldByIndex(f.Index)); err != nil {
				panic(err) // a bad default tag: a programming error
			}
		}
	}
	if sc.pos != nil {
		dst.FieldByIndex(sc.pos).Set(reflect.ValueOf(d.pos(k)))
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], v.Content[i+1]
		key, err := d.key(kn, path, seen)
		if err != nil {
			return g, err
		}
		f := sc.field(key)
		if f == nil && isRunKey(key) {
			f = sc.runField()
		}
		if f == nil {
			if o.other != nil {
				handled, err := o.other(kn, vn, key, path)
				if err != nil {
					return g, err
				}
				if handled {
					g.add(key, kn, vn)
					continue
				}
			}
			return g, d.fail(kn, path, "unknown key %q (allowed: %s)%s", key, joinKeys(allowed), DidYouMean(key, allowed))
		}
		if o.refuse != nil {
			if err := o.refuse(kn, key, path); err != nil {
				return g, err
			}
		}
		kpath := join(path, key)
		d.keys[kpath], d.nodes[kpath] = d.pos(kn), vn
		g.add(key, kn, vn)
		if err := d.value(f, kn, vn, kpath, dst.FieldByIndex(f.Index)); err != nil {
			return g, err
		}
	}
	for _, f := range sc.fields {
		if f.Required && seen[f.Key] == nil && !slices.Contains(o.optional, f.Key) {
			return g, d.fail(k, path, "missing required key %q", f.Key)
		}
	}
	if c, ok := dst.Addr().Interface().(checker); ok {
		if err := c.check(&rule{d: d, k: k, path: path, given: g}); err != nil {
			return g, err
		}
	}
	return g, nil
}

func (g *given) add(key string, kn, vn *yaml.Node) {
	g.keys[key], g.vals[key] = kn, vn
	g.order = append(g.order, key)
}

// runField returns the schema's Run field, or nil.
func (s *mapping) runField() *field {
	for _, f := range s.fields {
		if f.form == formRun {
			return f
		}
	}
	return nil
}

// value decodes vn, the value of key kn, into dst as the field says.
func (d *decoder) value(f *field, kn, vn *yaml.Node, path string, dst reflect.Value) error {
	switch f.form {
	case formInt, formUint:
		u, err := d.unsigned(vn, path, f)
		if err != nil {
			return err
		}
		if f.form == formUint {
			dst.SetUint(u)
		} else {
			dst.SetInt(int64(u))
		}
	case formWhole, formNumber:
		x, err := d.number(vn, path, f)
		if err != nil {
			return err
		}
		dst.SetFloat(x)
	case formDuration:
		ns, err := d.duration(vn, path, f)
		if err != nil {
			return err
		}
		dst.SetInt(ns)
	case formBool:
		b, err := d.boolean(vn, path)
		if err != nil {
			return err
		}
		dst.SetBool(b)
	case formString:
		s, err := d.text(vn, path, f)
		if err != nil {
			return err
		}
		dst.SetString(s)
	case formText:
		s, err := d.str(vn, path, f.Allowed)
		if err != nil {
			return err
		}
		if err := dst.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			if f.Names != nil {
				return d.fail(vn, path, "%s is not allowed (allowed: %s)%s", describe(vn), f.Allowed, DidYouMean(s, f.Names))
			}
			return d.fail(vn, path, "%s: %v (allowed: %s)", describe(vn), err, f.Allowed)
		}
	case formStruct:
		_, err := d.object(kn, vn, path, f.elem, dst, objectOpts{})
		return err
	case formOptional:
		p := reflect.New(f.elem.typ)
		if _, err := d.object(kn, vn, path, f.elem, p.Elem(), objectOpts{}); err != nil {
			return err
		}
		dst.Set(p)
	case formList:
		return d.list(f, kn, vn, path, dst)
	case formInts:
		return d.ints(f, vn, path, dst)
	case formParams:
		ps, err := d.params(vn, path)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(ps))
	case formExpect:
		es, err := d.expectations(vn, path, f.Key == showsKey)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(es))
	case formSweep:
		sw, err := d.sweep(vn, path)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(sw))
	case formRun:
		return d.run(kn, vn, path, dst)
	}
	return nil
}

// list decodes the list vn of mappings into dst, a slice of the field's
// entry type; kn is its key. A null vn has no entries.
func (d *decoder) list(f *field, kn, vn *yaml.Node, path string, dst reflect.Value) error {
	if err := d.plain(vn, path); err != nil {
		return err
	}
	if !isNull(vn) && vn.Kind != yaml.SequenceNode {
		return d.fail(vn, path, "%s is not a list (allowed: %s)", describe(vn), f.listRule(false))
	}
	if float64(len(vn.Content)) < f.Lo {
		return d.fail(kn, path, "at least one %s is required (allowed: %s)", f.Entry, f.listRule(true))
	}
	out := reflect.MakeSlice(dst.Type(), 0, len(vn.Content))
	for i, item := range vn.Content {
		if float64(i) >= f.Hi {
			return d.fail(item, path, "more than %v %ss (allowed: %v..%v %ss)", f.Hi, f.Entry, f.Lo, f.Hi, f.Entry)
		}
		ipath := fmt.Sprintf("%s[%d]", path, i)
		if err := d.plain(item, ipath); err != nil {
			return err
		}
		if item.Kind != yaml.MappingNode && !isNull(item) {
			return d.fail(item, ipath, "%s is not a mapping (allowed: %s)", describe(item), f.elem.mappingRule())
		}
		out = reflect.Append(out, reflect.Zero(f.elem.typ))
		e := out.Index(out.Len() - 1)
		if s, ok := e.Addr().Interface().(entryStarter); ok {
			s.start(d, i)
		}
		if _, err := d.object(item, item, ipath, f.elem, e, objectOpts{}); err != nil {
			return err
		}
	}
	if out.Len() > 0 {
		dst.Set(out)
	}
	return nil
}

// ints decodes the list vn of integers, each in the field's range, into
// dst, an []int. A null vn has none.
func (d *decoder) ints(f *field, vn *yaml.Node, path string, dst reflect.Value) error {
	if err := d.plain(vn, path); err != nil {
		return err
	}
	if !isNull(vn) && vn.Kind != yaml.SequenceNode {
		return d.fail(vn, path, "%s is not a list (allowed: %s)", describe(vn), f.Allowed)
	}
	var out []int
	for i, item := range vn.Content {
		ipath := fmt.Sprintf("%s[%d]", path, i)
		if err := d.plain(item, ipath); err != nil {
			return err
		}
		if item.Kind != yaml.ScalarNode {
			return d.fail(item, ipath, "%s is not an integer (allowed: %s)", describe(item), f.Allowed)
		}
		u, err := d.unsigned(item, ipath, f)
		if err != nil {
			return err
		}
		out = append(out, int(u))
	}
	dst.Set(reflect.ValueOf(out))
	return nil
}

// params decodes a mapping of scalars, keeping file order.
func (d *decoder) params(v *yaml.Node, path string) ([]Param, error) {
	const want = "key: value pairs whose values are numbers, bools or strings"
	if err := d.plain(v, path); err != nil {
		return nil, err
	}
	if isNull(v) {
		return nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, d.fail(v, path, "%s is not a mapping (allowed: %s)", describe(v), want)
	}
	var out []Param
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		key, err := d.key(k, path, seen)
		if err != nil {
			return nil, err
		}
		value, err := d.param(val, join(path, key))
		if err != nil {
			return nil, err
		}
		d.keys[join(path, key)] = d.pos(k)
		out = append(out, Param{Key: key, Value: value, Pos: d.pos(k)})
	}
	return out, nil
}

// param decodes one parameter value: int64, finite float64, bool or string.
func (d *decoder) param(v *yaml.Node, path string) (any, error) {
	const allowed = "an integer, a number, true, false or a string"
	if err := d.plain(v, path); err != nil {
		return nil, err
	}
	if v.Kind != yaml.ScalarNode {
		return nil, d.fail(v, path, "%s is not allowed (allowed: %s)", describe(v), allowed)
	}
	if isNull(v) {
		return nil, d.fail(v, path, "missing value (allowed: %s)", allowed)
	}
	x, err := d.scalar(v, path)
	if err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case uint64:
		return nil, d.fail(v, path, "%s is out of range (allowed: integers up to 9223372036854775807)", describe(v))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, d.fail(v, path, "%s is not allowed (allowed: finite numbers)", describe(v))
		}
		return x, nil
	case bool, string:
		return x, nil
	}
	return nil, d.fail(v, path, "%s is not a number, bool or string (allowed: %s; quote it to make it a string)", describe(v), allowed)
}

// key checks one mapping key and records it in seen, refusing repeats.
func (d *decoder) key(k *yaml.Node, path string, seen map[string]*yaml.Node) (string, error) {
	if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
		return "", d.fail(k, path, "merge keys (<<) are not allowed (write the keys out)")
	}
	if err := d.plain(k, path); err != nil {
		return "", err
	}
	if k.Kind != yaml.ScalarNode {
		return "", d.fail(k, path, "%s as a key is not allowed (allowed: a plain name)", describe(k))
	}
	// A key with no text (`? ` alone, `""`) or a null one (`~`, `null`)
	// names nothing: the keyless fields of a schema (the run) must not
	// match it.
	if k.Value == "" {
		return "", d.fail(k, path, "empty key (allowed: a plain name)")
	}
	if isNull(k) {
		return "", d.fail(k, path, "null key %s is not allowed (allowed: a plain name; quote it to make it a string)", k.Value)
	}
	if prev := seen[k.Value]; prev != nil {
		return "", d.fail(k, path, "key %q given twice (first at line %d)", k.Value, prev.Line)
	}
	seen[k.Value] = k
	return k.Value, nil
}

// standardTags are the tags a node may carry explicitly.
var standardTags = map[string]bool{
	"!!str": true, "!!int": true, "!!float": true, "!!bool": true,
	"!!null": true, "!!map": true, "!!seq": true,
}

// plain refuses anchors, aliases and non-standard explicit tags on n.
func (d *decoder) plain(n *yaml.Node, path string) error {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return d.fail(n, path, "anchors and aliases are not allowed (write the value out)")
	}
	if n.Style&yaml.TaggedStyle != 0 && !standardTags[n.Tag] {
		return d.fail(n, path, "tag %s is not allowed (allowed: no tag, or one of !!str, !!int, !!float, !!bool)", n.Tag)
	}
	return nil
}
