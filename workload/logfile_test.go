package workload

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
)

// logTestEvents draws n events of every shape a log must carry: times that
// never decrease (equal ones, small and large steps), keys from a pool of
// n/4+1 (so they repeat), actors, ids and deltas over their whole range
// (extremes included), and all three ops.
func logTestEvents(seed uint64, n int) []Event {
	rng := rand.New(rand.NewPCG(seed, 0x6c6f67))
	pool := make([]uint64, n/4+1)
	for i := range pool {
		pool[i] = rng.Uint64()
	}
	pool[0] = 0
	if len(pool) > 1 {
		pool[1] = math.MaxUint64
	}
	var at int64
	evs := make([]Event, n)
	for i := range evs {
		switch rng.IntN(8) {
		case 0: // same time
		case 1:
			at += rng.Int64N(1e12) // up to 17 minutes
		default:
			at += rng.Int64N(1e6)
		}
		e := Event{At: at, Key: pool[rng.IntN(len(pool))], Op: Op(rng.IntN(3))}
		switch rng.IntN(3) {
		case 0:
			e.Actor, e.ID, e.Delta = rng.Uint64N(16), uint64(i+1), 1
		case 1:
			e.Actor, e.ID, e.Delta = rng.Uint64(), rng.Uint64(), rng.Int64()-rng.Int64()
		default:
			e.Actor, e.ID, e.Delta = math.MaxUint64, 0, [...]int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.IntN(4)]
		}
		evs[i] = e
	}
	return evs
}

// logTestKeyName names a key: plain words, and some with what CSV must
// quote and JSON must escape (commas, quotes, newlines, a tab, non-ASCII,
// a control character). The key is in every name, so names are distinct.
func logTestKeyName(key uint64) string {
	switch key % 7 {
	case 0:
		return fmt.Sprintf("ipl final %d", key)
	case 1:
		return fmt.Sprintf(`say "%d", twice`, key)
	case 2:
		return fmt.Sprintf("line\nbreak %x", key)
	case 3:
		return fmt.Sprintf("café ✓ 🏏 %d\t", key)
	case 4:
		return fmt.Sprintf(" lead and trail %d ", key)
	case 5:
		return fmt.Sprintf("ctl\x01 \\ / %d", key)
	}
	return fmt.Sprint(key)
}

// writeTestLog writes evs with a LogWriter to dir/name, gzipped if gz.
func writeTestLog(t testing.TB, path, format string, gz bool, evs []Event) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(f)
		w = zw
	}
	lw, err := NewLogWriter(w, format, logTestKeyName)
	if err != nil {
		t.Fatal(err)
	}
	for len(evs) > 0 {
		n := min(len(evs), 1+len(evs)/3)
		if err := lw.Write(evs[:n]); err != nil {
			t.Fatal(err)
		}
		evs = evs[n:]
	}
	if err := lw.Flush(); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// readTestLog reads the whole log of cfg in batches of random sizes and
// checks the counters and At's order on the way; a non-EOF error is
// returned with the events before it.
func readTestLog(t testing.TB, cfg LogConfig, seed uint64) ([]Event, *LogReader, error) {
	t.Helper()
	r, err := OpenLog(cfg)
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { r.Close() })
	rng := rand.New(rand.NewPCG(seed, 1))
	var all []Event
	for {
		buf := make([]Event, 0, 1+rng.IntN(300))
		buf, err := r.Read(buf)
		if len(buf) > 0 && err != nil {
			t.Fatalf("Read returned %d events and the error %v", len(buf), err)
		}
		all = append(all, buf...)
		if r.Events() != int64(len(all)) {
			t.Fatalf("Events() = %d after %d events", r.Events(), len(all))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if _, err2 := r.Read(make([]Event, 0, 1)); err2 != err {
				t.Fatalf("Read after the error %v returned %v, want it again", err, err2)
			}
			return all, r, err
		}
	}
	for i := 1; i < len(all); i++ {
		if all[i].At < all[i-1].At {
			t.Fatalf("event %d at %d, before event %d at %d", i, all[i].At, i-1, all[i-1].At)
		}
	}
	if r.BytesRead() != r.Size() {
		t.Errorf("at the end BytesRead() = %d, Size() = %d", r.BytesRead(), r.Size())
	}
	return all, r, nil
}

