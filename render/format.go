package render

import (
	"math"
	"strconv"
	"strings"

	"countsim/metrics"
)

// Fixed writes v with digits decimals, the integer part thousands
// separated as metrics.Format does: Fixed(28.571, 1) is "28.6".
func Fixed(v float64, digits int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return metrics.Format(v)
	}
	s := strconv.FormatFloat(v, 'f', digits, 64)
	whole, frac, _ := strings.Cut(s, ".")
	w, err := strconv.ParseFloat(whole, 64)
	if err != nil || math.Abs(w) >= 1e15 {
		return s
	}
	out := metrics.Format(w)
	if whole == "-0" {
		out = "-0"
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}

// Sig writes v with digits significant digits, never in exponent
// notation, without trailing zeros after the point: Sig(293.148, 3) is
// "293", Sig(0.8125, 2) "0.81", Sig(26041.7, 3) "26,000".
func Sig(v float64, digits int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return metrics.Format(v)
	}
	digits = max(digits, 1)
	mag := int(math.Floor(math.Log10(math.Abs(v))))
	dec := digits - 1 - mag
	if dec <= 0 {
		p := math.Pow(10, float64(-dec))
		return metrics.Format(math.Round(v/p) * p)
	}
	s := Fixed(v, dec)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Bytes writes a size in bytes with decimal units, three significant
// digits: 12,288 is "12.3 KB", 320,000,000 "320 MB", 543,660 "544 KB";
// under 1,000, "512 B".
func Bytes(v float64) string {
	units := []string{"B", "KB", "MB", "GB", "TB", "PB"}
	i := 0
	for math.Abs(v) >= 999.5 && i < len(units)-1 {
		v /= 1000
		i++
	}
	return Sig(v, 3) + " " + units[i]
}

// Words writes a large count in words, three significant digits: 48,000,000
// is "48 million", 2,000,000,000 "2 billion"; under a million, as
// metrics.Format.
func Words(v float64) string {
	switch a := math.Abs(v); {
	case a >= 999.5e9:
		return Sig(v/1e12, 3) + " trillion"
	case a >= 999.5e6:
		return Sig(v/1e9, 3) + " billion"
	case a >= 999.5e3:
		return Sig(v/1e6, 3) + " million"
	}
	return metrics.Format(math.Round(v*100) / 100)
}
