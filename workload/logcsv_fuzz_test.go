package workload

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// FuzzLogCSV reads arbitrary bytes as a CSV log and holds LogReader to a
// reading of its own, made with encoding/csv and strconv: the same events
// (every field as the record has it), the same bad lines at the same
// lines, and the same first error. The columns read are those the header
// names: key or k (else the header's first field), key_id, time or t,
// actor (decimal), id (decimal), delta or d, op; without a time column the
// events are one a second. Every bad line is skipped (up to 1<<30), and
// tolerance is 0. A gzipped input (1f 8b) is only read, for panics.
func FuzzLogCSV(f *testing.F) {
	for _, s := range logCSVSeeds(f) {
		f.Add(s)
	}
	path := filepath.Join(f.TempDir(), "fuzz.csv") // one file: a process runs one input at a time
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		checkLogCSV(t, path, data)
	})
}

// logCSVSeeds are real CSV logs: LogWriter's of every event shape (keys
// that need quoting included), gzipped too, the lines TestLogCSVLines
// reads, and logs with a time column in each form it takes.
func logCSVSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, n := range []int{0, 1, 12} {
		var b bytes.Buffer
		lw, err := NewLogWriter(&b, "csv", logTestKeyName)
		if err != nil {
			tb.Fatal(err)
		}
		if err := lw.Write(logTestEvents(uint64(n), n)); err != nil {
			tb.Fatal(err)
		}
		if err := lw.Flush(); err != nil {
			tb.Fatal(err)
		}
		out = append(out, bytes.Clone(b.Bytes()))
		if n == 12 {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(b.Bytes())
			zw.Close()
			out = append(out, z.Bytes())
		}
	}
	for _, s := range []string{
		"\ufeffk,d\r\n\"two\r\nlines\",1\r\n\r\nplain,2\r\nbare\"quote,3\r\n\"three\n\nlines, \"\"quoted\"\"\",4\nfew\na,x\nend,5",
		"time,phrase,user\n1,a,b\n",
		"k,t\na,2026-01-01T00:00:00Z\nb,2026-01-01t00:00:00.5z\nc,2026-01-01 00:00:01+00:00\nd,1767225601.25\ne,1767225602000\nf,1767225600\n",
		"k,t,d,op\na,0,1,write\nb,0.5,-3,read\nc,0.25,+7,set\nd,1,9223372036854775808,write\ne,2,1,delete\n",
		"key,key_id,actor,id\nx,18446744073709551615,0,1\ny,18446744073709551616,1,2\nz,-1,2,3\n",
		"k,k\na,b\n",
		"k\n\"unclosed\n",
		"k,d\n",
		"",
	} {
		out = append(out, []byte(s))
	}
	return out
}

// logCSVRoles are the header names FuzzLogCSV reads each column from, in
// order of preference.
var logCSVRoles = []struct {
	col   logCol
	names []string
}{
	{colKey, []string{"key", "k"}}, {colKeyID, []string{"key_id"}}, {colTime, []string{"time", "t"}},
	{colActorID, []string{"actor"}}, {colEventID, []string{"id"}}, {colDelta, []string{"delta", "d"}}, {colOp, []string{"op"}},
}

// wantBad is a bad line the reference reading finds: its line and what
// its message must hold.
type wantBad struct {
	line int64
	msg  []string
}