func diffEvents(t *testing.T, got, want []Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestLogRoundTrip writes events with LogWriter (CSV and NDJSON, plain and
// gzipped) and reads them back with ReplayConfig: the very same events.
// Strings recovers every key's name.
func TestLogRoundTrip(t *testing.T) {
	dir := t.TempDir()
	sizes := []int{0, 1, 2, 3, 17, 1000, 4099}
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for _, format := range []string{"csv", "ndjson"} {
		for _, gz := range []bool{false, true} {
			for seed := range uint64(seeds) {
				for _, n := range sizes {
					name := fmt.Sprintf("%s/gz=%v/seed=%d/n=%d", format, gz, seed, n)
					evs := logTestEvents(seed, n+int(seed))
					path := filepath.Join(dir, strings.ReplaceAll(name, "/", "_"))
					writeTestLog(t, path, format, gz, evs)
					got, r, err := readTestLog(t, ReplayConfig(path, format), seed)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					diffEvents(t, got, evs)
					if r.Skipped() != 0 || r.Reordered() != 0 {
						t.Errorf("%s: skipped %d, reordered %d, want 0", name, r.Skipped(), r.Reordered())
					}
					keys := make([]uint64, 0, len(evs))
					for _, e := range evs {
						keys = append(keys, e.Key)
					}
					names, err := r.Strings(append(keys, 12345)) // 12345: on no line
					if err != nil {
						t.Fatalf("%s: Strings: %v", name, err)
					}
					slices.Sort(keys)
					if len(names) != len(slices.Compact(keys)) {
						t.Errorf("%s: Strings found %d keys, want %d", name, len(names), len(keys))
					}
					for k, s := range names {
						if want := logTestKeyName(k); s != want {
							t.Fatalf("%s: Strings: key %d is %q, want %q", name, k, s, want)
						}
					}
				}
			}
		}
	}
}

// TestLogHashedKeys reads a log by its key names alone, spaced by Rate:
// Key is xxhash.Sum64String of the name, At is round(i·10^9/Rate), ID is
// the index from 1, Delta 1, Op write. Actor and ID columns read as text
// are hashed too. Strings maps the hashes back to the names.
func TestLogHashedKeys(t *testing.T) {
	dir := t.TempDir()
	evs := logTestEvents(7, 3000)
	for _, format := range []string{"csv", "ndjson"} {
		path := filepath.Join(dir, "log."+format)
		writeTestLog(t, path, format, false, evs)
		const rate = 3000.0 // 1/3 ms apart: rounding matters
		got, r, err := readTestLog(t, LogConfig{Path: path, Format: format, Key: "key", Rate: rate}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(evs) {
			t.Fatalf("%s: %d events, want %d", format, len(got), len(evs))
		}
		var keys []uint64
		for i, e := range got {
			want := Event{At: roundTime(float64(i) * 1e9 / rate), Key: xxhash.Sum64String(logTestKeyName(evs[i].Key)),
				Delta: 1, ID: uint64(i) + 1, Op: Write}
			if e != want {
				t.Fatalf("%s: event %d: got %+v, want %+v", format, i, e, want)
			}
			keys = append(keys, e.Key)
		}
		if got[1].At != 333333 || got[2].At != 666667 {
			t.Errorf("%s: At of events 1, 2 = %d, %d, want 333333, 666667", format, got[1].At, got[2].At)
		}
		names, err := r.Strings(keys[:50])
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys[:50] {
			if want := logTestKeyName(evs[i].Key); names[k] != want {
				t.Fatalf("%s: Strings: %#x is %q, want %q", format, k, names[k], want)
			}
		}

		got, _, err = readTestLog(t, LogConfig{Path: path, Format: format, Key: "key", Actor: "actor", ID: "id",
			Time: "time", Delta: "delta"}, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range got {
			if a := xxhash.Sum64String(fmt.Sprint(evs[i].Actor)); e.Actor != a {
				t.Fatalf("%s: event %d: Actor %#x, want the hash %#x of %d", format, i, e.Actor, a, evs[i].Actor)
			}
			if id := xxhash.Sum64String(fmt.Sprint(evs[i].ID)); e.ID != id {
				t.Fatalf("%s: event %d: ID %#x, want the hash %#x of %d", format, i, e.ID, id, evs[i].ID)
			}
			if e.At != evs[i].At-evs[0].At || e.Delta != evs[i].Delta {
				t.Fatalf("%s: event %d: got %+v, want At %d, Delta %d", format, i, e, evs[i].At-evs[0].At, evs[i].Delta)
			}
		}
	}
}

// writeLines writes a log line by line.
func writeLines(t testing.TB, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantLogError(t *testing.T, err error, path string, line int64, contains string) {
	t.Helper()
	var le *LogError
	if !errors.As(err, &le) {
		t.Fatalf("got the error %v (%T), want a *LogError at %s:%d", err, err, path, line)
	}
	if le.Path != path || le.Line != line || !strings.Contains(le.Msg, contains) {
		t.Fatalf("got %v, want %s:%d: …%s…", le, path, line, contains)
	}
	if want := fmt.Sprintf("%s:%d: ", path, line); !strings.HasPrefix(le.Error(), want) {
		t.Fatalf("Error() = %q, want it to start with %q", le.Error(), want)
	}
}

// TestLogBadLine12345 puts a bad delta on line 12,345 of 20,000: without
// SkipBad the reading stops there, after the 12,343 events of lines 2 to
// 12,344; with SkipBad 1 it reads on and skips that one line; two bad lines
// with SkipBad 1 stop at the second.
func TestLogBadLine12345(t *testing.T) {
	dir := t.TempDir()
	const lines, bad = 20_000, 12_345
	for _, format := range []string{"csv", "ndjson"} {
		text := make([]string, 0, lines)
		line := func(i int, delta string) string {
			if format == "csv" {
				return fmt.Sprintf("k%d,%s", i%100, delta)
			}
			return fmt.Sprintf(`{"k":"k%d","d":%s}`, i%100, delta)
		}
		if format == "csv" {
			text = append(text, "k,d")
		}
		for len(text) < lines {
			n := len(text) + 1
			text = append(text, line(n, fmt.Sprint(n)))
		}
		offset := 0 // NDJSON has no header
		if format == "ndjson" {
			offset = 1
		}
		text[bad-1] = line(bad, `"1.5"`)
		if format == "csv" {
			text[bad-1] = line(bad, "1.5")
		}
		path := filepath.Join(dir, "bad."+format)
		writeLines(t, path, text)
		cfg := LogConfig{Path: path, Format: format, Key: "k", Delta: "d", Rate: 1000}
		got, r, err := readTestLog(t, cfg, 3)
		wantLogError(t, err, path, bad, `"1.5" is not a decimal int64`)
		if len(got) != bad-2+offset || r.Line() != bad {
			t.Fatalf("%s: read %d events up to line %d, want %d up to line %d", format, len(got), r.Line(), bad-2+offset, bad)
		}
		if got[len(got)-1].Delta != bad-1 {
			t.Fatalf("%s: the last event before the bad line has delta %d, want %d", format, got[len(got)-1].Delta, bad-1)
		}

		cfg.SkipBad = 1
		got, r, err = readTestLog(t, cfg, 4)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != lines-2+offset || r.Skipped() != 1 {
			t.Fatalf("%s: SkipBad 1: %d events, %d skipped, want %d and 1", format, len(got), r.Skipped(), lines-2+offset)
		}
		if se := r.SkippedErrors(); len(se) != 1 || se[0].Line != bad {
			t.Fatalf("%s: SkippedErrors() = %v, want the line %d", format, se, bad)
		}
		if got[bad-2+offset].Delta != bad+1 || got[bad-2+offset].ID != uint64(bad-1+offset) {
			t.Fatalf("%s: the event after the bad line is %+v, want delta %d, ID %d", format, got[bad-2+offset], bad+1, bad-1+offset)
		}

		text[lines-2] = line(lines-1, `"x"`)
		writeLines(t, path, text)
		_, r, err = readTestLog(t, cfg, 5)
		wantLogError(t, err, path, lines-1, "1 bad lines skipped before it")
		if r.Skipped() != 1 {
			t.Fatalf("%s: Skipped() = %d, want 1", format, r.Skipped())
		}
	}
}

// TestLogTolerance: an event up to Tolerance before the latest is accepted
// at the latest time (counted); one further back is a bad line.
func TestLogTolerance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	writeLines(t, path, []string{
		"t,k",
		"10.000,a", // line 2: At 0
		"10.020,b", // 20 ms
		"10.011,c", // 9 ms back: raised to 20 ms
		"10.010,d", // 10 ms back: raised
		"10.030,e", // 30 ms
		"10.019,f", // 11 ms back: bad
		"10.040,g",
		"9.995,h", // 45 ms back, and before the first: bad
	})
	cfg := LogConfig{Path: path, Format: "csv", Key: "k", Time: "t", Tolerance: 10 * time.Millisecond}
	got, r, err := readTestLog(t, cfg, 6)
	wantLogError(t, err, path, 7, "11ms before the latest time, more than the tolerance 10ms")
	want := []int64{0, 20e6, 20e6, 20e6, 30e6}
	if len(got) != len(want) || r.Reordered() != 2 {
		t.Fatalf("got %d events, %d reordered, want %d and 2", len(got), r.Reordered(), len(want))
	}
	for i, e := range got {
		if e.At != want[i] {
			t.Fatalf("event %d at %d, want %d", i, e.At, want[i])
		}
	}
	cfg.SkipBad = 2
	got, r, err = readTestLog(t, cfg, 7)
	if err != nil || len(got) != 6 || got[5].At != 40e6 || r.Skipped() != 2 {
		t.Fatalf("SkipBad 2: %d events (last %+v), %d skipped, error %v; want 6 (last at 40 ms), 2, nil", len(got), got[len(got)-1], r.Skipped(), err)
	}
	if se := r.SkippedErrors(); len(se) != 2 || se[0].Line != 7 || se[1].Line != 9 {
		t.Fatalf("SkippedErrors() = %v, want lines 7 and 9", se)
	}

	// With Start, At counts from it, and a time before it is bad.
	cfg = LogConfig{Path: path, Format: "csv", Key: "k", Time: "t", Tolerance: 10 * time.Millisecond,
		Start: time.Unix(9, 0), SkipBad: 3}
	got, r, err = readTestLog(t, cfg, 8)
	if err != nil || len(got) != 6 || got[0].At != 1e9 || got[5].At != 1.040e9 || r.Skipped() != 2 {
		t.Fatalf("Start 9 s: %d events, first %+v, %d skipped, error %v", len(got), got[0], r.Skipped(), err)
	}
	cfg.Start, cfg.SkipBad = time.Unix(10, 0), 1
	_, _, err = readTestLog(t, cfg, 9)
	wantLogError(t, err, path, 9, "before the start")
}

// TestLogTimeColumn reads each time form through the reader: the same
// instant written six ways, then relative seconds.
func TestLogTimeColumn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	writeLines(t, path, []string{
		"time,k",
		"2026-01-01T00:00:00Z,a",
		"2026-01-01T05:30:00.5+05:30,b",
		"1767225601,c",
		"1767225601500,d",
		"1767225602000000.25,e", // 2 s + 250 ns
		"1767225602000000300,f",
		"2026-01-01 00:00:03.000000001z,g",
	})
	got, _, err := readTestLog(t, LogConfig{Path: path, Format: "csv", Key: "k", Time: "time"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 5e8, 1e9, 1.5e9, 2e9 + 250, 2e9 + 300, 3e9 + 1}
	for i, e := range got {
		if e.At != want[i] {
			t.Errorf("line %d: At %d, want %d", i+2, e.At, want[i])
		}
	}
	path = filepath.Join(dir, "t.ndjson")
	writeLines(t, path, []string{
		`{"t":0.5,"k":"a"}`, `{"t":"0.75","k":"b"}`, `{"t":1e3,"k":"c"}`, `{"t":2,"k":"d"}`,
	})
	got, r, err := readTestLog(t, LogConfig{Path: path, Format: "ndjson", Key: "k", Time: "t", SkipBad: 1}, 11)
	if err != nil || len(got) != 3 || got[1].At != 25e7 || got[2].At != 15e8 {
		t.Fatalf("relative seconds: %+v, error %v; want At 0, 0.25 s, 1.5 s", got, err)
	}
	if se := r.SkippedErrors(); len(se) != 1 || se[0].Line != 3 || !strings.Contains(se[0].Msg, `"1e3" is not RFC 3339 or a decimal`) {
		t.Fatalf("SkippedErrors() = %v, want line 3: 1e3 is not a decimal", se)
	}
}

// TestLogNDJSONValues: strings and numbers both serve, escapes are undone
// before hashing, blank lines are skipped but counted, and a value of the
// wrong kind, a missing field or a line that is no object is a bad line.
func TestLogNDJSONValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.ndjson")
	writeLines(t, path, []string{
		`{"k":"ipl final","id":"7","d":"5","op":"read","a":3}`,
		`{"k":12,"id":8,"d":-3,"op":"set","a":"x","extra":{"nested":[1,{"deep":null}]}}`,
		``,
		`   `,
		`{"op":"write","k":"caf\u00e9 \"q\"","id":18446744073709551615,"d":9223372036854775807,"a":1.5}`,
		`{"k":null,"id":1,"d":1,"op":"write","a":1}`,  // 6: null key
		`{"k":"a","id":1,"d":1,"op":"write"}`,         // 7: no a
		`{"k":"a","id":1.0,"d":1,"op":"write","a":1}`, // 8: id not an integer
		`{"k":"a","id":1,"d":1,"op":"delete","a":1}`,  // 9: unknown op
		`["k","a"]`, // 10: not an object
		`{"k":"a","id":1,"d":1,"op":"write","a":1`,                // 11: cut short
		`{"k":["a"],"id":1,"d":1,"op":"write","a":1}`,             // 12: an array key
		`{"k":"a","id":"-1","d":1,"op":"write","a":1}`,            // 13: negative id
		`{"k":"a","id":1,"d":"1e3","op":"write","a":1}`,           // 14: delta with exponent
		`{"k":"last","id":2,"d":2,"op":"write","a":true,"a":"y"}`, // 15: the last "a" wins
	})
	cfg := LogConfig{Path: path, Format: "ndjson", Key: "k", EventID: "id", Delta: "d", Op: "op", Actor: "a", Rate: 1, SkipBad: 9}
	got, r, err := readTestLog(t, cfg, 12)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{At: 0, Key: xxhash.Sum64String("ipl final"), ID: 7, Delta: 5, Op: Read, Actor: xxhash.Sum64String("3")},
		{At: 1e9, Key: xxhash.Sum64String("12"), ID: 8, Delta: -3, Op: Set, Actor: xxhash.Sum64String("x")},
		{At: 2e9, Key: xxhash.Sum64String(`café "q"`), ID: math.MaxUint64, Delta: math.MaxInt64, Op: Write, Actor: xxhash.Sum64String("1.5")},
		{At: 3e9, Key: xxhash.Sum64String("last"), ID: 2, Delta: 2, Op: Write, Actor: xxhash.Sum64String("y")},
	}
	diffEvents(t, got, want)
	wantBad := []struct {
		line int64
		msg  string
	}{
		{6, `field "k" (Key): null, not a string or a number`},
		{7, `field "a" (Actor): missing`},
		{8, `field "id" (EventID): "1.0" is not a decimal integer`},
		{9, `field "op" (Op): "delete" is not one of write, read, set`},
		{10, "not a JSON object: want '{' at column 1"},
		{11, "not a JSON object: want ',' or '}' at column 41"},
		{12, `field "k" (Key): an array, not a string or a number`},
		{13, `field "id" (EventID): "-1" is not a decimal integer`},
		{14, `field "d" (Delta): "1e3" is not a decimal int64`},
	}
	se := r.SkippedErrors()
	if len(se) != len(wantBad) || r.Line() != 15 {
		t.Fatalf("skipped %v, Line() = %d; want %d bad lines, Line() 15", se, r.Line(), len(wantBad))
	}
	for i, w := range wantBad {
		if se[i].Line != w.line || !strings.Contains(se[i].Msg, w.msg) {
			t.Errorf("bad line %d: got %v, want line %d: %s", i, se[i], w.line, w.msg)
		}
	}
}

// TestLogCSVLines: line numbers are the file's: a quoted field's newlines
// count, CRLF endings and a byte order mark change nothing, blank lines
// count; a bare quote or a wrong field count is a bad line at its line.
func TestLogCSVLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.csv")
	text := "\ufeffk,d\r\n" + // 1
		"\"two\r\nlines\",1\r\n" + // 2-3
		"\r\n" + // 4: blank
		"plain,2\r\n" + // 5
		"bare\"quote,3\r\n" + // 6: bad
		"\"three\n\nlines, \"\"quoted\"\"\",4\n" + // 7-9
		"few\n" + // 10: bad, one field
		"a,x\n" + // 11: bad delta
		"end,5" // 12, no newline
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := LogConfig{Path: path, Format: "csv", Key: "k", Delta: "d", Rate: 1, SkipBad: 3}
	got, r, err := readTestLog(t, cfg, 13)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"two\nlines", "plain", "three\n\nlines, \"quoted\"", "end"}
	if len(got) != len(names) || r.Line() != 12 {
		t.Fatalf("got %d events up to line %d, want %d up to line 12", len(got), r.Line(), len(names))
	}
	for i, e := range got {
		if e.Key != xxhash.Sum64String(names[i]) || e.Delta != []int64{1, 2, 4, 5}[i] {
			t.Errorf("event %d: %+v, want key %q", i, e, names[i])
		}
	}
	se := r.SkippedErrors()
	want := []struct {
		line int64
		msg  string
	}{{6, `bare " in non-quoted-field (column 5)`}, {10, "1 fields, the header has 2"}, {11, `column "d" (Delta): "x"`}}
	for i, w := range want {
		if i >= len(se) || se[i].Line != w.line || !strings.Contains(se[i].Msg, w.msg) {
			t.Fatalf("skipped %v, want line %d: %s", se, w.line, w.msg)
		}
	}
	m, err := r.Strings([]uint64{got[2].Key})
	if err != nil || m[got[2].Key] != names[2] {
		t.Fatalf("Strings: %v, %v; want %q", m, err, names[2])
	}
}

