package scenarios

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// SizedEntry is one design entry as countsim size writes it: the design
// at the size found, with the goals as its expectations.
type SizedEntry struct {
	Name    string
	Type    string
	Params  []Param
	Expect  []string // the goals' texts
	Comment string   // a line above the entry: what was found and measured
}

// WriteSized rewrites a scenario's source (the file's data, with the -set
// overrides applied) as a ready scenario named name: the strategies of
// each step that has goals (the top level's, keyed "", in a file without
// steps) replaced by designs[step], and its goals: removed, so that
// countsim run and check take it and judge the goals as expectations. The
// text returned parses; a step with no entry keeps its own designs.
func WriteSized(file string, data []byte, sets []Set, name string, designs map[string][]SizedEntry) ([]byte, error) {
	root, _, err := parseWithSets(file, data, sets)
	if err != nil {
		return nil, err
	}
	if i := valueAt(root, "name"); i >= 0 {
		root.Content[i+1].Value = name
	}
	rewrite := func(m *yaml.Node, step string) {
		entries, ok := designs[step]
		if !ok || len(entries) == 0 {
			return
		}
		gi := valueAt(m, "goals")
		if gi < 0 {
			return
		}
		m.Content = append(m.Content[:gi], m.Content[gi+2:]...)
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range entries {
			seq.Content = append(seq.Content, sizedNode(e))
		}
		if si := valueAt(m, "strategies"); si >= 0 {
			m.Content[si+1] = seq
		} else { // goals alone: size tried every type
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "strategies"}, seq)
		}
	}
	if si := valueAt(root, "steps"); si >= 0 {
		for _, st := range root.Content[si+1].Content {
			if ni := valueAt(st, "name"); ni >= 0 && st.Kind == yaml.MappingNode {
				rewrite(st, st.Content[ni+1].Value)
			}
		}
	} else {
		rewrite(root, "")
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: writing the sized scenario: %w", file, err)
	}
	if _, err := Parse(name+".yaml", out); err != nil {
		return nil, fmt.Errorf("the sized scenario does not load (a bug): %w", err)
	}
	return out, nil
}

// sizedNode is the mapping of one sized entry.
func sizedNode(e SizedEntry) *yaml.Node {
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	m := &yaml.Node{Kind: yaml.MappingNode, HeadComment: e.Comment}
	m.Content = append(m.Content, str("name"), str(e.Name), str("type"), str(e.Type))
	if len(e.Params) > 0 {
		ps := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		for _, p := range e.Params {
			v := &yaml.Node{Kind: yaml.ScalarNode}
			switch x := p.Value.(type) {
			case int64:
				v.Tag, v.Value = "!!int", strconv.FormatInt(x, 10)
			case float64:
				v.Tag, v.Value = "!!float", strconv.FormatFloat(x, 'g', -1, 64)
			case bool:
				v.Tag, v.Value = "!!bool", strconv.FormatBool(x)
			default:
				v.Tag, v.Value = "!!str", fmt.Sprint(x)
			}
			ps.Content = append(ps.Content, str(p.Key), v)
		}
		m.Content = append(m.Content, str("params"), ps)
	}
	if len(e.Expect) > 0 {
		ex := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, t := range e.Expect {
			n := str(t)
			n.Style = yaml.DoubleQuotedStyle
			ex.Content = append(ex.Content, n)
		}
		m.Content = append(m.Content, str("expect"), ex)
	}
	return m
}
