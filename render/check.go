package render

import (
	"regexp"
	"strings"
)

// Change is a sentence of a rendered page that a fresh render does not
// give again: Old as the page has it (with its line), New as the template
// now gives it; one of the two is empty where a sentence is gone or new.
type Change struct {
	Line     int // of Old in the page, 1-based; of the sentence before it where Old is empty
	Old, New string
}

// sentence is a span of a text: a line, or a part of one that ends in
// '.', '!' or '?' followed by a space.
type sentence struct {
	start, end int
	line       int
}

var sentenceEnd = regexp.MustCompile(`[.!?]\s+`)

// sentences splits text into its sentences, blank lines left out.
func sentences(text string) []sentence {
	var out []sentence
	off := 0
	for i, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimRight(line, "\n")
		s := 0
		for _, m := range sentenceEnd.FindAllStringIndex(body, -1) {
			out = appendSentence(out, body, off, s, m[0]+1, i+1)
			s = m[1]
		}
		out = appendSentence(out, body, off, s, len(body), i+1)
		off += len(line)
	}
	return out
}

func appendSentence(out []sentence, line string, off, s, e, n int) []sentence {
	for s < e && line[s] == ' ' {
		s++
	}
	for e > s && line[e-1] == ' ' {
		e--
	}
	if s == e {
		return out
	}
	return append(out, sentence{off + s, off + e, n})
}

// Compare returns the sentences of a page (text, as ReadDocument gave it,
// and its stamp) that now, a fresh render, does not give again: a figure
// with a tolerance may have moved within it, so long as the page shows it
// as it was rendered; any other difference is a change. No change: the
// page is up to date.
func Compare(text string, stamp Stamp, now *Page) []Change {
	olds := sentences(text)
	news := sentences(now.Text)
	match := make([]func(string) bool, len(news))
	fi := 0
	for j, s := range news {
		for fi < len(now.Figures) && now.Figures[fi].Start < s.start {
			fi++
		}
		var figs []int
		for k := fi; k < len(now.Figures) && now.Figures[k].End <= s.end; k++ {
			figs = append(figs, k)
		}
		match[j] = matcher(now, s, figs, stamp)
	}
	// The longest common subsequence of the two lists of sentences, then
	// what is left of each as changes, in order.
	n, m := len(olds), len(news)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	same := func(i, j int) bool { return match[j](text[olds[i].start:olds[i].end]) }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case same(i, j):
				lcs[i][j] = lcs[i+1][j+1] + 1
			default:
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []Change
	var gone, added []string
	var goneLines []int
	line := 1
	flush := func() {
		k := max(len(gone), len(added))
		for x := range k {
			c := Change{Line: line}
			if x < len(gone) {
				c.Line = goneLines[x]
			}
			if x < len(gone) {
				c.Old = gone[x]
			}
			if x < len(added) {
				c.New = added[x]
			}
			out = append(out, c)
		}
		gone, added, goneLines = nil, nil, nil
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && same(i, j):
			flush()
			line = olds[i].line
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			added = append(added, now.Text[news[j].start:news[j].end])
			j++
		default:
			goneLines = append(goneLines, olds[i].line)
			gone = append(gone, text[olds[i].start:olds[i].end])
			i++
		}
	}
	flush()
	return out
}

// matcher tells whether an old sentence is the new sentence s, the
// figures figs (indices into now.Figures, which are the stamp's too when
// the template has not changed) allowed to differ within their tolerance.
func matcher(now *Page, s sentence, figs []int, stamp Stamp) func(string) bool {
	want := now.Text[s.start:s.end]
	if len(figs) == 0 {
		return func(old string) bool { return old == want }
	}
	var pat strings.Builder
	pat.WriteString("^")
	at := s.start
	for _, k := range figs {
		f := now.Figures[k]
		pat.WriteString(regexp.QuoteMeta(now.Text[at:f.Start]))
		pat.WriteString("(.*?)")
		at = f.End
	}
	pat.WriteString(regexp.QuoteMeta(now.Text[at:s.end]))
	pat.WriteString("$")
	re := regexp.MustCompile(pat.String())
	return func(old string) bool {
		if old == want {
			return true
		}
		got := re.FindStringSubmatch(old)
		if got == nil {
			return false
		}
		for x, k := range figs {
			if k >= len(stamp.Measured) {
				return false
			}
			was := stamp.Measured[k]
			if got[x+1] != was.Text || !now.Figures[k].Tol.holds(was.Value, now.Figures[k].Value) {
				return false
			}
		}
		return true
	}
}
