package scenarios

// -set PATH=VALUE: a what-if asked on the command line. Each Set replaces
// (or adds) one key of the file's YAML tree before the tree is decoded, so
// that the value meets the same schema, the same rules and the same
// messages as one written in the file; a message about a value a Set gave
// names the Set (Pos.Set) where it would name a line.

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Set is one override of a scenario's key: Path=Value, as `-set` gives it.
type Set struct {
	Arg   string    // the argument as given, "assumptions.key_capacity=5000"
	Path  []PathSeg // the key, a segment a level
	Value string    // the YAML text of the value
}

// PathSeg is one level of a Set's path: a key of a mapping, and, when the
// key holds a list, the entry meant: by its place (Index, from 0) or by its
// `name:` (Name).
type PathSeg struct {
	Key     string
	Indexed bool
	Index   int    // the entry's place, when Name is ""
	Name    string // the entry's name (`strategies[cm]`), or ""
}

// String writes the path back as it was given.
func (s PathSeg) String() string {
	switch {
	case !s.Indexed:
		return s.Key
	case s.Name != "":
		return s.Key + "[" + s.Name + "]"
	}
	return s.Key + "[" + strconv.Itoa(s.Index) + "]"
}

// pathString writes segs back as one path.
func pathString(segs []PathSeg) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		parts[i] = s.String()
	}
	return strings.Join(parts, ".")
}

// setGrammar is what ParseSet takes, for its messages.
const setGrammar = "PATH=VALUE, PATH keys joined by dots, an entry of a list by its place or its name in brackets: " +
	"assumptions.key_capacity=5000, workload.phases[0].rate=400000, strategies[cm].params.epsilon=0.001, " +
	"steps[views].cluster.nodes=16"

// ParseSet reads one -set argument.
func ParseSet(arg string) (Set, error) {
	path, value, ok := strings.Cut(arg, "=")
	fail := func(format string, a ...any) (Set, error) {
		return Set{}, Errorf(Pos{Set: arg}, "%s (allowed: %s)", fmt.Sprintf(format, a...), setGrammar)
	}
	if !ok {
		return fail("no '=' between the path and the value")
	}
	if strings.TrimSpace(path) == "" {
		return fail("no path before '='")
	}
	s := Set{Arg: arg, Value: value}
	for _, part := range strings.Split(path, ".") {
		seg := PathSeg{Key: part}
		if open := strings.IndexByte(part, '['); open >= 0 {
			if !strings.HasSuffix(part, "]") || strings.Count(part, "[") != 1 || strings.Count(part, "]") != 1 {
				return fail("%q: a bracket is not closed at the segment's end, or there are two", part)
			}
			seg.Key, seg.Indexed = part[:open], true
			in := part[open+1 : len(part)-1]
			if in == "" {
				return fail("%q: nothing between the brackets", part)
			}
			if n, err := strconv.Atoi(in); err == nil {
				if n < 0 {
					return fail("%q: a place in a list counts from 0", part)
				}
				seg.Index = n
			} else {
				seg.Name = in
			}
		}
		if seg.Key == "" {
			return fail("an empty key in %q", path)
		}
		if strings.ContainsAny(seg.Key, " \t]") {
			return fail("%q is not a key", seg.Key)
		}
		s.Path = append(s.Path, seg)
	}
	return s, nil
}

