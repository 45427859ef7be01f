package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// FuzzReadJSON feeds ReadJSON, the reader of countsim diff's input, any
// bytes: it never panics; what it refuses is an error and no rows; what it
// accepts is one JSON array (nothing after it) whose rows WriteJSON writes
// and ReadJSON reads back equal, the second write the same bytes as the
// first. An error names the line where the input goes wrong and says what
// is allowed.
func FuzzReadJSON(f *testing.F) {
	real, err := os.ReadFile("testdata/results.json") // eight rows of a run of likes, one of trials
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	var written bytes.Buffer
	if err := WriteJSON(&written, sample()); err != nil {
		f.Fatal(err)
	}
	f.Add(written.Bytes())
	for _, s := range []string{
		"", "[]", "null", "[null]", "[{}]", "{}", "[1]", `[{"value": "1"}]`, `[{"value": 1e400}]`,
		"[\n  {\"value\": 1,\n  }\n]", `[{"timing": 1}]`, `[{"Value": 2, "VALUE": 3}]`, "[{\"note\": \"\xff\"}]",
		`[{"value": -0, "plan": 5e-324}]`, `[{"value": 1.7976931348623157e308}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			if rs != nil {
				t.Errorf("error %v with %d rows: want none", err, len(rs))
			}
			msg, ok := strings.CutPrefix(err.Error(), "metrics: reading results: ")
			if !ok {
				t.Errorf("error %q: want it to start %q", err, "metrics: reading results: ")
			}
			if len(bytes.Trim(data, " \t\r\n")) == 0 {
				if !strings.HasPrefix(msg, "empty (allowed: ") {
					t.Errorf("%q: error %q, want it to say empty", data, err)
				}
				return
			}
			var line int
			if _, serr := fmt.Sscanf(msg, "line %d: ", &line); serr != nil || line < 1 || line > 1+bytes.Count(data, []byte("\n")) {
				t.Errorf("%q: error %q names no line of the input", data, err)
			}
			if !strings.Contains(msg, "(allowed: ") {
				t.Errorf("%q: error %q does not say what is allowed", data, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted %q, which is not one JSON value", data)
		}
		if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '[' {
			t.Fatalf("accepted %q, which is not a JSON array", data)
		}
		var once bytes.Buffer
		if err := WriteJSON(&once, rs); err != nil {
			t.Fatalf("rows read from %q do not write: %v", data, err)
		}
		back, err := ReadJSON(bytes.NewReader(once.Bytes()))
		if err != nil {
			t.Fatalf("what WriteJSON wrote does not read back: %v\n%s", err, once.Bytes())
		}
		if !reflect.DeepEqual(back, rs) {
			t.Fatalf("round trip: read %+v, wrote and read back %+v", rs, back)
		}
		var twice bytes.Buffer
		if err := WriteJSON(&twice, back); err != nil || !bytes.Equal(twice.Bytes(), once.Bytes()) {
			t.Fatalf("a second write differs (%v):\n%s\nthen\n%s", err, once.Bytes(), twice.Bytes())
		}
	})
}

// ReadJSON's errors name the line and what is allowed there.
func TestReadJSONErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty (allowed: a JSON array of result rows"},
		{" \n\t", "empty (allowed: a JSON array of result rows"},
		{"\n null\n", "line 2: null (allowed: a JSON array of result rows"},
		{"[]\n[]", "line 2: invalid character '[' after top-level value (allowed: a JSON array"},
		{"[\n  {},\n]", "line 3: invalid character ']' looking for beginning of value"},
		{"[\n  {\"scenario\": \"s\",\n   \"value\": \"12\"}\n]", `line 3: field "value" is a JSON string (allowed: a number within ±1.7976931348623157e308, or null)`},
		{"[{\"plan\":\n1e400}]", `line 2: field "plan" is a JSON number 1e400 (allowed: a number within`},
		{"[\n{\"timing\": 1}]", `line 2: field "timing" is a JSON number (allowed: true or false)`},
		{"[{},\n 7]", "line 2: a row is a JSON number (allowed: an object: a result row)"},
		{"{\"scenario\": \"s\"}", "line 1: the top level is a JSON object (allowed: a JSON array of result rows"},
		{"[{\"scenario\": \"s\"}", "line 1: unexpected end of JSON input"},
	} {
		rs, err := ReadJSON(strings.NewReader(c.in))
		if err == nil || rs != nil || !strings.HasPrefix(err.Error(), "metrics: reading results: "+c.want) {
			t.Errorf("%q: got %d rows, error %v\nwant the error to start %q", c.in, len(rs), err, "metrics: reading results: "+c.want)
		}
	}
}
