package workload

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The NDJSON side of LogReader: one JSON object a line (RFC 8259), read by a
// small scanner of its own rather than encoding/json, which would allocate a
// map and a value per field on every line. The scanner validates the whole
// line as encoding/json does (a fuzz test holds the two to the same verdict
// and the same values) and keeps only the fields the config names: their
// text is copied into one buffer and made a string once, so a line costs
// one allocation whatever its width. Duplicate names: the last wins, as in
// encoding/json. Strings are unescaped (\uXXXX surrogate pairs joined, a
// lone surrogate read as U+FFFD, as encoding/json does); bytes that are not
// UTF-8 are kept as they are (encoding/json would make them U+FFFD), so a
// key hashes the same whether a CSV or an NDJSON line carries it.

// jsonMaxDepth is the deepest nesting of objects and arrays accepted, that
// of encoding/json.
const jsonMaxDepth = 10000

// jsonKind is the JSON type of a value.
type jsonKind uint8

const (
	jsonNone jsonKind = iota
	jsonString
	jsonNumber
	jsonBool
	jsonNull
	jsonObject
	jsonArray
)

func (k jsonKind) String() string {
	switch k {
	case jsonString:
		return "a string"
	case jsonNumber:
		return "a number"
	case jsonBool:
		return "a boolean"
	case jsonNull:
		return "null"
	case jsonObject:
		return "an object"
	case jsonArray:
		return "an array"
	}
	return "nothing"
}

// jsonSyntaxError is a line that is not one JSON object: Msg at byte Off.
type jsonSyntaxError struct {
	Off int
	Msg string
}

func (e *jsonSyntaxError) Error() string {
	return fmt.Sprintf("not a JSON object: %s at column %d", e.Msg, e.Off+1)
}

// jsonMember receives each member of the object that scanJSONObject scans:
// its name (unescaped), its value's raw text (for a string: the bytes
// between the quotes, still escaped; esc says whether there is a
// backslash) and the value's kind.
type jsonMember interface {
	member(name, raw []byte, kind jsonKind, esc bool)
}

// jsonScanner holds the scratch space of scanJSONObject.
type jsonScanner struct {
	name []byte // an escaped name, unescaped
}

// scan checks that b is one JSON object with nothing but white space around
// it, and passes each member to m in order. Only top-level members are
// passed; nested values are checked and skipped.
func (s *jsonScanner) scan(b []byte, m jsonMember) error {
	i := skipJSONSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return &jsonSyntaxError{i, "want '{'"}
	}
	i = skipJSONSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i == len(b) || b[i] != '"' {
				return &jsonSyntaxError{i, "want a member name"}
			}
			end, esc, err := scanJSONString(b, i)
			if err != nil {
				return err
			}
			name := b[i+1 : end]
			if esc {
				s.name = unescapeJSON(s.name[:0], name)
				name = s.name
			}
			i = skipJSONSpace(b, end+1)
			if i == len(b) || b[i] != ':' {
				return &jsonSyntaxError{i, "want ':'"}
			}
			i = skipJSONSpace(b, i+1)
			start := i
			kind, next, vesc, err := scanJSONValue(b, i, 1)
			if err != nil {
				return err
			}
			raw := b[start:next]
			if kind == jsonString {
				raw = b[start+1 : next-1]
			}
			m.member(name, raw, kind, vesc)
			i = skipJSONSpace(b, next)
			if i < len(b) && b[i] == ',' {
				i = skipJSONSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return &jsonSyntaxError{i, "want ',' or '}'"}
		}
	}
	if i = skipJSONSpace(b, i); i != len(b) {
		return &jsonSyntaxError{i, "text after the object"}
	}
	return nil
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanJSONValue checks the value at b[i:] (nested depth deep) and returns
// its kind, the index just past it and, for a string, whether it holds a
// backslash escape.
func scanJSONValue(b []byte, i, depth int) (jsonKind, int, bool, error) {
	if i == len(b) {
		return jsonNone, i, false, &jsonSyntaxError{i, "want a value"}
	}
	switch c := b[i]; {
	case c == '"':
		end, esc, err := scanJSONString(b, i)
		return jsonString, end + 1, esc, err
	case c == '-' || isDigitByte(c):
		next, err := scanJSONNumber(b, i)
		return jsonNumber, next, false, err
	case c == '{' || c == '[':
		next, err := skipJSONContainer(b, i, depth+1)
		if c == '{' {
			return jsonObject, next, false, err
		}
		return jsonArray, next, false, err
	case c == 't':
		return literal(b, i, "true", jsonBool)
	case c == 'f':
		return literal(b, i, "false", jsonBool)
	case c == 'n':
		return literal(b, i, "null", jsonNull)
	}
	return jsonNone, i, false, &jsonSyntaxError{i, "want a value"}
}

