package workload

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// A recorded log replayed as events: a team's own log of views, searches or
// score changes, as CSV (a header line of column names, then one record a
// line, RFC 4180 quoting) or NDJSON (one JSON object a line), either of them
// gzipped or not (told by the content, not the name). LogReader streams it
// in batches in constant memory whatever its size: a 64 KiB read buffer,
// one record at a time, no record longer than MaxLogLine.
//
// A key string becomes the event's Key by XXH64 (seed 0,
// github.com/cespare/xxhash/v2), so two distinct strings share a Key with
// probability 2^−64 a pair: CollisionPairs gives the expected number of
// such pairs among n distinct keys (0.03 for a billion). Strings recovers
// the strings of the keys a report shows.
//
// Each format reads its records in a file of its own (logcsv.go,
// logjson.go); the time column is parsed in logtime.go; LogWriter
// (logwriter.go) writes the logs countsim gives as examples.

// MaxLogLine is the longest record a log may hold, in bytes: an NDJSON line
// longer than this is a bad line; a CSV record this long (most likely an
// unclosed quote that runs on over the lines after it) stops the reading.
const MaxLogLine = 4 << 20

// logBufSize is the size of a log's read buffers.
const logBufSize = 64 << 10

// LogConfig says how to read a log: where it is, its format, and which of
// its columns (CSV) or fields (NDJSON) make an Event. Every column named
// must exist (checked by OpenLog) and have a value on every line (else the
// line is bad). A value is a CSV field's text, or an NDJSON string's text or
// a number's literal text (so 12 and "12" are one key, 12.0 another); any
// other JSON value is bad.
type LogConfig struct {
	// Path is the log's file. It is gzipped when it starts with gzip's magic
	// bytes 1f 8b, whatever its name.
	Path string
	// Format is "csv" or "ndjson".
	Format string

	// Key is the column of the counted key, required. Its text hashed by
	// XXH64 (xxhash.Sum64String) is the event's Key, unless KeyID is set.
	Key string
	// KeyID, optional, is a column holding the key's 64-bit id in decimal
	// (0 to 2^64−1): the event's Key is that id, and Key is read only by
	// Strings. countsim's own sample logs carry it, so that a replay gives
	// the synthetic run's keys exactly.
	KeyID string

	// Time, optional, is the column of the event's time: either RFC 3339
	// (2026-01-01T05:30:00.25+05:30; 't', 'z' and a space for the 'T' are
	// accepted too) or a decimal number (no exponent) of Unix time whose
	// unit the magnitude n of its integer part tells: seconds if n < 10^11,
	// milliseconds if n < 10^14, microseconds if n < 10^17, else
	// nanoseconds. Every instant from 1973-03-03T09:46:40Z on thus reads
	// right in any unit, and so do seconds from any origin (0, 0.25, 1.5, …)
	// up to 3,170 years. Any unit may have a fraction, cut off at the ns.
	// A time must lie within int64 ns of 1970 (1677-09-21 to 2262-04-11).
	// The event's At is its time less Start, or less the first event's time
	// when Start is zero. Without Time, Rate spaces the events.
	Time string
	// Start, optional and only with Time, is the instant At counts from; a
	// line before it is bad. Zero: the first event's time, so its At is 0.
	Start time.Time
	// Tolerance, ≥ 0 and only with Time, is how far a time may go back: an
	// event up to Tolerance earlier than the latest time seen is accepted
	// with its At raised to the latest (At never decreases; Reordered counts
	// them); one earlier still is a bad line.
	Tolerance time.Duration
	// Rate, without Time, is the number of events a second: event i (from
	// 0, bad lines not counted) is at round(i·10^9/Rate) ns, as in a Stream.
	// It must be finite and > 0 without Time, and 0 with it.
	Rate float64

	// Actor, optional, is a column whose text hashed by XXH64 is the
	// event's Actor; ActorID, optional, a column holding the Actor in
	// decimal (an actor that is a region or node index must be one of
	// these). At most one of the two; neither: Actor 0.
	Actor   string
	ActorID string
	// ID, optional, is a column whose text hashed by XXH64 is the event's
	// ID (a request id); EventID, optional, a column holding the ID in
	// decimal. At most one of the two; neither: the event's index from 1
	// (bad lines not counted), as in a Stream.
	ID      string
	EventID string
	// Delta, optional, is the column of the event's Delta, a decimal int64;
	// without it every Delta is 1.
	Delta string
	// Op, optional, is the column of the event's Op: "write", "read" or
	// "set"; without it every event is a write.
	Op string
	// Score, optional, is a column of absolute scores (a leaderboard's): a
	// line with a decimal int64 there is a Set of that score (its Delta),
	// whatever Delta and Op say; a line with the field empty (in NDJSON,
	// null, or absent from a line but the first, whose fields name the
	// columns) is read without it.
	Score string
	// Node, optional, is the column of the node an event is counted on
	// (a split stream's): its Actor, the node's number from 0. A value is
	// a decimal number below Nodes, or else a name, numbered from 0 in the
	// order names first appear: a log names its nodes one way or the
	// other, and a line of the other way is bad. At most Nodes distinct
	// nodes. Not with Actor or ActorID.
	Node  string
	Nodes int

	// SkipBad is how many bad lines may be skipped (≥ 0): they are counted
	// (Skipped) and the first few kept (SkippedErrors); the next bad line
	// stops the reading with its error.
	SkipBad int
}

