package scenarios

import (
	"embed"
	"os"
	"slices"
	"strings"
)

// builtinFS holds the built-in scenarios, one NAME.yaml each. Test fixtures
// live under testdata/, which the pattern does not reach.
//
//go:embed *.yaml
var builtinFS embed.FS

const builtinPrefix = "builtin:"

// BuiltinNames lists the names of the built-in scenarios, sorted.
func BuiltinNames() []string {
	entries, err := builtinFS.ReadDir(".")
	if err != nil {
		return nil // cannot happen: the embedded root always reads
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// DefaultBuiltins lists the built-in scenarios a run of every built-in one
// runs: all but those marked on_demand, sorted.
func DefaultBuiltins() ([]string, error) {
	var names []string
	for _, name := range BuiltinNames() {
		scn, err := Builtin(name)
		if err != nil {
			return nil, err
		}
		if !scn.OnDemand {
			names = append(names, name)
		}
	}
	return names, nil
}

// BuiltinSource returns the YAML text of the built-in scenario name, for
// `countsim list` and as a template to copy.
func BuiltinSource(name string) ([]byte, error) {
	if !slices.Contains(BuiltinNames(), name) {
		return nil, Errorf(Pos{File: name}, "no built-in scenario by that name (allowed: %s)%s", strings.Join(BuiltinNames(), ", "), DidYouMean(name, BuiltinNames()))
	}
	return builtinFS.ReadFile(name + ".yaml")
}

// Builtin parses the built-in scenario name. Its File is
// "builtin:NAME.yaml"; an unknown name gives an *Error listing the names.
func Builtin(name string, sets ...Set) (*Scenario, error) {
	data, err := BuiltinSource(name)
	if err != nil {
		return nil, err
	}
	return Parse(builtinPrefix+name+".yaml", data, sets...)
}

// Resolve finds the scenario a command-line argument names: an existing file
// (not a directory), or any argument ending in .yaml or .yml, is loaded with
// [Load]; "builtin:NAME.yaml", as a built-in scenario's File reads, is
// [Builtin](NAME); anything else is a built-in name.
func Resolve(arg string, sets ...Set) (*Scenario, error) {
	if rest, ok := strings.CutPrefix(arg, builtinPrefix); ok {
		if _, err := os.Stat(arg); err != nil { // a file really called builtin:x wins
			return Builtin(strings.TrimSuffix(rest, ".yaml"), sets...)
		}
	}
	if fi, err := os.Stat(arg); err == nil && !fi.IsDir() {
		return Load(arg, sets...)
	}
	if ext := strings.ToLower(arg); strings.HasSuffix(ext, ".yaml") || strings.HasSuffix(ext, ".yml") {
		return Load(arg, sets...)
	}
	if _, err := BuiltinSource(arg); err != nil {
		return nil, Errorf(Pos{File: arg}, "no such file and no built-in scenario by that name (allowed: a path to a .yaml file, or one of %s)%s",
			strings.Join(BuiltinNames(), ", "), DidYouMean(arg, BuiltinNames()))
	}
	return Builtin(arg, sets...)
}
