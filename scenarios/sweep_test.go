package scenarios

import (
	"strings"
	"testing"
)

// A design that sweeps a parameter and gives it in params too is refused at
// the sweep's key, naming the line of the other: the run would otherwise
// keep one of the two without a word. Another parameter beside a sweep is
// the sweep's fixed part.
func TestSweepAndParamsOfOneKey(t *testing.T) {
	const entry = "strategies[0].sweep.width: width is also given in params, at line "
	cases := []struct {
		name string
		yaml string
		line int
		want string // "" for a scenario accepted
	}{
		{"params first", plus("    params: {depth: 4, width: 5}", "    sweep: {width: [100, 200]}"), 10, entry + "9 (allowed: width in sweep or in params, not both)"},
		{"sweep first", plus("    sweep:", "      width: [100, 200]", "    params:", "      depth: 4", "      width: 5"), 10, entry + "13"},
		{"in a step", swith(7, "        type: exact", "        params: {width: 5}", "        sweep: {width: [1, 2]}"), 9, "steps[0]." + entry + "8"},
		{"another key", plus("    params: {depth: 4}", "    sweep: {width: [100, 200]}"), 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("cases/x.yaml", []byte(c.yaml))
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				st := s.Strategies[0]
				if len(st.Params) != 1 || st.Params[0].Key != "depth" || st.Sweep == nil || st.Sweep.Key != "width" {
					t.Errorf("got params %+v and sweep %+v, want depth and a sweep of width", st.Params, st.Sweep)
				}
				return
			}
			if err == nil {
				t.Fatalf("got a scenario, want an error\n%s", c.yaml)
			}
			mustError(t, err, "cases/x.yaml", c.line, c.want)
			if e := err.(*Error); !strings.HasSuffix(e.Path, "sweep.width") {
				t.Errorf("got path %q, want the sweep's key", e.Path)
			}
		})
	}
}
