package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The floors of the house (README, Layout): an import only points down,
// each library has one room that may import it, and no room grows past
// what a newcomer can find their way in (a family of designs 4,000 lines
// of non-test Go, any package 8,000). Read from `go list` of the module's
// non-test code, so a change that breaks a floor fails here, not in a
// review.
func TestFloors(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", "countsim/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	type pkg struct {
		ImportPath, Dir string
		GoFiles         []string
		Imports         []string
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	ours := func(imports []string) []string {
		var o []string
		for _, i := range imports {
			if i == "countsim" || strings.HasPrefix(i, "countsim/") {
				o = append(o, strings.TrimPrefix(i, "countsim/"))
			}
		}
		return o
	}
	families := []string{"strategies/hot", "strategies/frequency", "strategies/distinct", "strategies/trending", "strategies/boards", "strategies/ratings"}
	designRoom := []string{"strategies", "strategies/internal/ds", "workload", "metrics", "internal/hugepages"}
	// may lists, for a package, every package of ours it may import; a
	// package not listed may import anything below it that the rules
	// after this table allow.
	may := map[string][]string{
		"workload":               nil,
		"metrics":                nil,
		"internal/schema":        nil,
		"internal/redistest":     nil,
		"internal/hugepages":     nil, // huge pages for big arrays, under the designs and the runner
		"keyslot":                nil, // Redis Cluster's slots, under both stores
		"scenarios":              {"internal/schema"},
		"strategies":             {"workload", "metrics", "internal/schema"},
		"strategies/internal/ds": {"strategies", "workload"},
		"strategies/all":         families,
		"plots":                  {"metrics"},
		"report":                 {"metrics"},
		"render":                 {"metrics", "scenarios"},
		"redisstore":             {"strategies", "keyslot", "metrics"},
		"sim/cluster":            append([]string{"strategies/distinct", "keyslot"}, designRoom...),
	}
	for _, f := range families {
		may[f] = designRoom
	}
	may["strategies/trending"] = append([]string{"strategies/frequency"}, designRoom...) // trending builds on frequency
	libraries := map[string]string{"go.yaml.in/yaml/v3": "scenarios", "gonum.org/v1/plot": "plots", "github.com/redis/go-redis/v9": "redisstore"}
	seen := map[string]bool{}
	for _, p := range pkgs {
		name := strings.TrimPrefix(p.ImportPath, "countsim/")
		seen[name] = true
		imports := ours(p.Imports)
		if allowed, ok := may[name]; ok {
			for _, i := range imports {
				if !slices.Contains(allowed, i) {
					t.Errorf("%s imports %s (allowed: %s)", name, i, strings.Join(allowed, ", "))
				}
			}
		}
		for _, i := range imports {
			switch {
			case strings.HasPrefix(name, "strategies") && (i == "sim" || strings.HasPrefix(i, "sim/") || i == "redisstore" || strings.HasPrefix(i, "cmd/")):
				t.Errorf("the design %s imports the runner, the store or the CLI: %s", name, i)
			case name != "cmd/countsim" && strings.HasPrefix(i, "cmd/"):
				t.Errorf("%s imports the CLI", name)
			case (name == "sim" || strings.HasPrefix(name, "sim/")) && i == "redisstore":
				t.Errorf("%s imports redisstore: the real store stands beside the runner", name)
			}
		}
		for _, i := range p.Imports {
			for lib, room := range libraries {
				if (i == lib || strings.HasPrefix(i, lib+"/")) && name != room {
					t.Errorf("%s imports %s, which only %s may", name, i, room)
				}
			}
		}
		lines := 0
		for _, f := range p.GoFiles {
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			lines += bytes.Count(b, []byte("\n"))
		}
		limit := 8000
		if slices.Contains(families, name) {
			limit = 4000
		}
		if lines > limit {
			t.Errorf("%s holds %d lines of non-test Go, more than %d: give it rooms of its own", name, lines, limit)
		}
	}
	for name := range may {
		if !seen[name] {
			t.Errorf("no package %s: the floors name a room that is gone", name)
		}
	}
}
