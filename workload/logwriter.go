package workload

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The columns a LogWriter writes, in order: what ReplayConfig reads back.
const (
	logColTime    = "time"     // RFC 3339 with 9 fraction digits: LogTimeBase + At
	logColKey     = "key"      // keyName(Key)
	logColKeyID   = "key_id"   // Key in decimal
	logColActor   = "actor"    // actorName(Actor): Actor in decimal unless NameActors
	logColActorID = "actor_id" // Actor in decimal
	logColID      = "id"       // ID in decimal
	logColDelta   = "delta"    // Delta in decimal
	logColOp      = "op"       // write, read or set
)

// logTimeLayout is RFC 3339 with every nanosecond digit, so that the time
// column has one width.
const logTimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// LogTimeBase is the instant a LogWriter writes At 0 as:
// 2026-01-01T00:00:00Z.
func LogTimeBase() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// LogWriter writes events as a log that LogReader reads, CSV or NDJSON
// with the columns time, key, key_id, actor, actor_id, id, delta and op
// (see ReplayConfig): the example log of a built-in scenario, with string
// keys and actors.
//
// CSV fields are quoted as RFC 4180 says when they hold a comma, a quote or
// a line break. NDJSON puts the three 64-bit ids (key_id, actor, id) in
// strings, as many JSON tools read numbers as float64 and would round them
// beyond 2^53; a key name's bytes that are not UTF-8 become U+FFFD there
// (JSON text is UTF-8), so its key_id is the key and its hash is not. In
// CSV, a key name's "\r\n" reads back as "\n" (encoding/csv's rule).
//
// Writes are buffered: call Flush at the end. A LogWriter is not safe for
// concurrent use.
type LogWriter struct {
	w       io.Writer
	ndjson  bool
	keyName func(uint64) string
	actName func(uint64) string // nil: the actor column holds the id
	base    time.Time
	buf     []byte
	err     error // sticky
}

// NewLogWriter returns a writer of format ("csv" or "ndjson") to w; keyName
// gives each key's string. The CSV header is written with the first Flush.
func NewLogWriter(w io.Writer, format string, keyName func(key uint64) string) (*LogWriter, error) {
	if _, ok := logFormats[format]; !ok {
		return nil, fmt.Errorf("workload: log format %q not one of %s", format, strings.Join(slices.Sorted(maps.Keys(logFormats)), ", "))
	}
	if w == nil || keyName == nil {
		return nil, errors.New("workload: NewLogWriter needs a writer and a keyName")
	}
	lw := &LogWriter{w: w, ndjson: format == "ndjson", keyName: keyName, base: LogTimeBase(),
		buf: make([]byte, 0, logBufSize+1024)}
	if !lw.ndjson {
		lw.buf = append(lw.buf, strings.Join([]string{logColTime, logColKey, logColKeyID, logColActor, logColActorID, logColID, logColDelta, logColOp}, ",")...)
		lw.buf = append(lw.buf, '\n')
	}
	return lw, nil
}

// NameActors makes the actor column the string actorName gives each actor
// (a viewer's, a region's name), the actor_id column keeping its id. Call
// it before the first Write.
func (w *LogWriter) NameActors(actorName func(actor uint64) string) { w.actName = actorName }

// ReplayConfig returns the config that reads back, from path, what a
// LogWriter of format wrote: the same events (At, Key, Actor, ID, Delta,
// Op), the At counted from LogTimeBase.
func ReplayConfig(path, format string) LogConfig {
	return LogConfig{
		Path:    path,
		Format:  format,
		Key:     logColKey,
		KeyID:   logColKeyID,
		Time:    logColTime,
		Start:   LogTimeBase(),
		ActorID: logColActorID,
		EventID: logColID,
		Delta:   logColDelta,
		Op:      logColOp,
	}
}

// Write writes the batch's events, a line each. An event whose Op is none
// of Write, Read and Set is an error, and so is a write error of w (every
// later call returns it too).
func (w *LogWriter) Write(batch []Event) error {
	if w.err != nil {
		return w.err
	}
	for i := range batch {
		e := &batch[i]
		if e.Op > Set {
			w.err = fmt.Errorf("workload: log writer: event with id %d has op %d, not write, read or set", e.ID, e.Op)
			return w.err
		}
		if w.ndjson {
			w.appendJSON(e)
		} else {
			w.appendCSV(e)
		}
		if len(w.buf) >= logBufSize {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *LogWriter) appendCSV(e *Event) {
	b := w.base.Add(time.Duration(e.At)).AppendFormat(w.buf, logTimeLayout)
	b = append(b, ',')
	b = appendCSVField(b, w.keyName(e.Key))
	b = append(b, ',')
	b = strconv.AppendUint(b, e.Key, 10)
	b = append(b, ',')
	if w.actName != nil {
		b = appendCSVField(b, w.actName(e.Actor))
	} else {
		b = strconv.AppendUint(b, e.Actor, 10)
	}
	b = append(b, ',')
	b = strconv.AppendUint(b, e.Actor, 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, e.ID, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, e.Delta, 10)
	b = append(b, ',')
	b = append(b, e.Op.String()...)
	w.buf = append(b, '\n')
}

func (w *LogWriter) appendJSON(e *Event) {
	b := append(w.buf, `{"`+logColTime+`":"`...)
	b = w.base.Add(time.Duration(e.At)).AppendFormat(b, logTimeLayout)
	b = append(b, `","`+logColKey+`":`...)
	b = appendJSONString(b, w.keyName(e.Key))
	b = append(b, `,"`+logColKeyID+`":"`...)
	b = strconv.AppendUint(b, e.Key, 10)
	b = append(b, `","`+logColActor+`":`...)
	if w.actName != nil {
		b = appendJSONString(b, w.actName(e.Actor))
	} else {
		b = append(b, '"')
		b = strconv.AppendUint(b, e.Actor, 10)
		b = append(b, '"')
	}
	b = append(b, `,"`+logColActorID+`":"`...)
	b = strconv.AppendUint(b, e.Actor, 10)
	b = append(b, `","`+logColID+`":"`...)
	b = strconv.AppendUint(b, e.ID, 10)
	b = append(b, `","`+logColDelta+`":`...)
	b = strconv.AppendInt(b, e.Delta, 10)
	b = append(b, `,"`+logColOp+`":"`...)
	b = append(b, e.Op.String()...)
	w.buf = append(b, "\"}\n"...)
}

// appendCSVField appends s as a CSV field, quoted when it holds a comma, a
// quote or a line break (RFC 4180), or is empty (so that a record of one
// empty field is not an empty line).
func appendCSVField(b []byte, s string) []byte {
	if s != "" && !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// appendJSONString appends s as a JSON string: '"' and '\\' escaped, control
// characters as \n, \r, \t or \u00XX, bytes that are not UTF-8 as U+FFFD
// (as encoding/json does).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}

// Flush writes what is buffered to the underlying writer (it does not
// flush or close that writer: close a gzip.Writer yourself).
func (w *LogWriter) Flush() error {
	if w.err != nil {
		return w.err
	}
	if len(w.buf) == 0 {
		return nil
	}
	if _, err := w.w.Write(w.buf); err != nil {
		w.err = fmt.Errorf("workload: log writer: %w", err)
		return w.err
	}
	w.buf = w.buf[:0]
	return nil
}
