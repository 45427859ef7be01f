package workload

// The log reader's benchmark beside its floor: the simplest loop doing the
// same work on the same file (bufio.Scanner over the lines, fields split
// with strings.IndexByte, the same integer and time parsing), which knows
// the writer's column order and that no field is quoted or escaped. One run
// prints both:
//
//	go test ./workload/ -run '^$' -bench LogRead -count 8

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// floorReadLog reads a LogWriter's log (csv or ndjson, gzipped or not)
// into events, calling use on each batch of len(buf).
func floorReadLog(path, format string, gz bool, buf []Event, use func([]Event)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		r = zr
	}
	base, _ := parseLogTime(LogTimeBase().Format(logTimeLayout))
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLogLine)
	if format == "csv" {
		sc.Scan() // the header
	}
	buf = buf[:0]
	var fields [8]string
	for sc.Scan() {
		line := sc.Text()
		if format == "ndjson" {
			line = line[1 : len(line)-1] // drop { and }
		}
		for i := range fields {
			j := strings.IndexByte(line, ',')
			if j < 0 {
				j = len(line)
			}
			fields[i] = line[:j]
			if format == "ndjson" { // "name":value → value, unquoted
				v := fields[i][strings.IndexByte(fields[i], ':')+1:]
				if v[0] == '"' {
					v = v[1 : len(v)-1]
				}
				fields[i] = v
			}
			line = line[min(j+1, len(line)):]
		}
		t, why := parseRFC3339Nanos(fields[0])
		key, err1 := strconv.ParseUint(fields[2], 10, 64)
		actor, err2 := strconv.ParseUint(fields[4], 10, 64)
		id, err3 := strconv.ParseUint(fields[5], 10, 64)
		delta, err4 := strconv.ParseInt(fields[6], 10, 64)
		if why != "" || err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return fmt.Errorf("floor: bad line %q", sc.Text())
		}
		var op Op
		switch fields[7] {
		case "read":
			op = Read
		case "set":
			op = Set
		}
		buf = append(buf, Event{At: t - base, Key: key, Actor: actor, ID: id, Delta: delta, Op: op})
		if len(buf) == cap(buf) {
			use(buf)
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		use(buf)
	}
	return sc.Err()
}

// benchLog writes the benchmark's log: a Stream's n events (Zipf keys at
// s = 1, 100,000 a second) named "phrase N", with their ids, in the format
// asked, and returns its path.
func benchLog(tb testing.TB, dir, format string, gz bool, n int64) (string, []Event) {
	s, err := NewStream(StreamConfig{Seed: 1, Label: "log", Events: n, Keys: 1_000_000, S: 1, Scramble: true, Rate: 100_000})
	if err != nil {
		tb.Fatal(err)
	}
	var evs []Event
	for i := range s.Chunks() {
		evs = append(evs, s.Chunk(i, nil)...)
	}
	path := filepath.Join(dir, fmt.Sprintf("bench-%s-%v", format, gz))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(f)
		w = zw
	}
	lw, err := NewLogWriter(w, format, func(k uint64) string { return "phrase " + strconv.FormatUint(s.RankOf(k), 10) })
	if err != nil {
		tb.Fatal(err)
	}
	if err := lw.Write(evs); err != nil {
		tb.Fatal(err)
	}
	if err := lw.Flush(); err != nil {
		tb.Fatal(err)
	}
	if zw != nil {
		zw.Close()
	}
	f.Close()
	return path, evs
}

// TestLogReadFloor checks that the floor reads the benchmark's logs into
// the same events as LogReader, so that the two measure the same work.
func TestLogReadFloor(t *testing.T) {
	dir := t.TempDir()
	n := int64(200_000)
	if testing.Short() {
		n = 20_000
	}
	for _, bc := range logBenchCases {
		path, evs := benchLog(t, dir, bc.format, bc.gz, n)
		var got []Event
		if err := floorReadLog(path, bc.format, bc.gz, make([]Event, 0, 1000), func(b []Event) { got = append(got, b...) }); err != nil {
			t.Fatal(err)
		}
		diffEvents(t, got, evs)
		got, _, err := readTestLog(t, ReplayConfig(path, bc.format), 1)
		if err != nil {
			t.Fatal(err)
		}
		diffEvents(t, got, evs)
	}
}

var logBenchCases = []struct {
	name   string
	format string
	gz     bool
}{
	{"csv", "csv", false},
	{"ndjson", "ndjson", false},
	{"csv.gz", "csv", true},
}

func BenchmarkLogRead(b *testing.B) {
	dir := b.TempDir()
	for _, bc := range logBenchCases {
		path, evs := benchLog(b, dir, bc.format, bc.gz, 200_000)
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		report := func(b *testing.B, runs int, m0 *runtime.MemStats) {
			var m1 runtime.MemStats
			runtime.ReadMemStats(&m1)
			events := float64(runs) * float64(len(evs))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/events, "ns/event")
			b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/events, "allocs/event")
		}
		b.Run("format="+bc.name+"/impl=floor", func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			buf := make([]Event, 0, 4096)
			var m0 runtime.MemStats
			runtime.ReadMemStats(&m0)
			runs := 0
			for b.Loop() {
				n := 0
				if err := floorReadLog(path, bc.format, bc.gz, buf, func(b []Event) { n += len(b) }); err != nil || n != len(evs) {
					b.Fatalf("floor: %d events, %v", n, err)
				}
				runs++
			}
			report(b, runs, &m0)
		})
		b.Run("format="+bc.name+"/impl=countsim", func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			buf := make([]Event, 0, 4096)
			var m0 runtime.MemStats
			runtime.ReadMemStats(&m0)
			runs := 0
			for b.Loop() {
				r, err := OpenLog(ReplayConfig(path, bc.format))
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					got, err := r.Read(buf[:0])
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					n += len(got)
				}
				r.Close()
				if n != len(evs) {
					b.Fatalf("%d events, want %d", n, len(evs))
				}
				runs++
			}
			report(b, runs, &m0)
		})
	}
}
