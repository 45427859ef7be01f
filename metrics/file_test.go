package metrics

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// names lists dir, hidden files (the temporary ones) included.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// noLinks plays a file system without hard links for the test's duration.
func noLinks(t *testing.T) {
	link = func(oldname, newname string) error {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: syscall.EPERM}
	}
	t.Cleanup(func() { link = os.Link })
}

func TestWriteFile(t *testing.T) {
	for _, hard := range []bool{true, false} {
		t.Run(map[bool]string{true: "link", false: "rename"}[hard], func(t *testing.T) {
			if !hard {
				noLinks(t)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "results.json")
			if err := WriteFile(path, text("[]\n")); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil || string(b) != "[]\n" {
				t.Fatalf("read %q, %v; want \"[]\\n\"", b, err)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("mode %v (%v), want 0644", fi.Mode(), err)
			}
			if got := names(t, dir); !slices.Equal(got, []string{"results.json"}) {
				t.Errorf("folder holds %q, want only results.json", got)
			}

			// An existing path is refused and left as it was.
			err = WriteFile(path, text("new"))
			if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) {
				t.Errorf("over an existing file: err = %v, want fs.ErrExist naming the path", err)
			}
			if b, _ := os.ReadFile(path); string(b) != "[]\n" {
				t.Errorf("the existing file now holds %q", b)
			}
			if got := names(t, dir); !slices.Equal(got, []string{"results.json"}) {
				t.Errorf("folder holds %q, want only results.json", got)
			}
		})
	}
}

// A write that fails, even halfway, leaves nothing behind.
func TestWriteFileWriteError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.md")
	boom := errors.New("boom")
	err := WriteFile(path, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("half a report\n", 1<<12)) // past the buffer
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want boom naming the path", err)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("folder holds %q, want nothing", got)
	}
}

func TestWriteFileNoFolder(t *testing.T) {
	dir := t.TempDir()
	err := WriteFile(filepath.Join(dir, "missing", "x.csv"), text("x"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want fs.ErrNotExist", err)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("folder holds %q, want nothing", got)
	}
}

// Writers racing for one path: exactly one wins, whole; the others get
// fs.ErrExist; no temporary file is left.
func TestWriteFileRace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plot.svg")
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = WriteFile(path, text(strings.Repeat(string(rune('a'+i)), 1<<16))) })
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, fs.ErrExist):
			t.Errorf("writer %d: %v", i, err)
		}
	}
	b, _ := os.ReadFile(path)
	if won != 1 || len(b) != 1<<16 || strings.Count(string(b), string(b[:1])) != len(b) {
		t.Errorf("%d writers won, file of %d bytes; want 1 and one writer's 65536 bytes", won, len(b))
	}
	if got := names(t, dir); !slices.Equal(got, []string{"plot.svg"}) {
		t.Errorf("folder holds %q, want only plot.svg", got)
	}
}

// ReplaceFile writes over the file at path, whole, 0644, and leaves no
// temporary file; a failing write leaves the old file as it was.
func TestReplaceFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "page.md")
	if err := os.WriteFile(path, []byte("old page\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "new page\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "new page\n" {
		t.Fatalf("after ReplaceFile: %q, %v", b, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v: want 0644", fi.Mode().Perm(), err)
	}
	bad := errors.New("the writer failed")
	if err := ReplaceFile(path, func(w io.Writer) error { io.WriteString(w, "half"); return bad }); !errors.Is(err, bad) {
		t.Fatalf("a failing write: %v, want it wrapped", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new page\n" {
		t.Errorf("a failing write changed the file: %q", b)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"page.md"}) {
		t.Errorf("left in the folder: %v", got)
	}
}