func literal(b []byte, i int, word string, kind jsonKind) (jsonKind, int, bool, error) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return jsonNone, i, false, &jsonSyntaxError{i, "want " + word}
	}
	return kind, i + len(word), false, nil
}

// skipJSONContainer checks the object or array at b[i] and returns the
// index just past it.
func skipJSONContainer(b []byte, i, depth int) (int, error) {
	if depth > jsonMaxDepth {
		return i, &jsonSyntaxError{i, fmt.Sprintf("nested deeper than %d", jsonMaxDepth)}
	}
	object := b[i] == '{'
	closer := byte(']')
	if object {
		closer = '}'
	}
	i = skipJSONSpace(b, i+1)
	if i < len(b) && b[i] == closer {
		return i + 1, nil
	}
	for {
		if object {
			if i == len(b) || b[i] != '"' {
				return i, &jsonSyntaxError{i, "want a member name"}
			}
			end, _, err := scanJSONString(b, i)
			if err != nil {
				return i, err
			}
			i = skipJSONSpace(b, end+1)
			if i == len(b) || b[i] != ':' {
				return i, &jsonSyntaxError{i, "want ':'"}
			}
			i = skipJSONSpace(b, i+1)
		}
		_, next, _, err := scanJSONValue(b, i, depth)
		if err != nil {
			return i, err
		}
		i = skipJSONSpace(b, next)
		if i < len(b) && b[i] == ',' {
			i = skipJSONSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == closer {
			return i + 1, nil
		}
		return i, &jsonSyntaxError{i, fmt.Sprintf("want ',' or '%c'", closer)}
	}
}

// scanJSONString checks the string whose opening quote is b[i] and returns
// the index of its closing quote and whether it holds a backslash.
func scanJSONString(b []byte, i int) (int, bool, error) {
	esc := false
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j, esc, nil
		case c == '\\':
			esc = true
			j++
			if j == len(b) {
				return j, esc, &jsonSyntaxError{j, "unterminated string"}
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-j < 5 || hex4(b[j+1:j+5]) < 0 {
					return j, esc, &jsonSyntaxError{j, `want 4 hex digits after \u`}
				}
				j += 4
			default:
				return j, esc, &jsonSyntaxError{j, "unknown escape"}
			}
		case c < 0x20:
			return j, esc, &jsonSyntaxError{j, "control character in a string"}
		}
	}
	return len(b), esc, &jsonSyntaxError{len(b), "unterminated string"}
}

// scanJSONNumber checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at
// b[i:] and returns the index just past it.
func scanJSONNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && isDigitByte(b[i]):
		for i < len(b) && isDigitByte(b[i]) {
			i++
		}
	default:
		return i, &jsonSyntaxError{start, "malformed number"}
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i == len(b) || !isDigitByte(b[i]) {
			return i, &jsonSyntaxError{start, "malformed number"}
		}
		for i < len(b) && isDigitByte(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i == len(b) || !isDigitByte(b[i]) {
			return i, &jsonSyntaxError{start, "malformed number"}
		}
		for i < len(b) && isDigitByte(b[i]) {
			i++
		}
	}
	return i, nil
}

// hex4 returns the value of four hex digits, or -1.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// unescapeJSON appends the text of a string's raw content (already checked
// by scanJSONString) to dst.
func unescapeJSON(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(raw[i+1:])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if len(raw)-i >= 7 && raw[i+1] == '\\' && raw[i+2] == 'u' {
					r2 = hex4(raw[i+3:])
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, raw[i])
		}
	}
	return dst
}

// jsonRecords reads an NDJSON log a line at a time (logRecords).
type jsonRecords struct {
	path  string
	br    *bufio.Reader
	scan  jsonScanner
	wants []jsonWant // the columns the config names
	lineN int64      // the current line
	long  []byte     // a line longer than br's buffer
	held  bool       // long holds the first line, read at open, to parse next

	// the current record
	arena []byte                // the wanted values' text, one after another
	str   string                // arena as a string, made once a line
	kind  [numLogCols]jsonKind  // each column's kind; jsonNone: absent
	span  [numLogCols][2]uint32 // each column's text: str[span[0]:span[1]]

	names []string // at open: every member name of the first line
}

