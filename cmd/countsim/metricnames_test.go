package main

import (
	"slices"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/strategies"
)

// list TYPE gives the type's parameters and the metrics the built-in
// scenarios measure of it, each a name an expect: takes, and none the type
// never reports.
func TestListType(t *testing.T) {
	out, stderr, code := cli(t, "list", "count-min")
	if code != 0 {
		t.Fatalf("list count-min: exit %d, %s", code, stderr)
	}
	params, names, ok := strings.Cut(out, "\nMetrics (the names expect: and shows: take)")
	if !ok || !strings.HasPrefix(out, "count-min — ") || !strings.Contains(params, "\n  epsilon ") || !strings.Contains(params, "\n  top ") {
		t.Fatalf("list count-min:\n%s", out)
	}
	// The groups: "  SCENARIO, …:" then the metrics, indented further.
	var search []string
	inSearch := false
	for line := range strings.SplitSeq(names, "\n") {
		switch {
		case strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   "):
			inSearch = slices.Contains(strings.Split(strings.TrimSuffix(strings.TrimSpace(line), ":"), ", "), "search")
		case strings.HasPrefix(line, "      ") && inSearch:
			for name := range strings.SplitSeq(strings.TrimSpace(line), ",") {
				if name = strings.TrimSpace(name); name != "" {
					search = append(search, name)
				}
			}
		}
	}
	for _, m := range search {
		if !metrics.Known(m) {
			t.Errorf("list count-min names %q, no metric countsim has", m)
		}
	}
	if !slices.Contains(search, "max_overestimate") || !slices.Contains(search, "topk_recall") || slices.Contains(search, "trend_recall") || slices.Contains(search, "sigma_large_n") {
		t.Errorf("list count-min: in search %v, want count-min's metrics alone", search)
	}
	// A type the built-ins run in another kind of run has its own metrics.
	if out, _, _ := cli(t, "list", "wilson"); !strings.Contains(out, "precision_at_k") || strings.Contains(out, "max_overestimate") {
		t.Errorf("list wilson:\n%s", out)
	}
	// A mistyped type: the nearest, the allowed, exit 2.
	_, stderr, code = cli(t, "list", "cont-min")
	if code != 2 || !strings.Contains(stderr, `unknown design type "cont-min" (allowed: batched,`) || !strings.HasSuffix(stderr, "did you mean \"count-min\"?\n") {
		t.Errorf("list cont-min: exit %d, %q", code, stderr)
	}
	if _, _, code := cli(t, "list", "a", "b"); code != 2 {
		t.Errorf("list a b: exit %d, want 2", code)
	}
}

// help scenario ends with every design type's metric names, and the truth's.
func TestHelpScenarioNamesMetrics(t *testing.T) {
	out, _, code := cli(t, "help", "scenario")
	_, names, ok := strings.Cut(out, "\nThe metrics an expect: or shows: item names, by design type")
	if code != 0 || !ok {
		t.Fatalf("help scenario: exit %d, no metric names", code)
	}
	for _, typ := range append([]string{"truth"}, strategies.TypeNames()...) {
		i := strings.Index(names, "\n"+typ+"\n    ")
		if i < 0 {
			t.Errorf("help scenario names no metrics of %s", typ)
			continue
		}
		first, _, _ := strings.Cut(names[i+len(typ)+6:], ",")
		if !metrics.Known(first) {
			t.Errorf("help scenario: %s's first metric %q is no metric countsim has", typ, first)
		}
	}
	hll := names[strings.Index(names, "\nhll\n"):]
	hll = hll[:strings.Index(hll[1:], "\n\n")+1]
	if !strings.Contains(hll, "relative_error") || strings.Contains(hll, "topk_recall") {
		t.Errorf("help scenario: hll's metrics:\n%s", hll)
	}
}

// A parameter that must be given never shows a default, and one without a
// default shows none ("default 0" would be a Go zero value, not a default).
func TestRequiredShowNoDefault(t *testing.T) {
	for _, typ := range strategies.Types() {
		for _, p := range typ.ParamDocs() {
			if p.Default == "0" && strings.Contains(p.Doc, "required") {
				t.Errorf("%s.%s: a parameter the doc says is required shows default 0", typ.Name, p.Key)
			}
		}
	}
	out, _, _ := cli(t, "list")
	for line := range strings.SplitSeq(out, "\n") {
		if strings.Contains(line, "  required  ") && strings.Contains(line, "  default 0") {
			t.Errorf("list: a required parameter with a default: %q", line)
		}
	}
	ref, _, _ := cli(t, "help", "scenario")
	for line := range strings.SplitSeq(ref, "\n") {
		if strings.Contains(line, ", required") && strings.Contains(line, "default") {
			t.Errorf("help scenario: a required key with a default: %q", line)
		}
	}
}
