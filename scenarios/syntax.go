package scenarios

// Reading a file: its size and encoding, the YAML syntax, and the one
// document it must hold. Errors of the YAML library are turned into *Error
// values at the file's own line.

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxFileBytes is the largest scenario file: a scenario file is small; a
// larger one is a mistake.
const maxFileBytes = 1 << 20

// Load reads and parses the scenario file at path. The Scenario's File and
// every error's Pos.File are path. A file larger than 1 MiB is refused.
func Load(path string, sets ...Set) (*Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fileError(path, err)
	}
	return Parse(path, data, sets...)
}

// fileError turns a file system error into an *Error that names path once.
func fileError(path string, err error) error {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	e := Errorf(Pos{File: path}, "%s", msg)
	e.Err = err
	return e
}

// Parse parses and validates one scenario. file is the name used in the
// Scenario's File and in errors; data is the YAML text. Every error is an
// *Error at the line of the offending key or value.
//
// Beyond the schema that the types' tags state (every key, its type, range
// and default: [Reference] lists them), the rules are:
//   - one YAML document, a mapping; at most 1 MiB of UTF-8 text. A UTF-16
//     file (YAML allows it, some Windows tools write it) is refused with a
//     hint to save it as UTF-8, so that every line found here is the file's;
//   - unknown keys, repeated keys, keys that name nothing (empty, null, a
//     list or a mapping: `?`, `""`, `~`, `? [a]`), anchors and aliases (&x,
//     *x, <<) and tags other than the standard !!str, !!int, !!float, !!bool,
//     !!null, !!map and !!seq are refused;
//   - an integer field takes a YAML integer (10000000, 10_000_000, 0x10,
//     0o17) or an integer-valued float (1e7, 1.0e7); 2.5 and "10" are
//     refused, and so is 010, which YAML 1.1 reads as octal 8;
//   - a string field takes a string: 12, true or 2024-01-02 must be quoted;
//   - a key given with no value (`seed:`) is refused, except for a mapping,
//     where it is an empty mapping, and a list, where it is an empty list;
//   - a duration is a Go duration ("60s", "250ms", "1m30s", as
//     time.ParseDuration reads it) or a number of seconds (60, 0.25), at
//     most 24h, kept in ns (a number of seconds rounded to the nearest ns);
//   - a scenario (or a step) gives one kind of run (kinds.go): a workload
//     holding events (a count stream), phases (a timed stream) or audience
//     (viewers over days), or a profile; a key that only another kind takes
//     is refused with the reason, and a kind may refuse sections (a profile
//     takes no questions, cluster or faults);
//   - a design's sweep varies a parameter its params do not give;
//   - the rules across the keys of one kind are in its file (timed.go,
//     audience.go, profile.go); those across sections are in rules.go
//     (faults against the stream and the cluster, names unique in the
//     file, steps) and figures.go (a real-world figure stated once).
//
// Design types and their parameters are not checked here: package strategies
// owns them, and [Scenario.ParamPos] maps its errors back to the file.
//
// Each of sets (-set PATH=VALUE, set.go) replaces or adds one key of the
// file before it is decoded, in order; a message about a value a Set gave
// names the Set. The Scenario (and each step) lists them in Sets.
func Parse(file string, data []byte, sets ...Set) (*Scenario, error) {
	if len(data) > maxFileBytes {
		return nil, Errorf(Pos{File: file}, "file is larger than %d bytes (allowed: a scenario of at most 1 MiB)", maxFileBytes)
	}
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return nil, Errorf(Pos{File: file, Line: 1, Col: 1}, "the file is UTF-16 text (allowed: UTF-8 text; save the file as UTF-8)")
	}
	root, d, err := parseWithSets(file, data, sets)
	if err != nil {
		return nil, err
	}
	scn, err := d.document(root)
	if err != nil || len(sets) == 0 {
		return scn, err
	}
	for _, st := range append([]*Scenario{scn}, scn.Steps...) {
		for _, set := range sets {
			st.Sets = append(st.Sets, set.Arg)
		}
	}
	return scn, nil
}

