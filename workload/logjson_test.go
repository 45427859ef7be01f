package workload

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsonCollect keeps each member the scanner passes, the last of a name
// winning (as in encoding/json).
type jsonCollect struct {
	kinds map[string]jsonKind
	texts map[string]string
	order []string
}

func (c *jsonCollect) member(name, raw []byte, kind jsonKind, esc bool) {
	n := string(name)
	c.kinds[n] = kind
	c.order = append(c.order, n)
	switch {
	case kind == jsonString && esc:
		c.texts[n] = string(unescapeJSON(nil, raw))
	default:
		c.texts[n] = string(raw)
	}
}

// checkJSONLine holds scanJSONObject to encoding/json on one line: the same
// verdict (an object, or not), and for each member the same kind and value.
func checkJSONLine(t *testing.T, line []byte) {
	t.Helper()
	var s jsonScanner
	c := &jsonCollect{kinds: map[string]jsonKind{}, texts: map[string]string{}}
	err := s.scan(line, c)
	i := skipJSONSpace(line, 0)
	isObject := json.Valid(line) && i < len(line) && line[i] == '{'
	if (err == nil) != isObject {
		t.Fatalf("scan(%q): error %v, but encoding/json says object = %v", line, err, isObject)
	}
	if err != nil {
		return
	}
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("encoding/json cannot decode %q: %v", line, err)
	}
	validNames := true
	for name := range c.kinds {
		validNames = validNames && utf8.ValidString(name)
	}
	if validNames && len(m) != len(c.kinds) {
		t.Fatalf("scan(%q): %d names, encoding/json %d", line, len(c.kinds), len(m))
	}
	for name, v := range m {
		kind, ok := c.kinds[name]
		if !ok {
			// encoding/json makes bad UTF-8 in a name U+FFFD; the scanner
			// keeps the bytes.
			if validNames {
				t.Fatalf("scan(%q): no member %q", line, name)
			}
			continue
		}
		text := c.texts[name]
		var want jsonKind
		switch v := v.(type) {
		case string:
			want = jsonString
			if utf8.ValidString(text) && text != v {
				t.Fatalf("scan(%q): member %q is %q, encoding/json says %q", line, name, text, v)
			}
		case json.Number:
			want = jsonNumber
			if text != string(v) {
				t.Fatalf("scan(%q): member %q is %q, encoding/json says %q", line, name, text, v)
			}
		case bool:
			want = jsonBool
		case nil:
			want = jsonNull
		case map[string]any:
			want = jsonObject
		case []any:
			want = jsonArray
		}
		if kind != want {
			t.Fatalf("scan(%q): member %q is %v, encoding/json says %v", line, name, kind, want)
		}
	}
}

var jsonSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":"x","b":-0.5e+10,"c":true,"d":false,"e":null}`,
	`{"a":{"b":[1,2,{"c":"d"}],"e":{}},"f":[]}`, `{"a":"\u00e9\ud83d\ude00\n\t\"\\\/"}`,
	`{"a":"\ud800"}`, `{"a":"\ud800\u0041"}`, `{"a":"\udc00\ud800"}`, `{"\u0061":2,"a":3}`,
	`{"a":1,"a":"two"}`, `{"k":"ipl final","t":1767225600,"d":"5"}`,
	`[]`, `null`, `"x"`, `1`, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a":1 "b":2}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":+1}`, `{"a":tru}`, `{"a":nul}`,
	`{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"` + "\x01" + `"}`, `{"a":"unterminated}`, `{"a":1}x`, `{"a":1}{}`,
	`{'a':1}`, `{"a":[1,2}`, `{"a":{"b":1]}`, `{"a":[,]}`, "{\"a\":\"\xff\xfe\"}", "\ufeff{}",
	`{"a":1}` + "\r", " \t{\"a\" : [ 1 , { } ] }\r",
	`{"a":` + strings.Repeat("[", jsonMaxDepth-1) + strings.Repeat("]", jsonMaxDepth-1) + `}`,
	`{"a":` + strings.Repeat("[", jsonMaxDepth) + strings.Repeat("]", jsonMaxDepth) + `}`,
}

func TestJSONScanSeeds(t *testing.T) {
	for _, s := range jsonSeeds {
		checkJSONLine(t, []byte(s))
	}
}

// TestJSONScanRandom mutates well-formed objects byte by byte (replace,
// insert, delete from a JSON-ish alphabet) and checks every result against
// encoding/json.
func TestJSONScanRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const alphabet = "{}[]\":,.-+eE0123456789 \\/unltrfaxb\t\x00\xc3\xa9"
	n := 60_000
	if testing.Short() {
		n = 10_000
	}
	for range n {
		b := []byte(jsonSeeds[rng.IntN(len(jsonSeeds)-2)])
		for range rng.IntN(4) {
			c := alphabet[rng.IntN(len(alphabet))]
			switch p := rng.IntN(len(b) + 1); rng.IntN(3) {
			case 0:
				if p < len(b) {
					b[p] = c
				}
			case 1:
				b = append(b[:p], append([]byte{c}, b[p:]...)...)
			default:
				if p < len(b) {
					b = append(b[:p], b[p+1:]...)
				}
			}
		}
		checkJSONLine(t, b)
	}
}

func FuzzJSONScan(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // NDJSON lines hold no newline
		}
		checkJSONLine(t, line)
	})
}