// setValue parses the Set's value as YAML: a scalar (5000, 1s, "text"), a
// flow list or mapping ([1, 2], {rate: 5}); empty is a key given no value.
func (s Set) setValue() (*yaml.Node, error) {
	if strings.TrimSpace(s.Value) == "" {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader([]byte(s.Value)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, Errorf(Pos{Set: s.Arg}, "the value %q is not YAML: %s (allowed: a scalar, or a flow list or mapping, as a line of the file would give it)",
			s.Value, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var next yaml.Node
	if err := dec.Decode(&next); err != io.EOF {
		return nil, Errorf(Pos{Set: s.Arg}, "the value %q holds more than one YAML document (allowed: one value)", s.Value)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, nil
	}
	return doc.Content[0], nil
}

// apply makes the Set's change to the file's root mapping, marking in
// d.setNodes every node it adds, so that the decoder's messages about them
// name the Set.
func (s Set) apply(d *decoder, root *yaml.Node) error {
	val, err := s.setValue()
	if err != nil {
		return err
	}
	fail := func(format string, a ...any) error {
		return Errorf(Pos{File: d.file, Set: s.Arg}, "%s", fmt.Sprintf(format, a...))
	}
	// A section of a file told in steps lives in each step: say so, and
	// which steps there are, rather than let the key be refused at the top.
	if i := valueAt(root, "steps"); i >= 0 && s.Path[0].Key != "steps" {
		steps := root.Content[i+1]
		if slices.Contains(schemaOf(bodyType).keys(), s.Path[0].Key) {
			return fail("%s: the file is told in steps, and %s belongs to a step: name the step, as steps[%s].%s (steps: %s)",
				pathString(s.Path), s.Path[0].Key, firstName(steps), pathString(s.Path), strings.Join(entryNames(steps), ", "))
		}
	}
	cur := root
	for i, seg := range s.Path {
		at := pathString(s.Path[:i+1])
		if cur.Kind != yaml.MappingNode {
			return fail("%s: %s is %s, which has no keys", at, pathString(s.Path[:i]), describe(cur))
		}
		last := i == len(s.Path)-1
		ki := valueAt(cur, seg.Key)
		if ki < 0 {
			if seg.Indexed {
				return fail("%s: the file gives no %s to pick an entry of", at, join(pathString(s.Path[:i]), seg.Key))
			}
			// A key the file does not give is added, an empty mapping on
			// the way to the last; the schema then says if it may be.
			kn := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg.Key, Line: cur.Line, Column: cur.Column}
			vn := val
			place(val, cur)
			if !last {
				vn = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: cur.Line, Column: cur.Column}
			}
			d.markSet(kn, s.Arg)
			d.markSet(vn, s.Arg)
			cur.Content = append(cur.Content, kn, vn)
			cur = vn
			continue
		}
		vn := cur.Content[ki+1]
		if seg.Indexed {
			if vn.Kind != yaml.SequenceNode {
				return fail("%s: %s is %s, not a list", at, join(pathString(s.Path[:i]), seg.Key), describe(vn))
			}
			j, err := entry(vn, seg)
			if err != nil {
				return fail("%s: %v", at, err)
			}
			if last {
				place(val, vn.Content[j])
				d.markSet(val, s.Arg)
				vn.Content[j] = val
				return nil
			}
			cur = vn.Content[j]
			continue
		}
		if last {
			// The key is marked too: a parameter's message names its
			// key's position (Scenario.ParamPos).
			place(val, vn)
			d.markSet(val, s.Arg)
			d.setNodes[cur.Content[ki]] = s.Arg
			cur.Content[ki+1] = val
			return nil
		}
		cur = vn
	}
	return nil
}

// valueAt is the index in m.Content of the first key named key (its value
// follows it), or -1.
func valueAt(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return i
		}
	}
	return -1
}

// entry is the place in the list seq of the entry seg picks.
func entry(seq *yaml.Node, seg PathSeg) (int, error) {
	if len(seq.Content) == 0 {
		return 0, fmt.Errorf("%s is an empty list: it has no entry to pick", seg.Key)
	}
	if seg.Name == "" {
		if seg.Index >= len(seq.Content) {
			return 0, fmt.Errorf("%s has %d %s (allowed: [0] to [%d])", seg.Key, len(seq.Content), plural(len(seq.Content), "entry", "entries"), len(seq.Content)-1)
		}
		return seg.Index, nil
	}
	names := entryNames(seq)
	for j, e := range seq.Content {
		if e.Kind == yaml.MappingNode {
			if k := valueAt(e, "name"); k >= 0 && e.Content[k+1].Kind == yaml.ScalarNode && e.Content[k+1].Value == seg.Name {
				return j, nil
			}
		}
	}
	if len(names) == 0 {
		return 0, fmt.Errorf("no entry of %s has a name (allowed: an entry's place, [0] to [%d])", seg.Key, len(seq.Content)-1)
	}
	return 0, fmt.Errorf("no entry of %s is named %q (allowed: %s, or a place from 0)%s", seg.Key, seg.Name, strings.Join(names, ", "), DidYouMean(seg.Name, names))
}

// entryNames lists the names of the entries of seq, in order.
func entryNames(seq *yaml.Node) []string {
	var names []string
	for _, e := range seq.Content {
		if e.Kind == yaml.MappingNode {
			if k := valueAt(e, "name"); k >= 0 && e.Content[k+1].Kind == yaml.ScalarNode {
				names = append(names, e.Content[k+1].Value)
			}
		}
	}
	return names
}

// firstName is the name of the first entry of seq, or 0.
func firstName(seq *yaml.Node) string {
	if names := entryNames(seq); len(names) > 0 {
		return names[0]
	}
	return "0"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// place gives the nodes of a Set's value the position of the node they
// replace, for the messages that quote a line beside their own.
func place(val, old *yaml.Node) {
	walk(val, func(n *yaml.Node) {
		if n.Line <= 1 {
			n.Line, n.Column = old.Line, old.Column
		}
	})
}

// markSet notes every node of the tree at n as given by the Set arg.
func (d *decoder) markSet(n *yaml.Node, arg string) {
	walk(n, func(m *yaml.Node) { d.setNodes[m] = arg })
}

func walk(n *yaml.Node, f func(*yaml.Node)) {
	f(n)
	for _, c := range n.Content {
		walk(c, f)
	}
}

// ParseSets reads every -set argument.
func ParseSets(args []string) ([]Set, error) {
	var sets []Set
	for _, a := range args {
		s, err := ParseSet(a)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	return sets, nil
}