func checkLogCSV(t *testing.T, path string, data []byte) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		// gzip: read for panics and for error types only.
		r, err := OpenLog(LogConfig{Path: path, Format: "csv", Key: "k", Rate: 1, SkipBad: 1 << 30})
		if err == nil {
			for {
				_, err := r.Read(make([]Event, 0, 64))
				if err != nil {
					break
				}
			}
			r.Close()
		}
		return
	}
	text := bytes.TrimPrefix(data, []byte("\ufeff"))
	ref := csv.NewReader(bytes.NewReader(text))
	ref.FieldsPerRecord = -1
	header, herr := ref.Read()
	// The config the header gives.
	cfg := LogConfig{Path: path, Format: "csv", SkipBad: 1 << 30}
	var names [numLogCols]string
	for _, role := range logCSVRoles {
		for _, n := range role.names {
			if herr == nil && indexOf(header, n) >= 0 {
				names[role.col] = n
				break
			}
		}
	}
	if names[colKey] == "" {
		names[colKey] = "k" // a log without a header is refused before its columns are looked for
		if herr == nil {
			names[colKey] = header[0]
		}
	}
	cfg.Key, cfg.KeyID, cfg.Time, cfg.ActorID, cfg.EventID, cfg.Delta, cfg.Op =
		names[colKey], names[colKeyID], names[colTime], names[colActorID], names[colEventID], names[colDelta], names[colOp]
	if cfg.Time == "" {
		cfg.Rate = 1
	}
	r, err := OpenLog(cfg)
	switch {
	case cfg.Key == "":
		if err == nil || !strings.Contains(err.Error(), "key column not set") {
			t.Fatalf("no key column: opened with %v", err)
		}
		return
	case herr == io.EOF:
		if err == nil || !strings.Contains(err.Error(), "is empty") {
			t.Fatalf("an empty log opened with %v, want an error saying so", err)
		}
		return
	case herr != nil:
		var pe *csv.ParseError
		var le *LogError
		if !errors.As(herr, &pe) || !errors.As(err, &le) || le.Line != int64(pe.StartLine) || !strings.HasPrefix(le.Msg, "header: "+pe.Err.Error()) ||
			!strings.Contains(le.Msg, fmt.Sprintf("column %d)", pe.Column)) {
			t.Fatalf("a bad header (%v) opened with %v, want a *LogError at its line and column", herr, err)
		}
		return
	}
	var idx [numLogCols]int
	for c, n := range names {
		idx[c] = -1
		if n == "" {
			continue
		}
		if i := indexOf(header, n); lastIndexOf(header, n) != i {
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("has the column %q", n)) {
				t.Fatalf("header %q has %q twice: opened with %v", header, n, err)
			}
			return
		} else {
			idx[c] = i
		}
	}
	if err != nil {
		t.Fatalf("header %q, config %+v: %v", header, cfg, err)
	}
	defer r.Close()

	// The reference reading: every later record, decoded from its fields.
	var want []Event
	var bads []wantBad
	var t0, latest int64
	started := false
	for {
		rec, err := ref.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("encoding/csv: %v", err)
			}
			where := fmt.Sprintf(" (column %d)", pe.Column)
			if pe.Line != pe.StartLine {
				where = fmt.Sprintf(" (line %d, column %d)", pe.Line, pe.Column)
			}
			bads = append(bads, wantBad{int64(pe.StartLine), []string{pe.Err.Error() + where}})
			continue
		}
		recLine, _ := ref.FieldPos(0)
		if len(rec) != len(header) {
			bads = append(bads, wantBad{int64(recLine), []string{fmt.Sprintf("%d fields, the header has %d", len(rec), len(header))}})
			continue
		}
		bad := func(c logCol, msg string) {
			line, _ := ref.FieldPos(idx[c])
			bads = append(bads, wantBad{int64(line), []string{fmt.Sprintf("column %q (%v): ", names[c], c), msg}})
		}
		ev := Event{Delta: 1, ID: uint64(len(want)) + 1}
		var ok bool
		decimal := func(c logCol, dst *uint64) bool {
			v, err := strconv.ParseUint(rec[idx[c]], 10, 64)
			if err != nil {
				bad(c, "is not a decimal integer")
				return false
			}
			*dst = v
			return true
		}
		if cfg.KeyID != "" {
			ok = decimal(colKeyID, &ev.Key)
		} else {
			ev.Key, ok = xxhash.Sum64String(rec[idx[colKey]]), true
		}
		if ok && cfg.ActorID != "" {
			ok = decimal(colActorID, &ev.Actor)
		}
		if ok && cfg.EventID != "" {
			ok = decimal(colEventID, &ev.ID)
		}
		if ok && cfg.Delta != "" {
			d, err := strconv.ParseInt(rec[idx[colDelta]], 10, 64)
			if ok = err == nil; ok {
				ev.Delta = d
			} else {
				bad(colDelta, "is not a decimal int64")
			}
		}
		if ok && cfg.Op != "" {
			switch rec[idx[colOp]] {
			case "write":
				ev.Op = Write
			case "read":
				ev.Op = Read
			case "set":
				ev.Op = Set
			default:
				ok = false
				bad(colOp, "is not one of write, read, set")
			}
		}
		if !ok {
			continue
		}
		if cfg.Time == "" {
			ev.At = int64(len(want)) * 1e9
			want = append(want, ev)
			continue
		}
		tm, why := parseLogTime(rec[idx[colTime]])
		if why != "" {
			bad(colTime, string(why))
			continue
		}
		if !started {
			t0 = tm
		}
		at := new(big.Int).Sub(big.NewInt(tm), big.NewInt(t0))
		switch {
		case at.Cmp(big.NewInt(math.MaxInt64)) > 0:
			bad(colTime, "is more than 292 years after the first time")
			continue
		case started && at.Cmp(big.NewInt(latest)) < 0: // tolerance 0
			bad(colTime, "before the latest time")
			continue
		}
		ev.At = at.Int64()
		started, latest = true, ev.At
		want = append(want, ev)
	}

	var got []Event
	for {
		buf, err := r.Read(make([]Event, 0, 7))
		got = append(got, buf...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d events: %v (%d bad lines expected, all skipped)", len(got), err, len(bads))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d (bad lines: got %v, want %v)", len(got), len(want), r.SkippedErrors(), bads)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if r.Skipped() != int64(len(bads)) {
		t.Fatalf("skipped %d lines, want %d: %v", r.Skipped(), len(bads), bads)
	}
	for i, e := range r.SkippedErrors() {
		w := bads[i]
		if e.Path != path || e.Line != w.line {
			t.Fatalf("bad line %d: got %v, want line %d: %q", i, e, w.line, w.msg)
		}
		for _, m := range w.msg {
			if !strings.Contains(e.Msg, m) {
				t.Fatalf("bad line %d: got %v, want it to hold %q", i, e, m)
			}
		}
	}
}

func indexOf(fields []string, s string) int {
	for i, f := range fields {
		if f == s {
			return i
		}
	}
	return -1
}

func lastIndexOf(fields []string, s string) int {
	for i := len(fields) - 1; i >= 0; i-- {
		if fields[i] == s {
			return i
		}
	}
	return -1
}
