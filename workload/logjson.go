package workload

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The NDJSON side of LogReader: one JSON object a line (RFC 8259), read by a
// small scanner of its own rather than encoding/json, which would allocate a
// map and a value per field on every line. The scanner validates the whole
// line as encoding/json does (a fuzz test holds the two to the same verdict
// and the same values) and keeps only the fields the config names: their
// text is copied into one buffer and made a string once, so a line costs
// one allocation whatever its width. Duplicate names: the last wins, as in
// encoding/json. Strings are unescaped (\uXXXX surrogate pairs joined, a
// lone surrogate read as U+FFFD, as encoding/json does); bytes that are not
// UTF-8 are kept as they are (encoding/json would make them U+FFFD), so a
// key hashes the same whether a CSV or an NDJSON line carries it.

// jsonMaxDepth is the deepest nesting of objects and arrays accepted, that
// of encoding/json.
const jsonMaxDepth = 10000

// jsonRecords reads an NDJSON log a line at a time (logRecords).
type jsonRecords struct {
	path  string
	br    *bufio.Reader
	obj   jsonMembers
	wants []jsonWant // the columns the config names
	lineN int64      // the current line
	long  []byte     // a line longer than br's buffer
	held  bool       // long holds the first line, read at open, to parse next

	// the current record
	arena []byte                // the wanted values' text, one after another
	str   string                // arena as a string, made once a line
	kind  [numLogCols]jsonKind  // each column's kind; jsonNone: absent
	span  [numLogCols][2]uint32 // each column's text: str[span[0]:span[1]]
}

type jsonWant struct {
	name string
	col  logCol
}

// openJSONRecords reads the first line that is not blank, checks that it
// is an object naming every column of cols, and holds it for the first
// next(). An empty log has no events and no columns to check.
func openJSONRecords(path string, text io.Reader, cols [numLogCols]string) (logRecords, error) {
	j := &jsonRecords{path: path, br: bufio.NewReaderSize(text, logBufSize)}
	skipBOM(j.br)
	for c, name := range cols {
		if name != "" {
			j.wants = append(j.wants, jsonWant{name, logCol(c)})
		}
	}
	for {
		line, err := j.readLine()
		if err == io.EOF {
			return j, nil
		}
		if err != nil {
			return nil, err
		}
		if skipJSONSpace(line, 0) == len(line) {
			continue
		}
		var names []string
		err = j.obj.reset(line)
		for err == nil {
			var ok bool
			if ok, err = j.obj.next(); !ok {
				break
			}
			names = append(names, string(j.obj.m.name))
		}
		if err != nil {
			return nil, &LogError{Path: path, Line: j.lineN, Msg: err.Error()}
		}
		for c, name := range cols {
			if name != "" && !slices.Contains(names, name) {
				return nil, fmt.Errorf("workload: log %s has no field %q (%s) on its first line %d; its fields: %s",
					path, name, logCol(c), j.lineN, listNames(names))
			}
		}
		j.long = append(j.long[:0], line...)
		j.held = true
		j.lineN--
		return j, nil
	}
}

// parse reads the wanted members of the object on line into the record.
func (j *jsonRecords) parse(line []byte) error {
	j.arena = j.arena[:0]
	j.kind = [numLogCols]jsonKind{}
	if err := j.obj.reset(line); err != nil {
		return err
	}
	m := &j.obj.m
	for {
		ok, err := j.obj.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		for _, w := range j.wants {
			if len(w.name) != len(m.name) || w.name != string(m.name) {
				continue
			}
			j.kind[w.col] = m.kind
			start := len(j.arena)
			if m.kind == jsonString || m.kind == jsonNumber {
				if m.esc {
					j.arena = unescapeJSON(j.arena, m.raw)
				} else {
					j.arena = append(j.arena, m.raw...)
				}
			}
			j.span[w.col] = [2]uint32{uint32(start), uint32(len(j.arena))}
		}
	}
}

// readLine returns the next line, its newline dropped, valid until the next
// call. A line longer than MaxLogLine is a *LogError (the next call reads
// on after it).
func (j *jsonRecords) readLine() ([]byte, error) {
	if j.held {
		j.held = false
		j.lineN++
		return j.long, nil
	}
	line, err := j.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		j.long = append(j.long[:0], line...)
		tooLong := false
		for err == bufio.ErrBufferFull {
			line, err = j.br.ReadSlice('\n')
			if len(j.long)+len(line) > MaxLogLine+1 {
				tooLong = true
				j.long = j.long[:0]
			}
			j.long = append(j.long, line...)
		}
		if tooLong && (err == nil || err == io.EOF) {
			j.lineN++
			return nil, &LogError{Path: j.path, Line: j.lineN, Msg: fmt.Sprintf("line longer than %d bytes", MaxLogLine)}
		}
		line = j.long
	}
	if err == io.EOF && len(line) > 0 {
		err = nil // a last line without a newline
	}
	if err != nil {
		return nil, err
	}
	j.lineN++
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	return line, nil
}

func (j *jsonRecords) next() error {
	for {
		line, err := j.readLine()
		if err != nil {
			return err
		}
		if skipJSONSpace(line, 0) == len(line) {
			continue // a blank line
		}
		if err := j.parse(line); err != nil {
			return &LogError{Path: j.path, Line: j.lineN, Msg: err.Error()}
		}
		j.str = string(j.arena)
		return nil
	}
}

func (j *jsonRecords) value(c logCol) (string, string) {
	switch k := j.kind[c]; k {
	case jsonString, jsonNumber:
		sp := j.span[c]
		return j.str[sp[0]:sp[1]], ""
	case jsonNone:
		return "", "missing"
	default:
		return "", k.String() + ", not a string or a number"
	}
}

func (j *jsonRecords) line(logCol) int64 { return j.lineN }

// listNames lists column names for an error message: quoted, the first 30.
func listNames(names []string) string {
	const most = 30
	var b strings.Builder
	for i, n := range names {
		if i == most {
			fmt.Fprintf(&b, " and %d more", len(names)-most)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", clip(n))
	}
	if len(names) == 0 {
		b.WriteString("none")
	}
	return b.String()
}
