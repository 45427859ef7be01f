package redistest

import (
	"math/rand/v2"
	"strconv"
)

// RandomKey draws a key name for tests of slot placement: 0 to 24 bytes,
// each any byte or, often, a brace, so that hash tags, empty tags, nested
// and unclosed braces all occur; a quarter of the keys get a well-formed
// tag inside ({user0} … {user49}).
func RandomKey(r *rand.Rand) string {
	part := func() string {
		b := make([]byte, r.IntN(13))
		for i := range b {
			switch r.IntN(8) {
			case 0:
				b[i] = '{'
			case 1:
				b[i] = '}'
			default:
				b[i] = byte(r.IntN(256))
			}
		}
		return string(b)
	}
	if r.IntN(4) == 0 {
		return part() + "{user" + strconv.Itoa(r.IntN(50)) + "}" + part()
	}
	return part() + part()
}
