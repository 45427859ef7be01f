package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMakeTestChecksItsNeedsFirst: make test's first prerequisite is
// needs, and needs, on a PATH without redis-server, redis-cli and
// Chromium, fails at once naming each with the Debian package and the
// apt-get line that installs it (make test would otherwise fail minutes
// in, at the first test that starts a server or a browser).
func TestMakeTestChecksItsNeedsFirst(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Fatal("make is not on PATH (Debian: apt-get install -y make)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^test:(.*)$`).FindSubmatch(b)
	if m == nil || strings.Fields(string(m[1]))[0] != "needs" {
		t.Fatalf("make test's prerequisites %q do not start with needs", m)
	}

	// A PATH holding only what the recipe's shell itself needs.
	bin := t.TempDir()
	for _, tool := range []string{"sh"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(mk, "-s", "-C", root, "needs")
	cmd.Env = append(os.Environ(), "PATH="+bin)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("make needs passed on a PATH without the servers:\n%s", out)
	}
	for _, want := range []string{"redis-server", "redis-tools", "chromium", "apt-get install -y --no-install-recommends redis-server redis-tools chromium"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make needs does not say %q:\n%s", want, out)
		}
	}

	// Where they are all found, it passes and says nothing.
	for _, tool := range []string{"redis-server", "redis-cli", "chromium"} {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd = exec.Command(mk, "-s", "-C", root, "needs")
	cmd.Env = append(os.Environ(), "PATH="+bin)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("make needs with every tool found: %v, %q", err, out)
	}
}
