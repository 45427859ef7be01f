package scenarios

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LeaveOut returns the text of a replay scenario (Replay's) without the
// expectations on any of metrics, which a replay of the log does not
// measure (a ratings log has no hidden quality), an expect or shows list
// left empty dropped too; a comment at the top says which. The comments of
// src stay. A text without such an expectation comes back unchanged.
func LeaveOut(src []byte, metrics []string) ([]byte, error) {
	e, err := NewEdit(src)
	if err != nil {
		return nil, err
	}
	top := e.doc.Content[0]
	if !dropOn(top, metrics) {
		return src, nil
	}
	top.Content[0].HeadComment = "A replay of the log does not measure " + strings.Join(metrics, ", ") +
		":\nthe expectations on them are left out (countsim sample -replay)."
	return e.Bytes()
}

// dropOn removes from every expect and shows list under n the expectations
// whose metric is one of metrics, and a list left empty; it reports
// whether it removed one.
func dropOn(n *yaml.Node, metrics []string) bool {
	dropped := false
	if n.Kind == yaml.MappingNode {
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k, v := n.Content[i].Value, n.Content[i+1]; (k == "expect" || k == "shows") && v.Kind == yaml.SequenceNode {
				items := v.Content[:0]
				for _, e := range v.Content {
					if f := strings.Fields(e.Value); len(f) > 0 && slices.Contains(metrics, f[0]) {
						dropped = true
						continue
					}
					items = append(items, e)
				}
				if v.Content = items; len(items) == 0 {
					continue
				}
			}
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
		n.Content = kept
	}
	for _, c := range n.Content {
		dropped = dropOn(c, metrics) || dropped
	}
	return dropped
}
