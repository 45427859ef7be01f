package scenarios

// "Did you mean": the allowed name nearest a mistyped one, by edit
// distance, for every message that refuses a name — a scenario, a key, a
// design type or parameter, a metric, a flag. It lives here, where
// everything that refuses a name can import it (scenarios imports nothing
// of ours).

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Closest returns the name of allowed nearest to name, by the optimal
// string alignment distance (Damerau–Levenshtein, each substring edited
// once: an insertion, a deletion, a substitution or a swap of two
// neighbours is one edit, letters compared regardless of case), when it is
// close enough to be what was meant: at most max(1, ⌊runes/3⌋) edits away,
// runes being the longer name's. Of names as near, the first in allowed
// wins. It is "" when none is close enough, or name is one of allowed.
func Closest(name string, allowed []string) string {
	best, bestD := "", -1
	for _, a := range allowed {
		if a == name {
			return ""
		}
		limit := max(1, max(utf8.RuneCountInString(name), utf8.RuneCountInString(a))/3)
		d := EditDistance(strings.ToLower(name), strings.ToLower(a))
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = a, d
		}
	}
	return best
}

// DidYouMean is "; did you mean "NAME"?" for the name of allowed nearest
// to name (Closest), to end a message that refuses name, or "" when none
// is near.
func DidYouMean(name string, allowed []string) string {
	if c := Closest(name, allowed); c != "" {
		return fmt.Sprintf("; did you mean %q?", c)
	}
	return ""
}

// EditDistance is the optimal string alignment distance between a and b
// in runes: the fewest insertions, deletions, substitutions and swaps of
// two neighbouring runes that turn a into b, no substring edited twice
// ("ca" to "abc" is 3). It takes O(len(a)·len(b)) time and three rows.
func EditDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2 := make([]int, len(t)+1) // row i−2
	prev := make([]int, len(t)+1)  // row i−1
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
