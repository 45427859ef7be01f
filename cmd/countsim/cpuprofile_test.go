package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfile: run -cpuprofile writes a profile go tool pprof reads (a
// gzipped protocol buffer), and refuses a file already there, leaving it
// as it was and writing no report.
func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.prof")
	if _, errOut, code := cli(t, "run", "-q", "-out", filepath.Join(dir, "r"), "-cpuprofile", prof, "hash-tags"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("the profile is not gzipped (%d bytes)", len(b))
	}

	had := filepath.Join(dir, "mine.txt")
	if err := os.WriteFile(had, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r2")
	_, errOut, code := cli(t, "run", "-q", "-out", out, "-cpuprofile", had, "hash-tags")
	if code == 0 || !strings.Contains(errOut, "-cpuprofile") {
		t.Fatalf("a profile over an existing file: exit %d, stderr %q", code, errOut)
	}
	if b, _ := os.ReadFile(had); string(b) != "keep me" {
		t.Errorf("the file was overwritten: %q", b)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused run wrote %s", out)
	}
}
