package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPostsTooLargeIsRefusedFast: testdata/posts-16m.yaml, the built-in
// viral-posts with 16 M posts, is refused by validate and by run at its
// workload's line, exit 2, saying what it would need against the limit,
// and run writes nothing. That it is refused before its table is drawn is
// sim's TestPostsRefusedBeforeDrawing (the table generator never asked for
// more than a sample).
func TestPostsTooLargeIsRefusedFast(t *testing.T) {
	const file = "testdata/posts-16m.yaml"
	out := filepath.Join(t.TempDir(), "reports")
	for _, args := range [][]string{{"validate", file}, {"run", "-out", out, file}} {
		stdout, stderr, code := cli(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, file+":18: the run would need about ") ||
			!strings.Contains(stderr, "more than the limit of 12,884,901,888 bytes") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %s:18: the run would need about … more than the limit", args[0], code, stdout, stderr, file)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("run wrote %s for a scenario it refused", out)
	}
}
