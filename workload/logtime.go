package workload

import (
	"math"
)

// The time column of a recorded log (LogConfig.Time). A value is either an
// RFC 3339 date-time or a decimal number of Unix seconds, milliseconds,
// microseconds or nanoseconds, and becomes int64 nanoseconds since
// 1970-01-01T00:00:00Z, exactly (no float64 on the way).
//
// RFC 3339 (section 5.6): YYYY-MM-DDTHH:MM:SS, an optional fraction of a
// second (a '.' and one or more digits; digits beyond the nanosecond are
// cut off, as time.Parse does), then Z or an offset ±HH:MM. As RFC 3339
// allows, 't' and 'z' may be lower case and a space may stand for the 'T'.
// Seconds are 0..59 (a leap second 60 is refused, as time.Parse refuses
// it), the day must exist in its month, the offset's hours are 0..23.
//
// A number is -?digits(.digits)?, with no exponent. Its unit is told by the
// magnitude of its integer part n:
//
//	n < 10^11         seconds       (10^11 s is the year 5138)
//	n < 10^14         milliseconds  (10^11 ms is 1973-03-03T09:46:40Z)
//	n < 10^17         microseconds  (10^14 µs is that same instant)
//	otherwise         nanoseconds   (10^17 ns too)
//
// so every instant from 1973-03-03T09:46:40Z on reads right in any of the
// four units, and so do seconds counted from any origin up to 3,170 years
// (a log of relative times: 0, 0.25, 1.5, ...). Any unit may carry a
// fraction; digits beyond the nanosecond are cut off (towards zero).
//
// Both forms must land within int64 nanoseconds, from
// 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z.

const (
	unixSecondsBelow = 1e11 // a number's integer part below this is seconds
	unixMillisBelow  = 1e14 // then milliseconds
	unixMicrosBelow  = 1e17 // then microseconds; nanoseconds from here on
)

// timeError says why a time value was refused; its text is the reason alone
// ("not RFC 3339 or a decimal number"), the caller adds the value.
type timeError string

const (
	errTimeSyntax = timeError("not RFC 3339 or a decimal number of Unix seconds, ms, µs or ns")
	errTimeRange  = timeError("outside int64 nanoseconds (1677-09-21 to 2262-04-11)")
	errTimeField  = timeError("an RFC 3339 field out of range (month 1-12, the day in its month, hour 0-23, minute and second 0-59, offset to ±23:59)")
)

// parseLogTime returns the instant s names, in ns since the Unix epoch.
func parseLogTime(s string) (int64, timeError) {
	if len(s) == 0 {
		return 0, errTimeSyntax
	}
	if len(s) >= 20 && s[4] == '-' {
		return parseRFC3339Nanos(s)
	}
	return parseUnixNumber(s)
}

// parseUnixNumber reads -?digits(.digits)? as a Unix time in the unit its
// integer part's magnitude tells (see the table above).
func parseUnixNumber(s string) (int64, timeError) {
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	i := 0
	var n uint64
	huge := false // beyond uint64: out of range, once the syntax is known good
	for ; i < len(s) && isDigitByte(s[i]); i++ {
		d := uint64(s[i] - '0')
		if n > (math.MaxUint64-d)/10 {
			huge = true
		}
		n = n*10 + d
	}
	if i == 0 {
		return 0, errTimeSyntax
	}
	frac := ""
	if i < len(s) {
		if s[i] != '.' || i+1 == len(s) {
			return 0, errTimeSyntax
		}
		frac = s[i+1:]
		for j := 0; j < len(frac); j++ {
			if !isDigitByte(frac[j]) {
				return 0, errTimeSyntax
			}
		}
	}
	if huge {
		return 0, errTimeRange
	}
	var scale uint64
	var digits int // fraction digits that reach the nanosecond
	switch {
	case n < unixSecondsBelow:
		scale, digits = 1e9, 9
	case n < unixMillisBelow:
		scale, digits = 1e6, 6
	case n < unixMicrosBelow:
		scale, digits = 1e3, 3
	default:
		scale, digits = 1, 0
	}
	// Microseconds up to 10^17 would overflow uint64 at ·10^3.
	if scale > 1 && n > math.MaxUint64/scale {
		return 0, errTimeRange
	}
	m := n * scale
	var f uint64 // the fraction in ns, cut to whole ns
	for j := 0; j < digits; j++ {
		f *= 10
		if j < len(frac) {
			f += uint64(frac[j] - '0')
		}
	}
	if m > math.MaxUint64-f {
		return 0, errTimeRange
	}
	m += f
	switch {
	case !neg && m <= math.MaxInt64:
		return int64(m), ""
	case neg && m <= 1<<63:
		return int64(-m), "" // -(1<<63) wraps to MinInt64, as wanted
	}
	return 0, errTimeRange
}

