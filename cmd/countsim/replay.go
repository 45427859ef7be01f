package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"countsim/scenarios"
	"countsim/sim"
)

// The replay scenario countsim sample -replay writes: the scenario (or the
// step) the log was sampled from, its workload replaced by the log, so
// that `countsim run` of it answers the same questions on the log as the
// synthetic run did on its stream.

// sourceOf returns the YAML text of a scenario: a built-in's, or its file's.
func sourceOf(scn *scenarios.Scenario) ([]byte, error) {
	if rest, ok := strings.CutPrefix(scn.File, "builtin:"); ok {
		return scenarios.BuiltinSource(strings.TrimSuffix(rest, ".yaml"))
	}
	return os.ReadFile(scn.File)
}

// replayWorkload lists the workload keys that replay a sample log of
// format at logPath (as written in the scenario: relative to its folder)
// as s says: the log's columns, read as the synthetic run's keys and
// actors, and the kind's own keys. A key of s.Keys with an empty value
// drops that column. files are the paths of s.Files, in order, as the
// scenario names them.
func replayWorkload(logPath, format string, s *sim.Sampled, files []string) [][2]string {
	kv := [][2]string{{"file", logPath}, {"format", format}}
	if s.As != "count" {
		kv = append(kv, [2]string{"as", s.As})
	}
	kv = append(kv, [][2]string{{"key", "key"}, {"key_id", "key_id"}, {"time", "time"}, {"actor_id", "actor_id"},
		{"event_id", "id"}, {"delta", "delta"}, {"op", "op"}}...)
	keys := s.Keys
	for i, f := range s.Files {
		keys = append(append(keys[:len(keys):len(keys)], [2]string{f.Key, files[i]}), f.Keys...)
	}
	for _, o := range keys {
		i := indexKey(kv, o[0])
		switch {
		case i >= 0 && o[1] == "":
			kv = append(kv[:i], kv[i+1:]...)
		case i >= 0:
			kv[i][1] = o[1]
		case o[1] != "":
			kv = append(kv, o)
		}
	}
	return kv
}

func indexKey(kv [][2]string, key string) int {
	for i, p := range kv {
		if p[0] == key {
			return i
		}
	}
	return -1
}

// replayScenario returns the text of the scenario that replays the log:
// src (the sampled scenario's YAML) with its workload, or step's, replaced
// by workload and its name suffixed "-replay"; a step becomes a scenario of
// its own, beside the top level's keys but steps. The comments of src stay.
// cut says the log holds only the head of the stream: the expectations,
// which state the whole stream's numbers, are then left out.
func replayScenario(src []byte, step string, workload [][2]string, cut bool) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the scenario is not a mapping")
	}
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
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
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

// relativeTo returns path as the replay scenario at scenarioPath names it:
// relative to the scenario's folder where it can be.
func relativeTo(scenarioPath, path string) string {
	abs, err1 := filepath.Abs(path)
	dir, err2 := filepath.Abs(filepath.Dir(scenarioPath))
	if err1 != nil || err2 != nil {
		return path
	}
	if rel, err := filepath.Rel(dir, abs); err == nil {
		return rel
	}
	return abs
}
