package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// modes lists what under root is not 0755 (a folder) or 0644 (a file).
func modes(t *testing.T, root string) []string {
	t.Helper()
	var wrong []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() && fi.Mode().Perm() != 0o755 || !d.IsDir() && fi.Mode().Perm() != 0o644 {
			wrong = append(wrong, path+" "+fi.Mode().String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return wrong
}

// Every file of a report folder is readable by the group and others
// (0644), every folder 0755.
func TestReportFolderReadableByAll(t *testing.T) {
	out := t.TempDir()
	if _, stderr, code := cli(t, "run", "-q", "-out", out, "testdata/small.yaml"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "small-*"))
	if len(dirs) != 1 {
		t.Fatalf("folders %v", dirs)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "plots")); err != nil {
		t.Fatalf("no plots folder to check: %v", err)
	}
	if wrong := modes(t, dirs[0]); len(wrong) > 0 {
		t.Errorf("not 0755 folders and 0644 files:\n%s", strings.Join(wrong, "\n"))
	}
}

func TestShareable(t *testing.T) {
	dir, err := os.MkdirTemp(t.TempDir(), ".countsim-report-") // 0700, as runRun's
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "plots"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plots", "a.svg"), []byte("<svg/>"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if len(modes(t, dir)) != 4 {
		t.Fatalf("the test's tree: %q, want 4 paths of other modes", modes(t, dir))
	}
	if err := shareable(dir); err != nil {
		t.Fatal(err)
	}
	if wrong := modes(t, dir); len(wrong) > 0 {
		t.Errorf("after shareable:\n%s", strings.Join(wrong, "\n"))
	}
}