// parseWithSets returns the root mapping of the one document in data with
// each of sets applied to it, in order, and the decoder that applied them
// (it names a Set in the messages about what the Set gave).
func parseWithSets(file string, data []byte, sets []Set) (*yaml.Node, *decoder, error) {
	root, err := parseDocument(file, data)
	if err != nil {
		return nil, nil, err
	}
	d := newDecoder(file)
	for _, set := range sets {
		if err := set.apply(d, root); err != nil {
			return nil, nil, err
		}
	}
	return root, d, nil
}

// parseDocument returns the root mapping of the one document in data.
func parseDocument(file string, data []byte) (root *yaml.Node, err error) {
	defer func() {
		// The YAML library reports errors by panicking internally and
		// recovers them itself; anything it lets escape is its bug, but a
		// bad file must still give an error, not a crash.
		if r := recover(); r != nil {
			root, err = nil, Errorf(Pos{File: file}, "YAML parser failed: %v", r)
		}
	}()
	want := "want a mapping with keys " + joinKeys(schemaOf(fileType).keys())
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, Errorf(Pos{File: file, Line: 1, Col: 1}, "empty file (%s)", want)
		}
		return nil, syntaxError(file, data, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		return nil, syntaxError(file, data, err)
	default:
		return nil, Errorf(Pos{File: file, Line: next.Line, Col: next.Column},
			"a second YAML document starts here (allowed: one document per file)")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, Errorf(Pos{File: file, Line: 1, Col: 1}, "no YAML document (%s)", want)
	}
	root = doc.Content[0]
	if isNull(root) {
		return nil, Errorf(Pos{File: file, Line: doc.Line, Col: doc.Column}, "empty document (%s)", want)
	}
	if root.Kind != yaml.MappingNode {
		return nil, Errorf(Pos{File: file, Line: root.Line, Col: root.Column}, "the document is %s, not a mapping (%s)", describe(root), want)
	}
	return root, nil
}

var (
	yamlLine      = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)
	unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
)

// syntaxError turns the YAML library's "yaml: line N: msg" into an *Error.
// The library leaves the line out when it is line 1, and for errors of its
// reader (bad UTF-8, control characters) and of aliases; those lines are
// found here.
func syntaxError(file string, data []byte, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if parserError(m[2]) {
			// The library prints a parser error's 0-based line: that of
			// the construct being parsed (a block mapping, a flow list),
			// or of the problem when the construct starts on line 1.
			line++
		}
		return Errorf(Pos{File: file, Line: line}, "YAML syntax: %s", m[2])
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 1
	if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
			line = lineAt(data, i)
		}
	} else if i := badCharAt(data); i >= 0 {
		line = lineAt(data, i)
	}
	return Errorf(Pos{File: file, Line: line}, "YAML syntax: %s", msg)
}

// parserError reports whether msg comes from the YAML library's parser (as
// opposed to its scanner or reader); the list is that of its parserc.go.
func parserError(msg string) bool {
	switch msg {
	case "found undefined tag handle", "found duplicate %YAML directive",
		"found incompatible YAML document", "found duplicate %TAG directive":
		return true
	}
	return strings.HasPrefix(msg, "did not find expected ")
}

// lineAt returns the 1-based line of byte offset i, counting line breaks
// as the YAML library does: \r\n, \r, \n, U+0085, U+2028 and U+2029.
func lineAt(data []byte, i int) int {
	line := 1
	for j := 0; j < i && j < len(data); {
		r, size := utf8.DecodeRune(data[j:])
		switch r {
		case '\r':
			if j+1 < len(data) && data[j+1] == '\n' {
				size++
			}
			line++
		case '\n', 0x85, 0x2028, 0x2029:
			line++
		}
		j += size
	}
	return line
}

// badCharAt returns the offset of the first byte that is not valid UTF-8 or
// is a character YAML does not allow in a file, or -1.
func badCharAt(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		ok := r == '\t' || r == '\n' || r == '\r' || r == 0x85 ||
			0x20 <= r && r <= 0x7e || 0xa0 <= r && r <= 0xd7ff ||
			0xe000 <= r && r <= 0xfffd || 0x10000 <= r && r <= 0x10ffff
		if r == utf8.RuneError && size <= 1 || !ok {
			return i
		}
		i += size
	}
	return -1
}