// LogError is a bad line: the file, the line (from 1; a CSV's header is line
// 1, and a quoted field's newlines count) and what is wrong with it.
type LogError struct {
	Path string
	Line int64
	Msg  string
}

// Error returns "PATH:LINE: MSG".
func (e *LogError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg) }

// logCol names a column of LogConfig.
type logCol int

const (
	colKey logCol = iota
	colKeyID
	colTime
	colActor
	colActorID
	colID
	colEventID
	colDelta
	colOp
	colScore
	colNode
	numLogCols

	colRecord logCol = -1 // the whole record, for logRecords.line
)

// String returns the LogConfig field that names the column.
func (c logCol) String() string {
	return [numLogCols]string{"Key", "KeyID", "Time", "Actor", "ActorID", "ID", "EventID", "Delta", "Op", "Score", "Node"}[c]
}

func (cfg *LogConfig) columns() [numLogCols]string {
	return [numLogCols]string{cfg.Key, cfg.KeyID, cfg.Time, cfg.Actor, cfg.ActorID, cfg.ID, cfg.EventID, cfg.Delta, cfg.Op, cfg.Score, cfg.Node}
}

// logRecords is one format's reading of a log, a record at a time.
type logRecords interface {
	// next moves to the next record. It returns io.EOF at the end, a
	// *LogError for a bad record (the next call reads on after it), a
	// fatalLogError when the reading cannot go on, or another error (the
	// file's, or gzip's).
	next() error
	// value returns column c's text in the current record, or "" and why
	// there is none. The text is valid until next is called.
	value(c logCol) (text, why string)
	// line returns the line where column c's value starts in the current
	// record, or where the record starts for colRecord.
	line(c logCol) int64
}

// fatalLogError is a LogError after which a log cannot be read on.
type fatalLogError struct{ *LogError }

// logFormats opens each format's records: it reads a CSV's header or an
// NDJSON's first line from text and checks the columns named in cols.
var logFormats = map[string]func(path string, text io.Reader, cols [numLogCols]string) (logRecords, error){
	"csv":    openCSVRecords,
	"ndjson": openJSONRecords,
}

