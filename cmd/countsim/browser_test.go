package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium is the path of a Chromium (Debian's package chromium) or Chrome
// on this machine. Without one the test fails, saying how to install it:
// .ci/run installs it; a browser test never passes by skipping.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium on PATH for the browser test of report.html: install it with `apt-get install -y chromium` (Debian; .ci/run does)")
	return ""
}

// artifacts is where a test keeps what a person looks at afterwards (a
// screenshot): $COUNTSIM_ARTIFACTS, else test-artifacts/ at the module's root.
func artifacts(t *testing.T) string {
	dir := os.Getenv("COUNTSIM_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browserScenarios are the scenarios TestReportInABrowser renders: a small
// one and hash-tags always, and outside -short the built-ins whose
// summaries are widest (node-topk's 10 designs, search-split's 11,
// topk-memory's 25 a step).
func browserScenarios() []string {
	s := []string{"testdata/small.yaml", "hash-tags"}
	if !testing.Short() {
		s = append(s, "node-topk", "search-split", "topk-memory")
	}
	return s
}

// TestReportInABrowser opens a run's report.html from disk in headless
// Chromium: it loads without a console error, an uncaught exception or a
// request for anything but the file itself; every chart of the run's
// plots/ folder is on the page with a non-zero size once the folds are
// open; each step has its summary table, no wider than its card, and its
// answering chart first, before the fold; every glyph of the page renders
// (none is drawn as the box of a missing glyph). A full-page screenshot is
// kept (test-artifacts/report.png).
func TestReportInABrowser(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := append([]string{"run", "-q", "-out", out}, browserScenarios()...)
	if err := run(context.Background(), &stdout, &stderr, args); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(dirs) != 1 {
		t.Fatalf("report folders %v, want one", dirs)
	}
	svgs, _ := filepath.Glob(filepath.Join(dirs[0], "plots", "*.svg"))
	if len(svgs) == 0 {
		t.Fatal("the run drew no chart")
	}
	page, err := filepath.Abs(filepath.Join(dirs[0], "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	bctx, problems := browse(t, "file://"+page)

	summaries, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('table.summary').length`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	// Every summary fits its card: no wider than the card's inside.
	wide, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('table.summary')).flatMap(t => {
		const card = t.closest('.scenario'), cs = getComputedStyle(card);
		const inside = card.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
		return t.scrollWidth > card.clientWidth || t.getBoundingClientRect().width > inside + 0.5 ?
			[t.closest('section').id + ': ' + t.scrollWidth + ' px wide in a card of ' + inside + ' px'] : [];
	})`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	for _, w := range wide {
		t.Errorf("a summary wider than its card: %s", w)
	}
	// Each step with charts shows its answering chart first, before the fold.
	order, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('section.scenario')).flatMap(sc => {
		const first = sc.querySelector('figure.chart');
		if (!first) return [];
		const ok = first.parentElement.classList.contains('answer') && !first.closest('details') &&
			first.getBoundingClientRect().height > 0 && sc.querySelector('table.summary').compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING;
		return ok ? [] : [sc.id];
	})`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	for _, id := range order {
		t.Errorf("%s: its first chart is not the answer, shown under the summary", id)
	}
	missing, err := missingGlyphs(bctx)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	for _, m := range missing {
		t.Errorf("a glyph renders as the box of a missing glyph: %s", m)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100)) // quality 100: a PNG
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if err := os.WriteFile(filepath.Join(artifacts(t), "report.png"), shot, 0o644); err != nil {
		t.Error(err)
	}
	// Open every fold: each chart then has a size.
	sizes, err := chromedp.Run(bctx, chromedp.Evaluate[[]float64](`document.querySelectorAll('details').forEach(d => d.open = true);
		Array.from(document.querySelectorAll('figure.chart svg')).map(e => { const r = e.getBoundingClientRect(); return r.width * r.height; })`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	for _, p := range problems() {
		t.Error(p)
	}
	if len(sizes) != len(svgs) {
		t.Errorf("%d charts on the page, %d SVG files in plots/", len(sizes), len(svgs))
	}
	for i, a := range sizes {
		if !(a > 1000) {
			t.Errorf("chart %d has an area of %v px²", i, a)
		}
	}
	steps := 2 // small and hash-tags, one step each
	if !testing.Short() {
		steps += 1 + 1 + 3 // node-topk, search-split, topk-memory's three
	}
	if summaries != steps {
		t.Errorf("%d summary tables, want %d", summaries, steps)
	}
	if len(shot) < 10_000 {
		t.Errorf("a screenshot of %d bytes", len(shot))
	}
}

// TestMissingGlyphs holds the glyph check to what it must catch: a glyph
// no font has (U+E000, of the private use area) is found, in the page's
// text and in an SVG's, and the page's own marks are not.
func TestMissingGlyphs(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "glyphs.html")
	html := `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>glyphs</title></head><body>
<p id="marks">✔ ⚠ ✘ − ε √ ≤ · —</p><p id="box">a ` + "\ue000" + ` b</p>
<svg viewBox="0 0 100 20"><text x="0" y="15" style="font-family:'Liberation Sans',Arial,sans-serif">x ` + "\U0010fffd" + `</text></svg><footer></footer></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	bctx, problems := browse(t, "file://"+page)
	missing, err := missingGlyphs(bctx)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	for _, p := range problems() {
		t.Error(p)
	}
	got := strings.Join(missing, "\n")
	if len(missing) != 2 || !strings.Contains(got, "U+E000") || !strings.Contains(got, "U+10FFFD") {
		t.Errorf("missing glyphs:\n%s\nwant U+E000 in the <p> and U+10FFFD in the SVG, and nothing else", got)
	}
}

// browse opens url in a new headless Chromium (closed at the test's end),
// 1300 × 1000, and returns its context and what went wrong on the page so
// far: console errors and warnings, exceptions, requests for anything but
// the file itself.
func browse(t *testing.T, url string) (context.Context, func() []string) {
	t.Helper()
	browser := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	t.Cleanup(cancel)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1300, 1000),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)

	var mu sync.Mutex
	var problems []string
	note := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	if err := chromedp.Listen(bctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				note("console %s: %v", ev.Type, ev.Args)
			}
		case *runtime.EventExceptionThrown:
			note("exception: %s", ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				note("log %s: %s (%s)", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
				note("request for %s: the page must be self-contained", u)
			}
		}
	}); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if err := chromedp.Do(bctx,
		// chromedp enables the Log and Network domains of a new tab itself.
		chromedp.Navigate(url),
		chromedp.WaitReady(chromedp.CSS("footer")),
	); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return bctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(problems)
	}
}

