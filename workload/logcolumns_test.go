package workload

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// readAllLog reads every event of cfg's log, or the first error.
func readAllLog(t *testing.T, cfg LogConfig) ([]Event, *LogReader, error) {
	t.Helper()
	r, err := OpenLog(cfg)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var out []Event
	buf := make([]Event, 0, 3)
	for {
		b, err := r.Read(buf[:0])
		out = append(out, b...)
		if err == io.EOF {
			return out, r, nil
		}
		if err != nil {
			return out, r, err
		}
	}
}

// TestLogNodeColumn: a node column gives each event's Actor, numbers as
// they are or names numbered in their order of appearance; a node beyond
// Nodes, or a log mixing numbers and names, is a bad line at its line.
func TestLogNodeColumn(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		lines []string
		nodes int
		want  []uint64
		bad   string // the bad line's message, with its line
	}{
		{"numbers", []string{"k,n", "a,2", "b,0", "a,1"}, 3, []uint64{2, 0, 1}, ""},
		{"names", []string{"k,n", "a,eu", "b,us", "a,eu", "c,asia"}, 3, []uint64{0, 1, 0, 2}, ""},
		{"leading zeros are numbers", []string{"k,n", "a,002"}, 3, []uint64{2}, ""},
		{"number beyond", []string{"k,n", "a,1", "b,3"}, 3, nil, ":3: column \"n\" (Node): node 3 is not below the 3 nodes"},
		{"too many names", []string{"k,n", "a,x", "b,y", "c,z"}, 2, nil, ":4: column \"n\" (Node): \"z\" is a node beyond the 2 named"},
		{"name after number", []string{"k,n", "a,1", "b,eu"}, 3, nil, ":3: column \"n\" (Node): \"eu\" is a name, and the nodes before it were numbers"},
		{"number after name", []string{"k,n", "a,eu", "b,1"}, 3, nil, ":3: column \"n\" (Node): \"1\" is a number, and the nodes before it were named"},
		{"empty", []string{"k,n", "a,"}, 3, nil, ":2: column \"n\" (Node)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".csv")
			writeLines(t, path, c.lines)
			evs, r, err := readAllLog(t, LogConfig{Path: path, Format: "csv", Key: "k", Node: "n", Nodes: c.nodes, Rate: 1})
			if c.bad != "" {
				var le *LogError
				if !errors.As(err, &le) || !strings.Contains(err.Error(), c.bad) {
					t.Fatalf("err %v, want a bad line %q", err, c.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for _, e := range evs {
				got = append(got, e.Actor)
			}
			if !slicesEqual(got, c.want) {
				t.Errorf("nodes %v, want %v", got, c.want)
			}
			if c.name == "names" {
				if names := r.NodeNames(); strings.Join(names, ",") != "eu,us,asia" {
					t.Errorf("node names %q", names)
				}
			}
		})
	}
	for _, cfg := range []LogConfig{
		{Path: "x", Format: "csv", Key: "k", Node: "n", Nodes: 0, Rate: 1},
		{Path: "x", Format: "csv", Key: "k", Node: "n", Nodes: MaxSplitNodes + 1, Rate: 1},
		{Path: "x", Format: "csv", Key: "k", Node: "n", Nodes: 2, ActorID: "a", Rate: 1},
	} {
		if _, err := OpenLog(cfg); err == nil {
			t.Errorf("OpenLog(%+v) took a bad node config", cfg)
		}
	}
}

func slicesEqual(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLogScoreColumn: a line with a score is a Set of it, whatever its op
// and delta; a line without one (an empty CSV field, a null NDJSON field
// or one absent from a line but the first) is read by its op and delta; a score that is no int64 is a
// bad line.
func TestLogScoreColumn(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "s.csv")
	writeLines(t, csvPath, []string{"p,d,op,s", "a,5,write,", "b,3,write,100", "c,0,read,", "d,2,read,-7"})
	jsonPath := filepath.Join(dir, "s.ndjson")
	writeLines(t, jsonPath, []string{`{"p":"a","d":5,"op":"write","s":null}`, `{"p":"b","d":3,"op":"write","s":100}`,
		`{"p":"c","d":0,"op":"read"}`, `{"p":"d","d":2,"op":"read","s":"-7"}`})
	want := []struct {
		op    Op
		delta int64
	}{{Write, 5}, {Set, 100}, {Read, 0}, {Set, -7}}
	for _, f := range []struct{ path, format string }{{csvPath, "csv"}, {jsonPath, "ndjson"}} {
		evs, _, err := readAllLog(t, LogConfig{Path: f.path, Format: f.format, Key: "p", Delta: "d", Op: "op", Score: "s", Rate: 1})
		if err != nil {
			t.Fatalf("%s: %v", f.format, err)
		}
		if len(evs) != len(want) {
			t.Fatalf("%s: %d events", f.format, len(evs))
		}
		for i, w := range want {
			if evs[i].Op != w.op || evs[i].Delta != w.delta {
				t.Errorf("%s: event %d is %v %d, want %v %d", f.format, i, evs[i].Op, evs[i].Delta, w.op, w.delta)
			}
		}
	}
	bad := filepath.Join(dir, "bad.csv")
	writeLines(t, bad, []string{"p,s", "a,1", "b,1.5"})
	if _, _, err := readAllLog(t, LogConfig{Path: bad, Format: "csv", Key: "p", Score: "s", Rate: 1}); err == nil || !strings.Contains(err.Error(), ":3: column \"s\" (Score): \"1.5\" is not a decimal int64") {
		t.Errorf("a score of 1.5: %v", err)
	}
}
