package metrics

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// The vocabulary holds what metricnames.go declares, each name once and in
// its order: read from the file itself, so that a declaration not made by
// declare (or a name typed twice) is caught.
func TestVocabulary(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "metricnames.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []Metric
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range g.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for _, v := range vs.Values {
				call, ok := v.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 || call.Fun.(*ast.Ident).Name != "declare" {
					t.Fatalf("%s is not declared by declare(\"name\")", vs.Names[0])
				}
				s, _ := strconv.Unquote(call.Args[0].(*ast.BasicLit).Value)
				want = append(want, Metric(s))
			}
		}
	}
	got := All()
	if len(want) < 150 || len(got) != len(want) {
		t.Fatalf("All: %d metrics, metricnames.go declares %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("All()[%d] = %q, metricnames.go declares %q", i, got[i], want[i])
		}
	}
	if !Known("max_overestimate") || Known("max_overestimates") || Known("") {
		t.Error("Known: wrong answer for max_overestimate(s) or the empty name")
	}
	got[0] = "changed"
	if All()[0] == "changed" {
		t.Error("All returned the list it keeps")
	}
}

// declare refuses a name given twice.
func TestDeclareTwice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("declaring bytes again did not panic")
		}
	}()
	declare("bytes")
}
