package main

import (
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

func TestBuildOf(t *testing.T) {
	stamped := &debug.BuildInfo{
		Main: debug.Module{Path: "countsim", Version: "v0.0.0-20261201000149-c866b9ffcd08+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "-buildmode", Value: "exe"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "c866b9ffcd08d2bb83918544f273e1926f823841"},
			{Key: "vcs.time", Value: "2026-12-01T00:01:49Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want build
	}{
		{"go build in a git checkout", stamped, build{"v0.0.0-20261201000149-c866b9ffcd08+dirty", "c866b9ffcd08d2bb83918544f273e1926f823841",
			"2026-12-01T00:01:49Z", "true", runtime.Version(), platform}},
		{"go run or go test", &debug.BuildInfo{Main: debug.Module{Path: "countsim", Version: "(devel)"}},
			build{"(devel)", "unknown", "unknown", "unknown", runtime.Version(), platform}},
		{"a test binary (no main module version)", &debug.BuildInfo{}, build{"(devel)", "unknown", "unknown", "unknown", runtime.Version(), platform}},
		{"no build info", nil, build{"(devel)", "unknown", "unknown", "unknown", runtime.Version(), platform}},
	} {
		if got := buildOf(c.bi); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestVersion(t *testing.T) {
	out, stderr, code := cli(t, "version")
	if code != 0 {
		t.Fatalf("version: exit %d: %s", code, stderr)
	}
	// go test records no revision: the fields say so rather than print nothing.
	for _, want := range []string{"countsim  (devel)\n", "revision  unknown\n", "time      unknown\n", "modified  unknown\n",
		"go        " + runtime.Version() + "\n", "platform  " + runtime.GOOS + "/" + runtime.GOARCH + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("version lacks %q:\n%s", want, out)
		}
	}
	if _, _, code := cli(t, "version", "x"); code != 2 {
		t.Errorf("version x: exit %d, want 2", code)
	}
	if out, _, code := cli(t, "help", "version"); code != 0 || !strings.Contains(out, "usage: countsim version\n") || !strings.Contains(out, "revision") {
		t.Errorf("help version: exit %d, %q", code, out)
	}
}

// help names every command, and `help CMD` gives each one's usage, as -h does.
func TestHelpCoversEveryCommand(t *testing.T) {
	usage, _, code := cli(t, "help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	names := []string{"run", "check", "diff", "plan", "validate", "list", "version"}
	for _, c := range commands {
		if !strings.Contains(usage, "\n  "+c.Name+" ") {
			t.Errorf("the usage does not list %s:\n%s", c.Name, usage)
		}
		out, stderr, code := cli(t, "help", c.Name)
		if code != 0 || !strings.HasPrefix(out, "usage: countsim "+c.UsageLine+"\n") || !strings.Contains(out, strings.TrimSpace(c.Long)) {
			t.Errorf("help %s: exit %d, %q (%s)", c.Name, code, out, stderr)
		}
		if c.SetFlags != nil && !strings.Contains(out, "\nflags:\n") {
			t.Errorf("help %s lists no flags:\n%s", c.Name, out)
		}
		// -h prints the same manual (on stderr, as the flag package does).
		if _, h, code := cli(t, c.Name, "-h"); code != 0 || h != out {
			t.Errorf("%s -h: exit %d, %q; want help %s's text", c.Name, code, h, c.Name)
		}
		names = slices.DeleteFunc(names, func(n string) bool { return n == c.Name })
	}
	if len(names) > 0 {
		t.Errorf("no command %v", names)
	}
	if out, _, code := cli(t, "help", "help"); code != 0 || out != usage {
		t.Errorf("help help: exit %d, %q", code, out)
	}
}