type jsonWant struct {
	name string
	col  logCol
}

// openJSONRecords reads the first line that is not blank, checks that it
// is an object naming every column of cols, and holds it for the first
// next(). An empty log has no events and no columns to check.
func openJSONRecords(path string, text io.Reader, cols [numLogCols]string) (logRecords, error) {
	j := &jsonRecords{path: path, br: bufio.NewReaderSize(text, logBufSize)}
	skipBOM(j.br)
	for c, name := range cols {
		if name != "" {
			j.wants = append(j.wants, jsonWant{name, logCol(c)})
		}
	}
	for {
		line, err := j.readLine()
		if err == io.EOF {
			return j, nil
		}
		if err != nil {
			return nil, err
		}
		if skipJSONSpace(line, 0) == len(line) {
			continue
		}
		j.names = []string{}
		if err := j.scan.scan(line, j); err != nil {
			return nil, &LogError{Path: path, Line: j.lineN, Msg: err.Error()}
		}
		for c, name := range cols {
			if name != "" && !containsString(j.names, name) {
				return nil, fmt.Errorf("workload: log %s has no field %q (%s) on its first line %d; its fields: %s",
					path, name, logCol(c), j.lineN, listNames(j.names))
			}
		}
		j.names = nil
		j.long = append(j.long[:0], line...)
		j.held = true
		j.lineN--
		return j, nil
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (j *jsonRecords) member(name, raw []byte, kind jsonKind, esc bool) {
	if j.names != nil {
		j.names = append(j.names, string(name))
	}
	for _, w := range j.wants {
		if w.name != string(name) {
			continue
		}
		j.kind[w.col] = kind
		start := len(j.arena)
		if kind == jsonString || kind == jsonNumber {
			if esc {
				j.arena = unescapeJSON(j.arena, raw)
			} else {
				j.arena = append(j.arena, raw...)
			}
		}
		j.span[w.col] = [2]uint32{uint32(start), uint32(len(j.arena))}
	}
}

// readLine returns the next line, its newline dropped, valid until the next
// call. A line longer than MaxLogLine is a *LogError (the next call reads
// on after it).
func (j *jsonRecords) readLine() ([]byte, error) {
	if j.held {
		j.held = false
		j.lineN++
		return j.long, nil
	}
	line, err := j.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		j.long = append(j.long[:0], line...)
		tooLong := false
		for err == bufio.ErrBufferFull {
			line, err = j.br.ReadSlice('\n')
			if len(j.long)+len(line) > MaxLogLine+1 {
				tooLong = true
				j.long = j.long[:0]
			}
			j.long = append(j.long, line...)
		}
		if tooLong && (err == nil || err == io.EOF) {
			j.lineN++
			return nil, &LogError{Path: j.path, Line: j.lineN, Msg: fmt.Sprintf("line longer than %d bytes", MaxLogLine)}
		}
		line = j.long
	}
	if err == io.EOF && len(line) > 0 {
		err = nil // a last line without a newline
	}
	if err != nil {
		return nil, err
	}
	j.lineN++
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	return line, nil
}

func (j *jsonRecords) next() error {
	for {
		line, err := j.readLine()
		if err != nil {
			return err
		}
		if skipJSONSpace(line, 0) == len(line) {
			continue // a blank line
		}
		j.arena = j.arena[:0]
		j.kind = [numLogCols]jsonKind{}
		if err := j.scan.scan(line, j); err != nil {
			return &LogError{Path: j.path, Line: j.lineN, Msg: err.Error()}
		}
		j.str = string(j.arena)
		return nil
	}
}

func (j *jsonRecords) value(c logCol) (string, string) {
	switch k := j.kind[c]; k {
	case jsonString, jsonNumber:
		sp := j.span[c]
		return j.str[sp[0]:sp[1]], ""
	case jsonNone:
		return "", "missing"
	default:
		return "", k.String() + ", not a string or a number"
	}
}

func (j *jsonRecords) line(logCol) int64 { return j.lineN }

// listNames lists column names for an error message: quoted, the first 30.
func listNames(names []string) string {
	const most = 30
	var b strings.Builder
	for i, n := range names {
		if i == most {
			fmt.Fprintf(&b, " and %d more", len(names)-most)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", clip(n))
	}
	if len(names) == 0 {
		b.WriteString("none")
	}
	return b.String()
}
