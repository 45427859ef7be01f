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
}

func (c *jsonCollect) member(name, raw []byte, kind jsonKind, esc bool) {
	n := string(name)
	c.kinds[n] = kind
	switch {
	case kind == jsonString && esc:
		c.texts[n] = string(unescapeJSON(nil, raw))
	default:
		c.texts[n] = string(raw)
	}
}

// checkJSONLine holds jsonMembers to encoding/json on one line: the same
// verdict (an object, or not), and for each member the same kind and value.
func checkJSONLine(t *testing.T, line []byte) {
	t.Helper()
	var o jsonMembers
	c := &jsonCollect{kinds: map[string]jsonKind{}, texts: map[string]string{}}
	err := o.reset(line)
	for err == nil {
		var ok bool
		if ok, err = o.next(); !ok {
			break
		}
		c.member(o.m.name, o.m.raw, o.m.kind, o.m.esc)
	}
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

// TestScanJSONStringWords puts each byte that ends or breaks a string at
// every offset of strings up to 40 bytes long, so that the eight-bytes-at-
// a-time loop meets it in every lane, and checks the scan against the
// rule: the first '"' ends it, a byte below 0x20 is an error, and so is a
// backslash here (\a is no escape; \" leaves the string unterminated).
func TestScanJSONStringWords(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for p := 0; p < n; p++ {
			for _, c := range []byte{'"', 0x00, 0x1f, '\\', 0x20, 0x7f, 0x80, 0xa2, 0xdc, 0xff} {
				b := bytes.Repeat([]byte{'a'}, n+2)
				b[0], b[n+1] = '"', '"'
				b[1+p] = c
				end, esc, err := scanJSONString(b, 0)
				switch {
				case c == '"':
					if err != nil || end != 1+p || esc {
						t.Fatalf("%q: end %d, esc %v, %v; want end %d", b, end, esc, err, 1+p)
					}
				case c < 0x20 || c == '\\': // a control byte; \a or an escaped closing quote
					if err == nil {
						t.Fatalf("%q: no error for the byte %#x at %d", b, c, 1+p)
					}
				default:
					if err != nil || end != n+1 || esc {
						t.Fatalf("%q: end %d, esc %v, %v; want end %d", b, end, esc, err, n+1)
					}
				}
			}
		}
	}
}
