package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestParseLogTimeTable(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano() // 1767225600 s
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"2026-01-01T00:00:00Z", base},
		{"2026-01-01t00:00:00z", base},
		{"2026-01-01 00:00:00Z", base},
		{"2026-01-01T00:00:00.5Z", base + 5e8},
		{"2026-01-01T00:00:00.000000001Z", base + 1},
		{"2026-01-01T00:00:00.0000000019Z", base + 1}, // cut, not rounded
		{"2026-01-01T05:30:00+05:30", base},
		{"2025-12-31T19:00:00-05:00", base},
		{"2025-12-31T23:59:59.999999999-00:00", base - 1},
		{"1970-01-01T00:00:00Z", 0},
		{"1969-12-31T23:59:59.75Z", -25e7},
		{"2024-02-29T00:00:00Z", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC).UnixNano()},
		{"2000-02-29T12:00:00Z", time.Date(2000, 2, 29, 12, 0, 0, 0, time.UTC).UnixNano()},
		{"2262-04-11T23:47:16.854775807Z", math.MaxInt64},
		{"1677-09-21T00:12:43.145224192Z", math.MinInt64},
		// Unix numbers: the unit by magnitude.
		{"1767225600", base},
		{"1767225600.5", base + 5e8},
		{"1767225600.123456789", base + 123456789},
		{"1767225600.1234567899", base + 123456789},
		{"1767225600123", base + 123e6},
		{"1767225600123.456", base + 123456e3},
		{"1767225600123456", base + 123456e3},
		{"1767225600123456.7", base + 123456700},
		{"1767225600123456789", base + 123456789},
		{"1767225600123456789.9", base + 123456789},
		{"0", 0},
		{"0.25", 25e7},
		{"1.5", 15e8},
		{"-1.5", -15e8},
		{"-0", 0},
		{"100000000000", 1e17},                   // 10^11: milliseconds
		{"9223372036854", 9223372036854e6},       // milliseconds
		{"9223372036854775", 9223372036854775e3}, // microseconds
		{"100000000000000", 1e17},                // 10^14: microseconds
		{"100000000000000000", 1e17},             // 10^17: nanoseconds
		{"9223372036.854775807", math.MaxInt64},
		{"-9223372036.854775808", math.MinInt64},
		{"9223372036854775807", math.MaxInt64},
		{"-9223372036854775808", math.MinInt64},
	} {
		got, why := parseLogTime(tc.in)
		if why != "" || got != tc.want {
			t.Errorf("parseLogTime(%q): got %d %q, want %d", tc.in, got, why, tc.want)
		}
	}
}

func TestParseLogTimeBad(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want timeError
	}{
		{"", errTimeSyntax},
		{"abc", errTimeSyntax},
		{"1e9", errTimeSyntax},
		{"1.", errTimeSyntax},
		{".5", errTimeSyntax},
		{"+5", errTimeSyntax},
		{"-", errTimeSyntax},
		{"1,5", errTimeSyntax},
		{"1 ", errTimeSyntax},
		{"2026-01-01T00:00:00", errTimeSyntax},   // no zone
		{"2026-01-01T00:00:00.Z", errTimeSyntax}, // no fraction digit
		{"2026-01-01X00:00:00Z", errTimeSyntax},
		{"2026-01-01T00:00:00+0530", errTimeSyntax},
		{"2026-01-01T00:00:00+05:3x", errTimeSyntax},
		{"2026-1-01T00:00:00Z", errTimeSyntax},
		{"2026-01-01T00:00:00ZZ", errTimeSyntax},
		{"2026-01-01T00:00:00,5Z", errTimeSyntax},
		{"2026-13-01T00:00:00Z", errTimeField},
		{"2026-00-01T00:00:00Z", errTimeField},
		{"2026-02-29T00:00:00Z", errTimeField},
		{"1900-02-29T00:00:00Z", errTimeField},
		{"2026-04-31T00:00:00Z", errTimeField},
		{"2026-01-01T24:00:00Z", errTimeField},
		{"2026-01-01T00:60:00Z", errTimeField},
		{"2026-01-01T00:00:60Z", errTimeField},
		{"2026-01-01T00:00:00+24:00", errTimeField},
		{"2262-04-11T23:47:16.854775808Z", errTimeRange},
		{"1677-09-21T00:12:43.145224191Z", errTimeRange},
		{"9999-12-31T23:59:59Z", errTimeRange},
		{"0000-01-01T00:00:00Z", errTimeRange},
		{"9223372036.854775808", errTimeRange},
		{"-9223372036.854775809", errTimeRange},
		{"9223372036854775808", errTimeRange},
		{"99999999999", errTimeRange}, // 10^11 − 1 s: seconds, beyond 2262
		{"99999999999999", errTimeRange},
		{"99999999999999999999999", errTimeRange},
	} {
		if got, why := parseLogTime(tc.in); why != tc.want {
			t.Errorf("parseLogTime(%q): got %d %q, want the error %q", tc.in, got, why, tc.want)
		}
	}
}

