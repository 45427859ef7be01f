package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refusesEdit writes the scenario at path with old replaced by new as
// bad.yaml, and checks that validate and run refuse it naming the file and
// saying want, exit 2, and that run writes nothing.
func refusesEdit(t *testing.T, path, old, new, want string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(old)) {
		t.Fatalf("%s has no %q", path, old)
	}
	file := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(file, bytes.Replace(src, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "reports")
	for _, args := range [][]string{{"validate", file}, {"run", "-out", out, file}} {
		_, errOut, code := cli(t, args...)
		if code != 2 || !strings.Contains(errOut, "bad.yaml:") || !strings.Contains(errOut, want) {
			t.Errorf("%s with %q: exit %d, %q; want exit 2 and %q", args[0], new, code, errOut, want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("run wrote %s on bad input", out)
	}
}
