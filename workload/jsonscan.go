package workload

// The JSON scanner under the NDJSON log reader (logjson.go): a line's
// members read in place, strings and numbers checked as encoding/json
// would, without building a value.

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

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

// jsonMember is one member of an object: its name (unescaped), its value's
// raw text (for a string: the bytes between the quotes, still escaped; esc
// says whether there is a backslash) and the value's kind.
type jsonMember struct {
	name, raw []byte
	kind      jsonKind
	esc       bool
}

// jsonMembers reads the members of one JSON object, a line, in order: reset,
// then next, each member in m, until next says there is none more. Nested
// values are checked and skipped. The whole line has been checked once
// next has said so with no error.
type jsonMembers struct {
	b    []byte
	i    int
	more bool       // a member follows at i
	m    jsonMember // the member next read
	name []byte     // an escaped name, unescaped
}

// reset starts on the line b, which must hold one JSON object with nothing
// but white space around it.
func (o *jsonMembers) reset(b []byte) error {
	o.b = b
	i := skipJSONSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return &jsonSyntaxError{i, "want '{'"}
	}
	o.i = skipJSONSpace(b, i+1)
	o.more = true
	if o.i < len(b) && b[o.i] == '}' {
		o.more = false
		return o.end(o.i + 1)
	}
	return nil
}

// end checks that nothing but white space follows the object at i.
func (o *jsonMembers) end(i int) error {
	if i = skipJSONSpace(o.b, i); i != len(o.b) {
		return &jsonSyntaxError{i, "text after the object"}
	}
	return nil
}

// next reads the next member into o.m, and says false when there is none.
func (o *jsonMembers) next() (bool, error) {
	if !o.more {
		return false, nil
	}
	b, i, m := o.b, o.i, &o.m
	if i == len(b) || b[i] != '"' {
		return false, &jsonSyntaxError{i, "want a member name"}
	}
	end, esc, err := scanJSONString(b, i)
	if err != nil {
		return false, err
	}
	m.name = b[i+1 : end]
	if esc {
		o.name = unescapeJSON(o.name[:0], m.name)
		m.name = o.name
	}
	i = skipJSONSpace(b, end+1)
	if i == len(b) || b[i] != ':' {
		return false, &jsonSyntaxError{i, "want ':'"}
	}
	i = skipJSONSpace(b, i+1)
	start := i
	if m.kind, i, m.esc, err = scanJSONValue(b, i, 1); err != nil {
		return false, err
	}
	m.raw = b[start:i]
	if m.kind == jsonString {
		m.raw = b[start+1 : i-1]
	}
	i = skipJSONSpace(b, i)
	switch {
	case i < len(b) && b[i] == ',':
		o.i = skipJSONSpace(b, i+1)
	case i < len(b) && b[i] == '}':
		o.more = false
		if err := o.end(i + 1); err != nil {
			return false, err
		}
	default:
		return false, &jsonSyntaxError{i, "want ',' or '}'"}
	}
	return true, nil
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

// jsonPlain marks the bytes a string may hold as they are: all but '"',
// '\\' and the control characters below 0x20.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanJSONString checks the string whose opening quote is b[i] and returns
// the index of its closing quote and whether it holds a backslash.
func scanJSONString(b []byte, i int) (int, bool, error) {
	esc := false
	for j := i + 1; j < len(b); j++ {
		// Eight bytes at a time while none is '"', '\\' or below 0x20
		// (the has-zero-byte test of "Bit Twiddling Hacks", exact as a
		// yes/no, for x < 0x20, x ^ '"' and x ^ '\\').
		const lsb, msb = 0x0101010101010101, 0x8080808080808080
		for len(b)-j >= 8 {
			x := binary.LittleEndian.Uint64(b[j:])
			q, bs := x^('"'*lsb), x^('\\'*lsb)
			if ((x-0x20*lsb)&^x|(q-lsb)&^q|(bs-lsb)&^bs)&msb != 0 {
				break
			}
			j += 8
		}
		for j < len(b) && jsonPlain[b[j]] {
			j++
		}
		if j == len(b) {
			break
		}
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
		default:
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