// LogReader streams a recorded log as events (see LogConfig). It is not
// safe for concurrent use, except BytesRead and Size, which a progress
// report may call from any goroutine.
type LogReader struct {
	cfg   LogConfig
	cols  [numLogCols]string
	open  func(string, io.Reader, [numLogCols]string) (logRecords, error)
	in    *logInput
	src   logRecords
	start int64 // Start in ns since the Unix epoch, when set

	line, events, skipped, reordered int64
	t0, latest                       int64 // the time At counts from; the latest At
	started                          bool  // t0 is set
	err                              error // what the next Read returns: io.EOF or what stopped it
	skippedErrs                      []*LogError
	nodes                            map[string]uint64 // the nodes named so far, with Node
	nodeNumbers                      bool              // the node column has given a number
	count                            atomic.Int64      // bytes read from the file
	size                             int64
}

// MaxSkippedErrors is how many skipped bad lines SkippedErrors keeps.
const MaxSkippedErrors = 10

// OpenLog checks cfg, opens the log and reads its CSV header or its first
// NDJSON line, checking that every column cfg names exists there (an error
// names the file and the columns it has). An error of the config lists the
// values allowed.
func OpenLog(cfg LogConfig) (*LogReader, error) {
	r := &LogReader{cfg: cfg, cols: cfg.columns()}
	if err := r.check(); err != nil {
		return nil, err
	}
	in, err := openLogInput(cfg.Path, &r.count)
	if err != nil {
		return nil, err
	}
	if st, err := in.f.Stat(); err == nil {
		r.size = st.Size()
	}
	src, err := r.open(cfg.Path, in.text, r.cols)
	if err != nil {
		in.close()
		return nil, err
	}
	r.in, r.src = in, src
	r.line = src.line(colRecord)
	return r, nil
}

func (r *LogReader) check() error {
	cfg := &r.cfg
	if cfg.Path == "" {
		return errors.New("workload: log path is empty")
	}
	r.open = logFormats[cfg.Format]
	if r.open == nil {
		return fmt.Errorf("workload: log format %q not one of %s", cfg.Format, strings.Join(slices.Sorted(maps.Keys(logFormats)), ", "))
	}
	if cfg.Key == "" {
		return errors.New("workload: log key column not set (Key is required: the column of the counted key)")
	}
	if cfg.Actor != "" && cfg.ActorID != "" {
		return fmt.Errorf("workload: log actor column set twice, Actor %q (hashed) and ActorID %q (decimal): set one", cfg.Actor, cfg.ActorID)
	}
	if cfg.ID != "" && cfg.EventID != "" {
		return fmt.Errorf("workload: log id column set twice, ID %q (hashed) and EventID %q (decimal): set one", cfg.ID, cfg.EventID)
	}
	if cfg.SkipBad < 0 {
		return fmt.Errorf("workload: log skip bad %d not >= 0", cfg.SkipBad)
	}
	if cfg.Node != "" {
		if cfg.Actor != "" || cfg.ActorID != "" {
			return fmt.Errorf("workload: log node column %q set with an actor column: an event's node is its Actor (set one)", cfg.Node)
		}
		if cfg.Nodes < 1 || cfg.Nodes > MaxSplitNodes {
			return fmt.Errorf("workload: log nodes %d not in 1..%d (the Node column needs the number of nodes)", cfg.Nodes, MaxSplitNodes)
		}
		r.nodes = map[string]uint64{}
	}
	if cfg.Time == "" {
		if math.IsNaN(cfg.Rate) || math.IsInf(cfg.Rate, 0) || cfg.Rate <= 0 {
			return fmt.Errorf("workload: log rate %v events/s not a finite number > 0 (a log without a time column needs a rate)", cfg.Rate)
		}
		if !cfg.Start.IsZero() {
			return errors.New("workload: log start set without a time column (Start applies to Time)")
		}
		if cfg.Tolerance != 0 {
			return fmt.Errorf("workload: log tolerance %v set without a time column (Tolerance applies to Time)", cfg.Tolerance)
		}
		return nil
	}
	if cfg.Rate != 0 {
		return fmt.Errorf("workload: log rate %v set with the time column %q: set one (Rate spaces the events of a log without times)", cfg.Rate, cfg.Time)
	}
	if cfg.Tolerance < 0 {
		return fmt.Errorf("workload: log tolerance %v not >= 0", cfg.Tolerance)
	}
	if !cfg.Start.IsZero() {
		ns, ok := secondsNanos(cfg.Start.Unix(), int64(cfg.Start.Nanosecond()))
		if !ok {
			return fmt.Errorf("workload: log start %v %s", cfg.Start, errTimeRange)
		}
		r.start = ns
	}
	return nil
}

