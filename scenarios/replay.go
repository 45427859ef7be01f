package scenarios

// The replay scenario that countsim sample -replay writes: the scenario (or
// the step) a log was sampled from, its workload replaced by the log, so
// that a run of it answers the same questions on the log as the synthetic
// run did on its stream.

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SourceOf returns the YAML text of a scenario: a built-in's, or its file's.
func SourceOf(scn *Scenario) ([]byte, error) {
	if rest, ok := strings.CutPrefix(scn.File, builtinPrefix); ok {
		return BuiltinSource(strings.TrimSuffix(rest, ".yaml"))
	}
	return os.ReadFile(scn.File)
}

// Replay returns the text of the scenario that replays the log:
// src (the sampled scenario's YAML) with its workload, or step's, replaced
// by workload and its name suffixed "-replay"; a step becomes a scenario of
// its own, beside the top level's keys but steps. The comments of src stay.
// cut says the log holds only the head of the stream: the expectations,
// which state the whole stream's numbers, are then left out.
func Replay(src []byte, step string, workload [][2]string, cut bool) ([]byte, error) {
	e, err := NewEdit(src)
	if err != nil {
		return nil, err
	}
	doc := &e.doc
	top := doc.Content[0]
	body := top
	name := valueOf(top, "name").Value
	if step != "" {
		steps := valueOf(top, "steps")
		if steps == nil || steps.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("the scenario has no steps")
		}
		body = nil
		for _, st := range steps.Content {
			if v := valueOf(st, "name"); v != nil && v.Value == step {
				body = st
			}
		}
		if body == nil {
			return nil, fmt.Errorf("no step %q", step)
		}
		merged := &yaml.Node{Kind: yaml.MappingNode}
		for i := 0; i+1 < len(top.Content); i += 2 {
			if k := top.Content[i].Value; k != "steps" {
				merged.Content = append(merged.Content, top.Content[i], top.Content[i+1])
			}
		}
		for i := 0; i+1 < len(body.Content); i += 2 {
			switch k := body.Content[i].Value; k {
			case "name", "title", "description":
				if k != "name" {
					setValue(merged, k, body.Content[i+1])
				}
			case "assumptions": // the step's figures over the file's, as a step reads them
				all := valueOf(merged, k)
				if all == nil || all.Kind != yaml.MappingNode {
					setValue(merged, k, body.Content[i+1])
					break
				}
				own := &yaml.Node{Kind: yaml.MappingNode, Content: slices.Clone(all.Content)}
				for j := 0; j+1 < len(body.Content[i+1].Content); j += 2 {
					setValue(own, body.Content[i+1].Content[j].Value, body.Content[i+1].Content[j+1])
				}
				setValue(merged, k, own)
			default:
				merged.Content = append(merged.Content, body.Content[i], body.Content[i+1])
			}
		}
		name += "-" + step
		top, body = merged, merged
		doc.Content[0] = merged
	}
	w := &yaml.Node{Kind: yaml.MappingNode}
	for _, p := range workload {
		var v yaml.Node
		if err := yaml.Unmarshal([]byte(p[1]), &v); err != nil || len(v.Content) != 1 {
			return nil, fmt.Errorf("workload key %s: %q is not one YAML value", p[0], p[1])
		}
		w.Content = append(w.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p[0]}, v.Content[0])
	}
	w.Content[0].HeadComment = "the sampled log, replayed as the run it was sampled from (countsim sample -replay)"
	setValue(body, "workload", w)
	setValue(top, "name", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name + "-replay"})
	if cut {
		dropExpectations(top)
		top.Content[0].HeadComment = "The log holds the head of the stream only: the expectations of the whole\nstream are left out (countsim sample -replay)."
	}
	return encodeYAML(doc)
}

// encodeYAML writes a YAML document, indented by two.
func encodeYAML(doc *yaml.Node) ([]byte, error) {
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return out.Bytes(), enc.Close()
}

// dropExpectations removes every expect and shows key under n.
func dropExpectations(n *yaml.Node) {
	if n.Kind == yaml.MappingNode {
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i].Value; k != "expect" && k != "shows" {
				kept = append(kept, n.Content[i], n.Content[i+1])
			}
		}
		n.Content = kept
	}
	for _, c := range n.Content {
		dropExpectations(c)
	}
}

// valueOf returns the value of key in mapping m, or nil.
func valueOf(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setValue sets key's value in mapping m, appending the key when m lacks it.
func setValue(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// Edit is a scenario's YAML text open for change, its comments kept: what
// a tool that writes scenarios (a replay, a scaled copy in a test) edits
// them with. A path names a key from the top, dot-separated, a step by its
// name in brackets: "name", "workload", "steps[views].workload.rate".
type Edit struct{ doc yaml.Node }

// NewEdit parses src, a scenario's YAML text, for editing.
func NewEdit(src []byte) (*Edit, error) {
	e := &Edit{}
	if err := yaml.Unmarshal(src, &e.doc); err != nil {
		return nil, err
	}
	if e.doc.Kind != yaml.DocumentNode || len(e.doc.Content) != 1 || e.doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the scenario is not a mapping")
	}
	return e, nil
}

// find returns the mapping that holds path's last key, and that key.
func (e *Edit) find(path string) (*yaml.Node, string, error) {
	parts := strings.Split(path, ".")
	m := e.doc.Content[0]
	for _, p := range parts[:len(parts)-1] {
		name, step, isStep := strings.Cut(p, "[")
		v := valueOf(m, name)
		if isStep {
			step = strings.TrimSuffix(step, "]")
			var found *yaml.Node
			if v != nil && v.Kind == yaml.SequenceNode {
				for _, st := range v.Content {
					if n := valueOf(st, "name"); n != nil && n.Value == step {
						found = st
					}
				}
			}
			if found == nil {
				return nil, "", fmt.Errorf("%s: no step %q", path, step)
			}
			v = found
		}
		if v == nil || v.Kind != yaml.MappingNode {
			return nil, "", fmt.Errorf("%s: %s is not a mapping", path, p)
		}
		m = v
	}
	return m, parts[len(parts)-1], nil
}

// Get returns the value at path as YAML text.
func (e *Edit) Get(path string) (string, error) {
	m, key, err := e.find(path)
	if err != nil {
		return "", err
	}
	v := valueOf(m, key)
	if v == nil {
		return "", fmt.Errorf("%s: no such key", path)
	}
	out, err := yaml.Marshal(v)
	return string(out), err
}

// Set makes value, one YAML value as text, the value at path, adding the
// key where its mapping lacks it.
func (e *Edit) Set(path, value string) error {
	m, key, err := e.find(path)
	if err != nil {
		return err
	}
	var v yaml.Node
	if err := yaml.Unmarshal([]byte(value), &v); err != nil || len(v.Content) != 1 {
		return fmt.Errorf("%s: %q is not one YAML value", path, value)
	}
	setValue(m, key, v.Content[0])
	return nil
}

// DropExpectations removes every expect and shows key of the scenario.
func (e *Edit) DropExpectations() { dropExpectations(&e.doc) }

// Bytes returns the scenario's YAML text as edited.
func (e *Edit) Bytes() ([]byte, error) { return encodeYAML(&e.doc) }
