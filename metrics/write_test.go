package metrics

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"
)

// CSV cells are plain decimals: a spreadsheet reads 1e+06 as text in some
// locales and a reader sees fewer digits than there are.
func TestCSVPlainDecimals(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{1e6, "1000000"}, {2e9, "2000000000"}, {1.2e-05, "0.000012"}, {-3.5e-7, "-0.00000035"},
		{1e21, "1000000000000000000000"}, {0.8125, "0.8125"}, {543660, "543660"}, {0, "0"},
		{1.0 / 3, "0.3333333333333333"}, {math.NaN(), "NaN"}, {math.Inf(1), "+Inf"},
	}
	var rs []Result
	var tb Table
	tb.Columns = []string{"v"}
	for _, c := range cases {
		rs = append(rs, Result{Scenario: "s", Strategy: "d", Metric: "m", Value: Measured(c.v), Plan: PlanOf(c.v), Scale: Sim})
		tb.Rows = append(tb.Rows, []float64{c.v})
	}
	var results, table bytes.Buffer
	if err := WriteCSV(&results, rs); err != nil {
		t.Fatal(err)
	}
	if err := WriteTableCSV(&table, tb); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&results).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	trows, err := csv.NewReader(&table).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		value, plan, cell := rows[i+1][4], rows[i+1][6], trows[i+1][0]
		if value != c.want || plan != c.want || cell != c.want {
			t.Errorf("%v: results.csv value %q, plan %q, table cell %q; want %q", c.v, value, plan, cell, c.want)
		}
		if strings.ContainsAny(value, "eE") && !math.IsInf(c.v, 0) {
			t.Errorf("%v: %q in exponent notation", c.v, value)
		}
		// Every digit kept: the cell reads back as the same float64.
		if back, err := strconv.ParseFloat(value, 64); err != nil || back != c.v && !math.IsNaN(c.v) {
			t.Errorf("%q reads back as %v (%v), want %v", value, back, err, c.v)
		}
	}
}