// missingGlyphs lists the characters of the page (its text and its SVGs')
// that render as the box of a missing glyph: outside ASCII, each drawn in
// the font its element asks for on a canvas, whose pixels are compared
// with those of U+0378, a code point no font has a glyph for. A character
// drawn exactly as that is drawn as no glyph of its own.
func missingGlyphs(ctx context.Context) ([]string, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[[]string](`(async () => {
		await document.fonts.ready;
		const seen = new Map();
		const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			const el = n.parentElement;
			if (!el) continue;
			const s = getComputedStyle(el);
			const font = s.fontStyle + ' ' + s.fontWeight + ' 40px ' + s.fontFamily;
			for (const ch of n.data) {
				if (ch.codePointAt(0) < 0x80 || /\s/.test(ch)) continue;
				const key = font + '|' + ch;
				if (!seen.has(key)) seen.set(key, {ch, font, where: el.closest('[id]') ? el.closest('[id]').id : el.tagName});
			}
		}
		const canvas = document.createElement('canvas');
		canvas.width = canvas.height = 64;
		const c = canvas.getContext('2d', {willReadFrequently: true});
		const draw = (ch, font) => {
			c.clearRect(0, 0, 64, 64);
			c.font = font;
			c.fillStyle = '#000';
			c.textBaseline = 'top';
			c.fillText(ch, 8, 8);
			return c.getImageData(0, 0, 64, 64).data;
		};
		const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
		const none = new Map();
		const out = [];
		for (const {ch, font, where} of seen.values()) {
			if (!none.has(font)) none.set(font, draw('\u0378', font));
			if (same(draw(ch, font), none.get(font))) {
				out.push('U+' + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0') + ' in ' + where + ' (' + font + ')');
			}
		}
		return out;
	})()`, chromedp.EvalAwaitPromise))
}
