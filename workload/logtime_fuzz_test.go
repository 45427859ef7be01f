package workload

import (
	"math"
	"math/big"
	"regexp"
	"testing"
	"time"
)

// FuzzLogTime holds parseLogTime to references of its own: time.Parse for
// RFC 3339 (after the 't', 'z' and space that RFC 3339 allows and Go's
// layout does not), and exact rational arithmetic for a number of Unix
// seconds, ms, µs or ns (the unit by the integer part's magnitude, the
// fraction cut towards zero at the ns). A time accepted reads back the same
// from what time.Format and fmt write of it; a refusal is one of the three
// reasons, and the right one.
func FuzzLogTime(f *testing.F) {
	// Real times: what LogWriter writes, the forms a team's log holds, and
	// the edges of int64 ns.
	base := LogTimeBase()
	for _, at := range []time.Duration{0, 1, 1500 * time.Millisecond, 36 * time.Hour} {
		f.Add(base.Add(at).Format(logTimeLayout))
	}
	for _, s := range []string{
		"2026-01-01T05:30:00.25+05:30", "2026-01-01t00:00:00z", "2026-01-01 00:00:00Z",
		"2025-12-31T23:59:59.999999999-00:00", "2026-01-01T00:00:00.0000000019Z", "2024-02-29T00:00:00Z",
		"2262-04-11T23:47:16.854775807Z", "2262-04-11T23:47:16.854775808Z", "1677-09-21T00:12:43.145224192Z",
		"2026-01-01T00:00:00,5Z", "2026-01-01T00:00:60Z", "2026-01-01T00:00:00+24:00", "1900-02-29T00:00:00Z",
		"1767225600", "1767225600.5", "1767225600123", "1767225600123456.7", "1767225600123456789",
		"0", "0.25", "-1.5", "-0", "99999999999", "100000000000", "9223372036.854775807", "-9223372036.854775808",
		"9223372036854775808", "1e9", "1.", ".5", "+5", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, why := parseLogTime(s)
		switch why {
		case "", errTimeSyntax, errTimeRange, errTimeField:
		default:
			t.Fatalf("parseLogTime(%q): reason %q", s, why)
		}
		if why == "" {
			roundTrip(t, s, got)
		}
		if len(s) >= 20 && s[4] == '-' {
			checkRFC3339(t, s, got, why)
		} else {
			checkUnixNumber(t, s, got, why)
		}
	})
}

// roundTrip: the instant ns, written by time.Format in RFC 3339 and as
// seconds with nine decimals, reads back as ns.
func roundTrip(t *testing.T, s string, ns int64) {
	sec, frac := ns/1e9, ns%1e9
	if frac < 0 {
		sec, frac = sec-1, frac+1e9
	}
	num := new(big.Rat).Add(new(big.Rat).SetInt64(sec), big.NewRat(frac, 1e9)).FloatString(9)
	for _, w := range []string{time.Unix(0, ns).UTC().Format(time.RFC3339Nano), time.Unix(0, ns).In(time.FixedZone("", -(9*3600 + 30*60))).Format(time.RFC3339Nano), num} {
		if again, why := parseLogTime(w); why != "" || again != ns {
			t.Fatalf("parseLogTime(%q) = %d, written as %q reads %d %q", s, ns, w, again, why)
		}
	}
}

var (
	minLogTime = time.Unix(0, math.MinInt64)
	maxLogTime = time.Unix(0, math.MaxInt64)
)

// checkRFC3339 compares with time.Parse.
func checkRFC3339(t *testing.T, s string, got int64, why timeError) {
	norm := []byte(s)
	if norm[10] == 't' || norm[10] == ' ' {
		norm[10] = 'T'
	}
	if n := len(norm) - 1; norm[n] == 'z' {
		norm[n] = 'Z'
	}
	tm, err := time.Parse(time.RFC3339Nano, string(norm))
	switch {
	case why == "" && err != nil:
		t.Fatalf("parseLogTime(%q) = %d, time.Parse(%q) refuses it: %v", s, got, norm, err)
	case why == "" && tm.UnixNano() != got:
		t.Fatalf("parseLogTime(%q) = %d, time.Parse says %d", s, got, tm.UnixNano())
	case why == errTimeRange && (err != nil || !tm.Before(minLogTime) && !tm.After(maxLogTime)):
		t.Fatalf("parseLogTime(%q): %q, time.Parse(%q) gives %v, %v", s, why, norm, tm, err)
	case (why == errTimeSyntax || why == errTimeField) && err == nil:
		// time.Parse takes what RFC 3339 does not: a one-digit hour, a
		// comma before the fraction (Go 1.17 on), an offset of 24 hours or
		// more (RFC 3339's time-hour is 00-23) or of 60 minutes or more.
		// Anything else it reads, parseLogTime must read too.
		m := rfc3339Syntax.FindStringSubmatch(s)
		switch {
		case m == nil && why == errTimeSyntax:
		case m != nil && why == errTimeField && m[1] != "" && (m[1][1:3] > "23" || m[1][4:6] > "59"):
		default:
			t.Fatalf("parseLogTime(%q): %q, time.Parse(%q) reads %v", s, why, norm, tm)
		}
	}
}

// rfc3339Syntax is RFC 3339's date-time (section 5.6, with the 't', 'z'
// and space it allows), the numeric offset in the group.
var rfc3339Syntax = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|([+-][0-9]{2}:[0-9]{2}))$`)

var unixNumber = regexp.MustCompile(`^-?([0-9]+)(\.[0-9]+)?$`)

// checkUnixNumber works out the number's ns exactly: the integer part's
// magnitude picks the unit, the fraction below the ns is cut towards zero.
func checkUnixNumber(t *testing.T, s string, got int64, why timeError) {
	m := unixNumber.FindStringSubmatch(s)
	if m == nil {
		if why != errTimeSyntax {
			t.Fatalf("parseLogTime(%q) = %d %q, want %q", s, got, why, errTimeSyntax)
		}
		return
	}
	n, _ := new(big.Int).SetString(m[1], 10)
	scale := int64(1)
	switch {
	case n.Cmp(big.NewInt(unixSecondsBelow)) < 0:
		scale = 1e9
	case n.Cmp(big.NewInt(unixMillisBelow)) < 0:
		scale = 1e6
	case n.Cmp(big.NewInt(unixMicrosBelow)) < 0:
		scale = 1e3
	}
	v, _ := new(big.Rat).SetString(s)
	v.Mul(v, new(big.Rat).SetInt64(scale))
	ns := new(big.Int).Quo(v.Num(), v.Denom()) // towards zero
	switch {
	case !ns.IsInt64():
		if why != errTimeRange {
			t.Fatalf("parseLogTime(%q) = %d %q, want %q (%v ns)", s, got, why, errTimeRange, ns)
		}
	case why != "" || got != ns.Int64():
		t.Fatalf("parseLogTime(%q) = %d %q, want %v", s, got, why, ns)
	}
}