// parseRFC3339Nanos reads an RFC 3339 date-time (see the top of this file).
func parseRFC3339Nanos(s string) (int64, timeError) {
	// YYYY-MM-DDTHH:MM:SS is 19 bytes; a zone follows at least.
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':' {
		return 0, errTimeSyntax
	}
	switch s[10] {
	case 'T', 't', ' ':
	default:
		return 0, errTimeSyntax
	}
	year, ok1 := digitsValue(s[0:4])
	month, ok2 := digitsValue(s[5:7])
	day, ok3 := digitsValue(s[8:10])
	hour, ok4 := digitsValue(s[11:13])
	minute, ok5 := digitsValue(s[14:16])
	sec, ok6 := digitsValue(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, errTimeSyntax
	}
	if month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return 0, errTimeField
	}
	s = s[19:]
	var nsec int64
	if s[0] == '.' {
		n := 1
		for ; n < len(s) && isDigitByte(s[n]); n++ {
			if n <= 9 {
				nsec = nsec*10 + int64(s[n]-'0')
			}
		}
		if n == 1 {
			return 0, errTimeSyntax
		}
		for d := n; d <= 9; d++ {
			nsec *= 10
		}
		s = s[n:]
	}
	var offset int64 // seconds east of UTC
	switch {
	case len(s) == 1 && (s[0] == 'Z' || s[0] == 'z'):
	case len(s) == 6 && (s[0] == '+' || s[0] == '-') && s[3] == ':':
		oh, ok1 := digitsValue(s[1:3])
		om, ok2 := digitsValue(s[4:6])
		if !ok1 || !ok2 {
			return 0, errTimeSyntax
		}
		if oh > 23 || om > 59 {
			return 0, errTimeField
		}
		offset = (oh*60 + om) * 60
		if s[0] == '-' {
			offset = -offset
		}
	default:
		return 0, errTimeSyntax
	}
	secs := daysFromCivil(year, month, day)*86400 + hour*3600 + minute*60 + sec - offset
	ns, ok := secondsNanos(secs, nsec)
	if !ok {
		return 0, errTimeRange
	}
	return ns, ""
}

// secondsNanos returns sec·10^9 + nsec (0 ≤ nsec < 10^9) and whether it
// fits an int64.
func secondsNanos(sec, nsec int64) (int64, bool) {
	const maxSec = math.MaxInt64 / 1_000_000_000
	if sec > maxSec || sec < -maxSec-1 {
		return 0, false
	}
	if sec >= 0 {
		r := sec * 1e9
		if r > math.MaxInt64-nsec {
			return 0, false
		}
		return r + nsec, true
	}
	// sec·10^9 itself may not fit when sec = −maxSec−1: add (sec+1)·10^9
	// and nsec − 10^9 ∈ [−10^9, 0) instead.
	r, d := (sec+1)*1e9, nsec-1e9
	if r < math.MinInt64-d {
		return 0, false
	}
	return r + d, true
}

// daysFromCivil returns the days from 1970-01-01 to the proleptic
// Gregorian date y-m-d (H. Hinnant, "chrono-Compatible Low-Level Date
// Algorithms", days_from_civil).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400                  // [0, 399]
	doy := (153*((m+9)%12)+2)/5 + d - 1 // [0, 365], from March 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func daysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// digitsValue parses a short run of decimal digits (no sign).
func digitsValue(s string) (int64, bool) {
	var v int64
	for i := 0; i < len(s); i++ {
		if !isDigitByte(s[i]) {
			return 0, false
		}
		v = v*10 + int64(s[i]-'0')
	}
	return v, true
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }
