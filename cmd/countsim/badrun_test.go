package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run refuses every file of testdata/bad as validate does (whose output the
// goldens pin): exit 2, the file and line named, no panic, nothing written.
func TestRunRefusesBadFiles(t *testing.T) {
	for _, name := range badFiles {
		t.Run(name, func(t *testing.T) {
			path := "testdata/bad/" + name + ".yaml"
			out := filepath.Join(t.TempDir(), "reports")
			_, errOut, code := cli(t, "run", "-q", "-out", out, path)
			if code != 2 || !strings.HasPrefix(errOut, "countsim: "+path+":") {
				t.Errorf("exit %d, %q; want exit 2 and an error at a line of %s", code, errOut, path)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("run wrote %s on bad input", out)
			}
		})
	}
}