// TestLogMissingColumn: a column the config names and the log lacks is
// refused at open, naming the file and the columns it has.
func TestLogMissingColumn(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "m.csv")
	writeLines(t, csvPath, []string{"time,phrase,user", "1,a,b"})
	_, err := OpenLog(LogConfig{Path: csvPath, Format: "csv", Key: "query", Time: "time"})
	want := fmt.Sprintf(`workload: log %s has no column "query" (Key); its header (line 1) has "time", "phrase", "user"`, csvPath)
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	_, err = OpenLog(LogConfig{Path: csvPath, Format: "csv", Key: "phrase", Delta: "n", Rate: 1})
	if err == nil || !strings.Contains(err.Error(), `no column "n" (Delta)`) {
		t.Fatalf("got %v, want no column n", err)
	}
	writeLines(t, csvPath, []string{"k,k", "a,b"})
	_, err = OpenLog(LogConfig{Path: csvPath, Format: "csv", Key: "k", Rate: 1})
	if err == nil || !strings.Contains(err.Error(), `the column "k" (Key) twice, fields 1 and 2`) {
		t.Fatalf("got %v, want the column twice", err)
	}

	jsonPath := filepath.Join(dir, "m.ndjson")
	writeLines(t, jsonPath, []string{"", `{"time":1,"phrase":"a","user":"b"}`})
	_, err = OpenLog(LogConfig{Path: jsonPath, Format: "ndjson", Key: "phrase", Actor: "who", Time: "time"})
	want = fmt.Sprintf(`workload: log %s has no field "who" (Actor) on its first line 2; its fields: "time", "phrase", "user"`, jsonPath)
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	writeLines(t, jsonPath, []string{`{"time":1,`})
	_, err = OpenLog(LogConfig{Path: jsonPath, Format: "ndjson", Key: "phrase", Rate: 1})
	wantLogError(t, err, jsonPath, 1, "not a JSON object")
}

