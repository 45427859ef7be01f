package workload

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
)

// The CSV side of LogReader: encoding/csv (RFC 4180 quoting; a quoted
// field may hold newlines, and its line numbers count them) with
// ReuseRecord, so that a record costs the one string encoding/csv makes of
// it. The first record is the header of column names; every later record
// must have as many fields. Blank lines are skipped (encoding/csv's rule),
// still counted.

// errRecordTooLong stops a CSV record beyond MaxLogLine.
var errRecordTooLong = errors.New("record too long")

// recordLimit passes on the bytes of r up to max, so that a CSV record with
// an unclosed quote cannot take the rest of the log into memory: after each
// record, max is moved to MaxLogLine past its end (plus the buffer ahead).
type recordLimit struct {
	r      io.Reader
	n, max int64
}

func (l *recordLimit) Read(p []byte) (int, error) {
	rem := l.max - l.n
	if rem <= 0 {
		return 0, errRecordTooLong
	}
	if int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

// mark notes that the records up to off (csv.Reader.InputOffset) are read;
// 3 bytes more for a byte order mark dropped before the csv.Reader.
func (l *recordLimit) mark(off int64) { l.max = off + 3 + MaxLogLine + logBufSize }

// csvRecords reads a CSV log a record at a time (logRecords).
type csvRecords struct {
	path  string
	cr    *csv.Reader
	lim   *recordLimit
	width int             // the header's fields
	idx   [numLogCols]int // each column's field
	rec   []string        // the current record
	lineN int64           // its first line
}

func openCSVRecords(path string, text io.Reader, cols [numLogCols]string) (logRecords, error) {
	c := &csvRecords{path: path, lim: &recordLimit{r: text}}
	c.lim.mark(0)
	br := bufio.NewReaderSize(c.lim, logBufSize)
	skipBOM(br)
	c.cr = csv.NewReader(br) // reads br itself: it is a *bufio.Reader
	c.cr.FieldsPerRecord = -1
	c.cr.ReuseRecord = true
	err := c.next()
	switch e := err.(type) {
	case nil:
	case *LogError:
		e.Msg = "header: " + e.Msg
		return nil, e
	case fatalLogError:
		return nil, e.LogError
	default:
		if err == io.EOF {
			return nil, fmt.Errorf("workload: log %s is empty: a CSV log starts with a header line of column names", path)
		}
		return nil, fmt.Errorf("workload: log %s: %w", path, err)
	}
	header := slices.Clone(c.rec)
	c.width = len(header)
	for col, name := range cols {
		c.idx[col] = -1
		if name == "" {
			continue
		}
		for i, h := range header {
			if h != name {
				continue
			}
			if c.idx[col] >= 0 {
				return nil, fmt.Errorf("workload: log %s has the column %q (%s) twice, fields %d and %d of its header",
					path, name, logCol(col), c.idx[col]+1, i+1)
			}
			c.idx[col] = i
		}
		if c.idx[col] < 0 {
			return nil, fmt.Errorf("workload: log %s has no column %q (%s); its header (line %d) has %s",
				path, name, logCol(col), c.lineN, listNames(header))
		}
	}
	return c, nil
}

func (c *csvRecords) next() error {
	rec, err := c.cr.Read()
	c.lim.mark(c.cr.InputOffset())
	if err != nil {
		if pe, ok := err.(*csv.ParseError); ok {
			c.lineN = int64(pe.StartLine)
			msg := pe.Err.Error()
			if pe.Line != pe.StartLine {
				msg += fmt.Sprintf(" (line %d, column %d)", pe.Line, pe.Column)
			} else {
				msg += fmt.Sprintf(" (column %d)", pe.Column)
			}
			return &LogError{Path: c.path, Line: c.lineN, Msg: msg}
		}
		if errors.Is(err, errRecordTooLong) {
			return fatalLogError{&LogError{Path: c.path, Line: c.lineN + 1,
				Msg: fmt.Sprintf("a record from about here runs on for more than %d bytes (an unclosed quote?)", MaxLogLine)}}
		}
		return err
	}
	c.rec = rec
	line, _ := c.cr.FieldPos(0)
	c.lineN = int64(line)
	if c.width > 0 && len(rec) != c.width {
		return &LogError{Path: c.path, Line: c.lineN, Msg: fmt.Sprintf("%d fields, the header has %d", len(rec), c.width)}
	}
	return nil
}

func (c *csvRecords) value(col logCol) (string, string) { return c.rec[c.idx[col]], "" }

func (c *csvRecords) line(col logCol) int64 {
	if col == colRecord {
		return c.lineN
	}
	line, _ := c.cr.FieldPos(c.idx[col])
	return int64(line)
}
