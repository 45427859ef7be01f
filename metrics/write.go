package metrics

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// WriteJSON writes results as an indented JSON array, in the given order.
// A value or plan that is NaN or infinite has no JSON form: it is an error
// naming the row, and nothing is written.
func WriteJSON(w io.Writer, results []Result) error {
	if results == nil {
		results = []Result{}
	}
	for _, r := range results {
		if !finite(r.Value) || !finite(r.Plan) {
			return fmt.Errorf("metrics: %s %s %s: value %s (plan %s) is not a finite number", r.Scenario, r.Strategy, r.Metric, cellOf(r.Value), cellOf(r.Plan))
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(results)
}

// ReadJSON reads what WriteJSON wrote: one JSON array of rows, nothing
// after it. Anything else (an empty input, null, a value of the wrong
// type, bytes after the array) is an error that says the line where the
// input goes wrong and what is allowed there; no rows come with it.
func ReadJSON(r io.Reader) ([]Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("metrics: reading results: %w", err)
	}
	const allowed = "a JSON array of result rows, as countsim run writes in results.json"
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	if start == len(data) {
		return nil, fmt.Errorf("metrics: reading results: empty (allowed: %s)", allowed)
	}
	var rs []Result
	err = json.Unmarshal(data, &rs)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return nil, fmt.Errorf("metrics: reading results: line %d: %v (allowed: %s)", lineAt(data, syntax.Offset), err, allowed)
	case errors.As(err, &typ):
		where := "the top level"
		if typ.Field != "" {
			where = fmt.Sprintf("field %q", typ.Field)
		} else if typ.Type.Kind() == reflect.Struct {
			where = "a row"
		}
		return nil, fmt.Errorf("metrics: reading results: line %d: %s is a JSON %s (allowed: %s)", lineAt(data, typ.Offset), where, typ.Value, jsonKind(typ.Type))
	case err != nil:
		return nil, fmt.Errorf("metrics: reading results: %w", err)
	case rs == nil:
		return nil, fmt.Errorf("metrics: reading results: line %d: null (allowed: %s)", lineAt(data, int64(start)), allowed)
	}
	return rs, nil
}

// lineAt is the line (from 1) of data's byte offset.
func lineAt(data []byte, offset int64) int {
	return 1 + bytes.Count(data[:min(max(offset, 0), int64(len(data)))], []byte("\n"))
}

// jsonKind says what JSON a field of type t takes, for ReadJSON's errors.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float64:
		return "a number within ±1.7976931348623157e308, or null"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Struct:
		return "an object: a result row"
	}
	return "a JSON array of result rows, as countsim run writes in results.json"
}

// csvHeader is the first row WriteCSV writes: the columns named as the
// report names them (a row's Strategy is its design, its Value what was
// measured).
var csvHeader = []string{"scenario", "step", "design", "metric", "measured", "unit", "plan", "scale", "timing", "partial", "stat", "note"}

// WriteCSV writes results with a header row: scenario, step (empty for a
// scenario not told in steps), design, metric, measured, unit, plan,
// scale, timing, partial, stat and note. Numbers are written in full
// precision as plain decimals (see [plainNumber]); an absent value or plan
// is an empty cell.
func WriteCSV(w io.Writer, results []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, r := range results {
		row := []string{r.Scenario, r.Step, r.Strategy, string(r.Metric), cellOf(r.Value),
			r.Unit, cellOf(r.Plan), string(r.Scale), strconv.FormatBool(r.Timing), strconv.FormatBool(r.Partial), r.Stat, r.Note}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes one table per scenario: strategy, metric, measured
// value, plan and note. Figures read off the wall clock are marked with ⏱;
// full-scale rows are marked "(full scale)"; a row not measured has an
// empty measured cell.
func WriteMarkdown(w io.Writer, results []Result) error {
	var b strings.Builder
	scenario := "\x00"
	for _, r := range results {
		if r.Scenario != scenario {
			if scenario != "\x00" {
				b.WriteString("\n")
			}
			scenario = r.Scenario
			fmt.Fprintf(&b, "| %s: design | metric | measured | plan | unit | note |\n", r.Scenario)
			b.WriteString("|---|---|---:|---:|---|---|\n")
		}
		plan, value := "", ""
		if r.Plan != nil {
			plan = Format(*r.Plan)
		}
		if r.Value != nil {
			value = Format(*r.Value)
		}
		metric := r.Label()
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", cell(r.Strategy), cell(metric),
			value, plan, cell(r.Unit), cell(r.Note))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Label is the row's metric as the tables name it: with its statistic over
// trials, ⏱ when read off the clock, and "(full scale)".
func (r Result) Label() string {
	m := string(r.Metric)
	if r.Stat != "" {
		m += " (" + r.Stat + ")"
	}
	if r.Timing {
		m += " ⏱"
	}
	if r.Scale == Full {
		m += " (full scale)"
	}
	return m
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// finite reports whether an optional number is absent or finite.
func finite(x *float64) bool { return x == nil || !math.IsNaN(*x) && !math.IsInf(*x, 0) }

// cellOf writes an optional number as plainNumber does, or "" when absent.
func cellOf(x *float64) string {
	if x == nil {
		return ""
	}
	return plainNumber(*x)
}

// plainNumber writes v for a CSV file: the shortest decimal that reads back
// as v, never in exponent notation (1000000, not 1e+06; 0.000012, not
// 1.2e-05), so that every spreadsheet and CSV reader takes it as a number
// and the cell shows every digit. NaN and infinities are "NaN", "+Inf" and
// "-Inf".
func plainNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Format renders a number for people: integers with thousands separators,
// other values with four significant digits (1,234.5; 0.01234; 1.2e-07).
func Format(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return group(strconv.FormatInt(int64(v), 10))
	case math.Abs(v) >= 1000 && math.Abs(v) < 1e15:
		s := strconv.FormatFloat(v, 'f', 1, 64)
		i := strings.IndexByte(s, '.')
		return group(s[:i]) + s[i:]
	case math.Abs(v) >= 1e-4:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strconv.FormatFloat(v, 'e', 2, 64)
}

// group inserts thousands separators into an integer string.
func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// WriteTableCSV writes a table with its header row, numbers in full
// precision as plain decimals (see [plainNumber]).
func WriteTableCSV(w io.Writer, t Table) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Heads()); err != nil {
		return err
	}
	off := 0
	if t.LabelColumn != "" {
		off = 1
	}
	row := make([]string, off+len(t.Columns))
	for j, r := range t.Rows {
		if off == 1 {
			row[0] = t.label(j)
		}
		for i := range t.Columns {
			row[off+i] = ""
			if i < len(r) {
				row[off+i] = plainNumber(r[i])
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteTableMarkdown writes a table as markdown, numbers as Format shows them.
func WriteTableMarkdown(w io.Writer, t Table) error {
	var b strings.Builder
	heads := t.Heads()
	b.WriteString("| " + strings.Join(heads, " | ") + " |\n|")
	if t.LabelColumn != "" {
		b.WriteString("---|")
	}
	for range t.Columns {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for i := range t.Rows {
		b.WriteString("|")
		for _, c := range t.Cells(i) {
			b.WriteString(" " + cell(c) + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