// TestLogConfigErrors: each wrong config is refused with what is allowed.
func TestLogConfigErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.csv")
	writeLines(t, path, []string{"k,t", "a,1"})
	ok := LogConfig{Path: path, Format: "csv", Key: "k", Rate: 10}
	for _, tc := range []struct {
		edit func(*LogConfig)
		want string
	}{
		{func(c *LogConfig) { c.Format = "json" }, `log format "json" not one of csv, ndjson`},
		{func(c *LogConfig) { c.Format = "" }, `log format "" not one of csv, ndjson`},
		{func(c *LogConfig) { c.Path = "" }, "log path is empty"},
		{func(c *LogConfig) { c.Key = "" }, "Key is required"},
		{func(c *LogConfig) { c.Rate = 0 }, "log rate 0 events/s not a finite number > 0"},
		{func(c *LogConfig) { c.Rate = math.Inf(1) }, "log rate +Inf events/s not a finite number > 0"},
		{func(c *LogConfig) { c.Time = "t" }, `log rate 10 set with the time column "t": set one`},
		{func(c *LogConfig) { c.Tolerance = time.Second }, "tolerance 1s set without a time column"},
		{func(c *LogConfig) { c.Start = time.Unix(1, 0) }, "start set without a time column"},
		{func(c *LogConfig) { c.Time, c.Rate, c.Tolerance = "t", 0, -1 }, "log tolerance -1ns not >= 0"},
		{func(c *LogConfig) { c.Time, c.Rate, c.Start = "t", 0, time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC) }, "log start 3000-01-01"},
		{func(c *LogConfig) { c.Actor, c.ActorID = "a", "b" }, "set one"},
		{func(c *LogConfig) { c.ID, c.EventID = "a", "b" }, "set one"},
		{func(c *LogConfig) { c.SkipBad = -1 }, "skip bad -1 not >= 0"},
		{func(c *LogConfig) { c.Path += ".nothere" }, "no such file"},
	} {
		cfg := ok
		tc.edit(&cfg)
		r, err := OpenLog(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want …%s…", cfg, err, tc.want)
		}
		if r != nil {
			t.Errorf("%+v: got a reader with the error", cfg)
		}
	}
	if _, err := NewLogWriter(io.Discard, "tsv", logTestKeyName); err == nil || !strings.Contains(err.Error(), `"tsv" not one of csv, ndjson`) {
		t.Errorf("NewLogWriter tsv: got %v", err)
	}
}