// TestParseLogTimeVsTimeParse holds the RFC 3339 parser to time.Parse on
// random date-times over the whole int64 range, offsets and fractions of 0
// to 12 digits included.
func TestParseLogTimeVsTimeParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		ns := int64(rng.Uint64())
		off := (rng.IntN(2*1439+1) - 1439) * 60 // −23:59 to +23:59
		if rng.IntN(4) == 0 {
			off = 0
		}
		tm := time.Unix(0, ns).In(time.FixedZone("", off))
		digits := rng.IntN(13)
		layout := "2006-01-02T15:04:05"
		if digits > 0 {
			layout += "." + strings.Repeat("0", min(digits, 9))
		}
		s := tm.Format(layout)
		if digits > 9 {
			s += fmt.Sprintf("%03d", rng.IntN(1000))[:digits-9]
		}
		zone := tm.Format("Z07:00")
		s += zone
		want, err := time.Parse(time.RFC3339Nano, s)
		got, why := parseLogTime(s)
		if err != nil {
			t.Fatalf("time.Parse(%q): %v", s, err)
		}
		wantNs := want.UnixNano()
		switch {
		case why != "":
			t.Fatalf("parseLogTime(%q): %q, want %d", s, why, wantNs)
		case got != wantNs:
			t.Fatalf("parseLogTime(%q) = %d, time.Parse says %d", s, got, wantNs)
		}
	}
}

// TestParseLogTimeUnits writes random instants from 1973-03-03T09:46:40Z to
// 2262 in each unit, with the fraction down to the ns, and reads them back.
func TestParseLogTimeUnits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lo := int64(1e17)
	for range 100_000 {
		ns := lo + rng.Int64N(math.MaxInt64-lo)
		for _, u := range []struct {
			scale  int64
			digits int
		}{{1e9, 9}, {1e6, 6}, {1e3, 3}, {1, 0}} {
			s := fmt.Sprint(ns / u.scale)
			if u.digits > 0 {
				s += fmt.Sprintf(".%0*d", u.digits, ns%u.scale)
			}
			if got, why := parseLogTime(s); why != "" || got != ns {
				t.Fatalf("parseLogTime(%q): got %d %q, want %d", s, got, why, ns)
			}
		}
		// Relative seconds, negative ones too.
		rel := rng.Int64N(2*1e9*1e8) - 1e9*1e8 // ±10^8 s
		s := fmt.Sprintf("%d.%09d", rel/1e9, abs64(rel%1e9))
		if rel < 0 && rel > -1e9 {
			s = "-" + s
		}
		if got, why := parseLogTime(s); why != "" || got != rel {
			t.Fatalf("parseLogTime(%q): got %d %q, want %d", s, got, why, rel)
		}
	}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestDaysFromCivil(t *testing.T) {
	for y := int64(-1000); y <= 3000; y += 7 {
		for m := int64(1); m <= 12; m++ {
			for _, d := range []int64{1, 15, daysInMonth(y, m)} {
				want := time.Date(int(y), time.Month(m), int(d), 0, 0, 0, 0, time.UTC).Unix() / 86400
				if got := daysFromCivil(y, m, d); got != want {
					t.Fatalf("daysFromCivil(%d, %d, %d) = %d, want %d", y, m, d, got, want)
				}
			}
		}
	}
}
