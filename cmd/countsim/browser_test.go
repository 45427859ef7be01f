package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// TestReportInABrowser opens a run's report.html from disk in headless
// Chromium: it loads without a console error, an uncaught exception or a
// request for anything but the file itself; every chart of the run's
// plots/ folder is on the page with a non-zero size; each step has its
// summary table. A full-page screenshot is kept (test-artifacts/report.png).
func TestReportInABrowser(t *testing.T) {
	browser := chromium(t)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"run", "-q", "-out", out, "testdata/small.yaml", "hash-tags"}); err != nil {
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

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1300, 1000),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

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
		chromedp.Navigate("file://"+page),
		chromedp.WaitReady(chromedp.CSS("footer")),
	); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	sizes, err := chromedp.Run(bctx, chromedp.Evaluate[[]float64](
		`Array.from(document.querySelectorAll('figure.chart svg')).map(e => { const r = e.getBoundingClientRect(); return r.width * r.height; })`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	summaries, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('table.summary').length`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100)) // quality 100: a PNG
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if err := os.WriteFile(filepath.Join(artifacts(t), "report.png"), shot, 0o644); err != nil {
		t.Error(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
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
	if summaries != 2 { // one step each: small and hash-tags
		t.Errorf("%d summary tables, want 2", summaries)
	}
	if len(shot) < 10_000 {
		t.Errorf("a screenshot of %d bytes", len(shot))
	}
}