// Read appends the log's next events to buf, up to cap(buf) − len(buf) of
// them, and returns it. At the end it returns io.EOF; a bad line beyond
// SkipBad is a *LogError. An error comes with no event appended (events read
// before it are returned first, with a nil error) and every later Read
// returns it again. buf must have room.
func (r *LogReader) Read(buf []Event) ([]Event, error) {
	if r.err != nil {
		return buf, r.err
	}
	if len(buf) == cap(buf) {
		return buf, fmt.Errorf("workload: LogReader.Read into a full buffer (len = cap = %d)", cap(buf))
	}
	n0 := len(buf)
	for len(buf) < cap(buf) {
		if err := r.src.next(); err != nil {
			if bad, ok := err.(*LogError); ok {
				r.line = bad.Line
				if r.skip(bad) {
					continue
				}
				break
			}
			r.fail(err)
			break
		}
		r.line = r.src.line(colRecord)
		ev, bad, err := r.decode()
		if err != nil {
			r.fail(err)
			break
		}
		if bad != nil {
			if r.skip(bad) {
				continue
			}
			break
		}
		buf = append(buf, ev)
	}
	if len(buf) > n0 {
		return buf, nil
	}
	return buf, r.err
}

// skip counts a bad line and says whether it may be skipped; if not, it
// becomes the reader's error.
func (r *LogReader) skip(bad *LogError) bool {
	if r.skipped < int64(r.cfg.SkipBad) {
		r.skipped++
		if len(r.skippedErrs) < MaxSkippedErrors {
			r.skippedErrs = append(r.skippedErrs, bad)
		}
		return true
	}
	if r.cfg.SkipBad > 0 {
		bad.Msg += fmt.Sprintf(" (%d bad lines skipped before it, SkipBad %d)", r.skipped, r.cfg.SkipBad)
	}
	r.err = bad
	return false
}

func (r *LogReader) fail(err error) {
	switch e := err.(type) {
	case fatalLogError:
		r.err = e.LogError
	default:
		if err != io.EOF {
			err = fmt.Errorf("workload: log %s, after line %d: %w", r.cfg.Path, r.line, err)
		}
		r.err = err
	}
}

// Close closes the log's file. Read must not be called after it.
func (r *LogReader) Close() error {
	if r.in == nil {
		return nil
	}
	err := r.in.close()
	r.in = nil
	if r.err == nil {
		r.err = errors.New("workload: LogReader.Read after Close")
	}
	return err
}

// Line returns the line where the last record read starts, a bad one too
// (before any: the CSV header's line, or the blank lines an NDJSON log
// starts with).
func (r *LogReader) Line() int64 { return r.line }

// Events returns the number of events read.
func (r *LogReader) Events() int64 { return r.events }

// Skipped returns the number of bad lines skipped (at most SkipBad).
func (r *LogReader) Skipped() int64 { return r.skipped }

// SkippedErrors returns the first MaxSkippedErrors bad lines skipped.
func (r *LogReader) SkippedErrors() []*LogError { return slices.Clone(r.skippedErrs) }

// Reordered returns the number of events whose time was up to Tolerance
// before the latest, their At raised to it.
func (r *LogReader) Reordered() int64 { return r.reordered }

// BytesRead returns the bytes read so far of the file on disk (compressed,
// if it is): beside Size, the reading's progress. It runs ahead of the
// events returned by up to two read buffers (128 KiB). Safe for concurrent
// use.
func (r *LogReader) BytesRead() int64 { return r.count.Load() }

// Size returns the size of the log's file when it was opened.
func (r *LogReader) Size() int64 { return r.size }