// TestLogGzipByContent: a gzipped log named .csv and a plain one named .gz
// both read; BytesRead counts the file's (compressed) bytes; a log cut short
// is an error naming the path, after the events before the cut.
func TestLogGzipByContent(t *testing.T) {
	dir := t.TempDir()
	evs := logTestEvents(11, 5000)
	gzPath, plainPath := filepath.Join(dir, "really-gzip.csv"), filepath.Join(dir, "really-plain.csv.gz")
	writeTestLog(t, gzPath, "csv", true, evs)
	writeTestLog(t, plainPath, "csv", false, evs)
	var sizes [2]int64
	for i, path := range []string{gzPath, plainPath} {
		got, r, err := readTestLog(t, ReplayConfig(path, "csv"), 14)
		if err != nil {
			t.Fatal(err)
		}
		diffEvents(t, got, evs)
		st, _ := os.Stat(path)
		if r.Size() != st.Size() || r.BytesRead() != st.Size() {
			t.Fatalf("%s: Size %d, BytesRead %d, want the file's %d", path, r.Size(), r.BytesRead(), st.Size())
		}
		sizes[i] = st.Size()
	}
	if sizes[0]*2 > sizes[1] {
		t.Fatalf("the gzipped log has %d bytes, the plain one %d: not compressed?", sizes[0], sizes[1])
	}

	b, _ := os.ReadFile(gzPath)
	cutPath := filepath.Join(dir, "cut.csv.gz")
	if err := os.WriteFile(cutPath, b[:len(b)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err := readTestLog(t, ReplayConfig(cutPath, "csv"), 15)
	if err == nil || !strings.Contains(err.Error(), cutPath) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a cut gzip: got %v, want an unexpected EOF naming %s", err, cutPath)
	}
	if len(got) < len(evs)/3 {
		t.Fatalf("a cut gzip: %d events before the error, want most of the first 2/3 of %d", len(got), len(evs))
	}
	diffEvents(t, got, evs[:len(got)])

	// Strings stops once it has found its keys: the cut does not matter.
	r, err := OpenLog(ReplayConfig(cutPath, "csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m, err := r.Strings([]uint64{evs[0].Key, evs[10].Key})
	if err != nil || len(m) != 2 {
		t.Fatalf("Strings on a cut log: %v, %v; want both keys found", m, err)
	}
	if _, err = r.Strings([]uint64{12345}); err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Strings of a key on no line of a cut log: got %v, want unexpected EOF", err)
	}

	corrupt := filepath.Join(dir, "corrupt.csv")
	if err := os.WriteFile(corrupt, []byte{0x1f, 0x8b, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLog(ReplayConfig(corrupt, "csv")); err == nil || !strings.Contains(err.Error(), "gzip header is bad") {
		t.Fatalf("a bad gzip header: got %v", err)
	}
}

// TestLogEmpty: an empty CSV has no header (an error), one with a header
// alone and an empty NDJSON have no events.
func TestLogEmpty(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLog(LogConfig{Path: empty, Format: "csv", Key: "k", Rate: 1}); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Fatalf("an empty CSV: got %v, want is empty", err)
	}
	got, _, err := readTestLog(t, LogConfig{Path: empty, Format: "ndjson", Key: "k", Rate: 1}, 16)
	if err != nil || len(got) != 0 {
		t.Fatalf("an empty NDJSON: %d events, %v", len(got), err)
	}
	header := filepath.Join(dir, "header.csv")
	writeLines(t, header, []string{"k"})
	got, _, err = readTestLog(t, LogConfig{Path: header, Format: "csv", Key: "k", Rate: 1}, 17)
	if err != nil || len(got) != 0 {
		t.Fatalf("a header alone: %d events, %v", len(got), err)
	}
}

// TestLogReadContract: Read needs room, returns its error again, and fails
// after Close.
func TestLogReadContract(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.csv")
	writeLines(t, path, []string{"k", "a", "b"})
	r, err := OpenLog(LogConfig{Path: path, Format: "csv", Key: "k", Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(make([]Event, 2)); err == nil {
		t.Fatal("Read into a full buffer: no error")
	}
	buf, err := r.Read(make([]Event, 1, 2))
	if err != nil || len(buf) != 2 || buf[1].Key != xxhash.Sum64String("a") {
		t.Fatalf("Read after one event: %+v, %v", buf, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(make([]Event, 0, 2)); err == nil {
		t.Fatal("Read after Close: no error")
	}
	if err := r.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

// TestLogLongRecord: a CSV record with an unclosed quote stops the reading
// once it passes MaxLogLine, rather than taking the rest of the log into
// memory; an NDJSON line that long is a bad line, and the reading goes on.
func TestLogLongRecord(t *testing.T) {
	dir := t.TempDir()
	filler := strings.Repeat("x", 1000)
	csvPath := filepath.Join(dir, "long.csv")
	lines := []string{"k", "ok", `"unclosed`}
	for range MaxLogLine/1000 + 200 {
		lines = append(lines, filler)
	}
	writeLines(t, csvPath, lines)
	got, _, err := readTestLog(t, LogConfig{Path: csvPath, Format: "csv", Key: "k", Rate: 1, SkipBad: 5}, 18)
	wantLogError(t, err, csvPath, 3, "an unclosed quote?")
	if len(got) != 1 {
		t.Fatalf("%d events before the long record, want 1", len(got))
	}

	jsonPath := filepath.Join(dir, "long.ndjson")
	writeLines(t, jsonPath, []string{`{"k":"a"}`, `{"k":"` + strings.Repeat("y", MaxLogLine) + `"}`, `{"k":"b"}`,
		`{"k":"` + strings.Repeat("z", MaxLogLine-8) + `"}`})
	got, r, err := readTestLog(t, LogConfig{Path: jsonPath, Format: "ndjson", Key: "k", Rate: 1, SkipBad: 1}, 19)
	if err != nil || len(got) != 3 || got[1].Key != xxhash.Sum64String("b") || got[2].Key != xxhash.Sum64String(strings.Repeat("z", MaxLogLine-8)) {
		t.Fatalf("NDJSON with a long line: %d events, %v", len(got), err)
	}
	if se := r.SkippedErrors(); len(se) != 1 || se[0].Line != 2 || !strings.Contains(se[0].Msg, "line longer than") {
		t.Fatalf("SkippedErrors() = %v, want line 2 too long", se)
	}
}

func TestLogRateOverflow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.csv")
	writeLines(t, path, []string{"k", "a", "b", "c"})
	got, _, err := readTestLog(t, LogConfig{Path: path, Format: "csv", Key: "k", Rate: 1e-10, SkipBad: 5}, 20)
	wantLogError(t, err, path, 3, "beyond int64 time")
	if len(got) != 1 {
		t.Fatalf("%d events, want 1", len(got))
	}
}

func TestCollisionPairs(t *testing.T) {
	for _, tc := range []struct{ n, want float64 }{
		{0, 0}, {1, 0}, {2, 0x1p-64}, {0x1p32, 0x1p32 * (0x1p32 - 1) / 0x1p65}, {1e9, 0.027105054285032557}, // 999999999·10^9 / 2^65, exactly rounded
	} {
		if got := CollisionPairs(tc.n); got != tc.want {
			t.Errorf("CollisionPairs(%v) = %v, want %v", tc.n, got, tc.want)
		}
	}
	// One expected pair at n ≈ 2^32.5 = 6.07e9.
	if got := CollisionPairs(math.Sqrt(0x1p65) + 0.5); math.Abs(got-1) > 1e-9 {
		t.Errorf("CollisionPairs(2^32.5) = %v, want 1", got)
	}
}

// TestLogAllocs pins the allocations a line: one for CSV (encoding/csv's
// record string) and one for NDJSON (the wanted values' string), plus for a
// gzipped log what gunzipping it alone costs (compress/flate allocates a
// little for each block), plus a constant a log (the buffers). The count of
// a log of 30,000 events less that of its first 10,000 must be 20,000 ±
// 0.2% (a reader that allocated per field, or per event besides, would
// fail). No timing involved.
func TestLogAllocs(t *testing.T) {
	dir := t.TempDir()
	sizes := [2]int{10_000, 30_000}
	if testing.Short() {
		sizes = [2]int{2_000, 6_000}
	}
	evs := logTestEvents(21, sizes[1])
	for _, tc := range []struct {
		format string
		gz     bool
	}{{"csv", false}, {"ndjson", false}, {"csv", true}, {"ndjson", true}} {
		var allocs, gunzip [2]float64
		for i, n := range sizes {
			path := filepath.Join(dir, fmt.Sprintf("a-%s-%v-%d", tc.format, tc.gz, n))
			writeTestLog(t, path, tc.format, tc.gz, evs[:n])
			buf := make([]Event, 0, 4096)
			allocs[i] = testing.AllocsPerRun(2, func() {
				r, err := OpenLog(ReplayConfig(path, tc.format))
				if err != nil {
					t.Fatal(err)
				}
				for {
					var err error
					if _, err = r.Read(buf[:0]); err != nil {
						break
					}
				}
				r.Close()
			})
			if tc.gz {
				gunzip[i] = testing.AllocsPerRun(2, func() {
					f, err := os.Open(path)
					if err != nil {
						t.Fatal(err)
					}
					zr, err := gzip.NewReader(f)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := io.Copy(io.Discard, zr); err != nil {
						t.Fatal(err)
					}
					f.Close()
				})
			}
		}
		lines := float64(sizes[1] - sizes[0])
		perLine := (allocs[1] - allocs[0] - (gunzip[1] - gunzip[0])) / lines
		fixed := allocs[0] - gunzip[0] - perLine*float64(sizes[0])
		t.Logf("%s gz=%v: %.0f and %.0f allocations (gunzip alone %.0f and %.0f): %.4f a line, %.0f a log",
			tc.format, tc.gz, allocs[0], allocs[1], gunzip[0], gunzip[1], perLine, fixed)
		if math.Abs(perLine-1) > 0.002 || fixed > 1000 {
			t.Errorf("%s gz=%v: %.4f allocations a line and %.0f a log, want 1 and at most 1,000", tc.format, tc.gz, perLine, fixed)
		}
	}
}

// TestLogMemory reads a log of 200 MB (20 MB with -short), generated here,
// and checks that memory stays flat: the heap in use never passes 32 MB
// (the reader needs under 1 MB; the rest is the garbage a GC cycle may
// leave, the heap goal being 4 MB or twice the live heap), and what is
// still live after a collection at the end exceeds what it was a quarter of
// the way in by under 1 MB (a reader keeping 16 bytes an event would keep
// 3 MB of a 20 MB log).
func TestLogMemory(t *testing.T) {
	size := int64(200 << 20)
	if testing.Short() {
		size = 20 << 20
	}
	path := filepath.Join(t.TempDir(), "big.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	lw, err := NewLogWriter(f, "csv", func(k uint64) string { return "phrase " + fmt.Sprint(k%100_000) })
	if err != nil {
		t.Fatal(err)
	}
	evs := logTestEvents(22, 10_000)
	var at int64
	for written := int64(0); written < size; written += 10_000 * 90 {
		for i := range evs {
			evs[i].At, at = at, at+1000
		}
		if err := lw.Write(evs); err != nil {
			t.Fatal(err)
		}
	}
	if err := lw.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(path)

	defer debug.SetGCPercent(debug.SetGCPercent(100))
	r, err := OpenLog(ReplayConfig(path, "csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	liveHeap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base := liveHeap()
	// What other tests hold (a test paused by t.Parallel keeps what it
	// allocated; -shuffle orders them at random) is not the reader's: the
	// bound is on the heap in use above what was in use before it read.
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	var quarter, peak uint64
	buf := make([]Event, 0, 4096)
	for batches := 0; ; batches++ {
		if _, err = r.Read(buf[:0]); err != nil {
			break
		}
		if quarter == 0 && r.BytesRead() > st.Size()/4 {
			quarter = liveHeap()
		}
		if batches%64 == 0 {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		}
	}
	if err != io.EOF {
		t.Fatal(err)
	}
	end := liveHeap()
	t.Logf("%d MB, %d events: live heap %.2f MB at the start, %.2f MB a quarter in, %.2f MB at the end; heap in use at most %.1f MB, %.1f MB before",
		st.Size()>>20, r.Events(), float64(base)/(1<<20), float64(quarter)/(1<<20), float64(end)/(1<<20), float64(peak)/(1<<20), float64(m0.HeapInuse)/(1<<20))
	if grew := int64(peak) - int64(m0.HeapInuse); grew > 32<<20 {
		t.Errorf("heap in use grew by %.1f MB while reading, want under 32 MB", float64(grew)/(1<<20))
	}
	if end > quarter+1<<20 {
		t.Errorf("live heap grew from %.2f MB a quarter in to %.2f MB at the end: the reader keeps something per event", float64(quarter)/(1<<20), float64(end)/(1<<20))
	}
	if r.Events() < size/100 {
		t.Fatalf("%d events in %d bytes", r.Events(), st.Size())
	}
}

// TestParseDecimal holds parseDecimalU64 and parseDecimalI64 to strconv on
// the edges and on random strings of digits, signs and other bytes.
func TestParseDecimal(t *testing.T) {
	check := func(s string) {
		u, ok := parseDecimalU64(s)
		wu, err := strconv.ParseUint(s, 10, 64)
		if ok != (err == nil) || (ok && u != wu) {
			t.Fatalf("parseDecimalU64(%q) = %d, %v; strconv: %d, %v", s, u, ok, wu, err)
		}
		i, ok := parseDecimalI64(s)
		wi, err := strconv.ParseInt(s, 10, 64)
		if ok != (err == nil) || (ok && i != wi) {
			t.Fatalf("parseDecimalI64(%q) = %d, %v; strconv: %d, %v", s, i, ok, wi, err)
		}
	}
	for _, s := range []string{"", "0", "-0", "+0", "-", "+", "00000000000000000000000000042", "18446744073709551615",
		"18446744073709551616", "99999999999999999999", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "1_000", "0x10", " 1", "1 ", "1.0", "1e3", "++1", "-+1"} {
		check(s)
	}
	rng := rand.New(rand.NewPCG(23, 24))
	const alphabet = "0123456789012345678901234567890123456789-+ x"
	for range 200_000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(string(b))
	}
}
