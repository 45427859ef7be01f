package render

import (
	"embed"
	"fmt"
	"strings"

	"countsim/scenarios"
)

// The built-in templates: the seeds' worked examples as prose.
//
//go:embed templates/*.md
var builtinFS embed.FS

// BuiltinPrefix names a built-in template in a stamp and in messages.
const BuiltinPrefix = "builtin:"

// BuiltinNames lists the built-in templates, by name (the file's, less .md).
func BuiltinNames() []string {
	entries, err := builtinFS.ReadDir("templates")
	if err != nil {
		return nil // cannot happen: the embedded folder always reads
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".md"))
	}
	return names
}

// Builtin parses the built-in template name.
func Builtin(name string) (*Template, error) {
	src, err := builtinFS.ReadFile("templates/" + name + ".md")
	if err != nil {
		names := BuiltinNames()
		return nil, fmt.Errorf("no built-in template %q (allowed: %s)%s", name, strings.Join(names, ", "), scenarios.DidYouMean(name, names))
	}
	return Parse(BuiltinPrefix+name, src)
}
