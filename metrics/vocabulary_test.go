package metrics_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A metric is named by its variable (metrics.Bytes), never by a string typed
// out: the module's non-test code holds no string constant of type Metric
// but the declarations of metricnames.go. A typo in a name then fails to
// compile, and every plan line, scored row and headline agrees with the
// vocabulary. The check type-checks every package of the module from its
// source, against the export data `go list -export` gives of what they
// import, and flags each string literal that takes the type Metric.
func TestNoBareMetricStrings(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module (a lint, not a test of behaviour)")
	}
	pkgs := listPackages(t)
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, os.ErrNotExist
		}
		return os.Open(f)
	})
	checked := 0
	for _, p := range pkgs {
		if p.Module == nil || !p.Module.Main || len(p.GoFiles) == 0 {
			continue
		}
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("%s: %v", p.ImportPath, err)
		}
		checked++
		for e, tv := range info.Types {
			lit, ok := e.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			named, ok := tv.Type.(*types.Named)
			if !ok || named.Obj().Name() != "Metric" || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != "countsim/metrics" {
				continue
			}
			pos := fset.Position(lit.Pos())
			if p.ImportPath == "countsim/metrics" && filepath.Base(pos.Filename) == "metricnames.go" {
				continue
			}
			t.Errorf("%s: the metric %s is written as a string: use its variable from metricnames.go", pos, lit.Value)
		}
	}
	if checked < 15 {
		t.Fatalf("checked %d packages of the module", checked)
	}
}

// listed is what `go list -json` says of a package.
type listed struct {
	ImportPath, Dir, Export string
	GoFiles                 []string
	Module                  *struct{ Main bool }
}

// listPackages lists the module's packages and everything they import,
// with their export data.
func listPackages(t *testing.T) []listed {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-export", "-deps", "-json", "./...")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}
