package main

// `countsim version`: what build this is.

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"text/tabwriter"
)

var cmdVersion = &command{
	Name:      "version",
	UsageLine: "version",
	Short:     "print countsim's version, the commit it was built from, the Go version and platform",
	Long: `
Version prints the module version of countsim; the version-control revision
it was built from, that commit's time and whether the work tree had changes
not committed; the Go version that built it; and the platform (GOOS/GOARCH).
What the build did not record reads "(devel)" (the version) or "unknown": go
run and go test record no revision, go build from a git checkout does.
manifest.json records the same. countsim --version (or -version) is the same
command.`,
	Run: func(ctx context.Context, env *cmdEnv, args []string) error {
		if len(args) > 0 {
			return &usageError{msg: "version takes no arguments"}
		}
		return writeVersion(env, thisBuild())
	},
}

// build is what a binary records of how it was built.
type build struct {
	Version  string // the main module's version, "(devel)" when not recorded
	Revision string // vcs.revision, or "unknown"
	Time     string // vcs.time (RFC 3339), or "unknown"
	Modified string // vcs.modified: "true" or "false", or "unknown"
	Go       string // runtime.Version()
	Platform string // GOOS/GOARCH
}

// thisBuild is this binary's build, read off runtime/debug.ReadBuildInfo.
func thisBuild() build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return buildOf(bi)
}

// buildOf reads a build's record; bi may be nil (none was recorded).
func buildOf(bi *debug.BuildInfo) build {
	b := build{Version: "(devel)", Revision: "unknown", Time: "unknown", Modified: "unknown",
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return b
	}
	if bi.Main.Version != "" {
		b.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		if s.Value == "" {
			continue
		}
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value
		}
	}
	return b
}

// writeVersion prints b, a field a line.
func writeVersion(env *cmdEnv, b build) error {
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "countsim\t%s\n", b.Version)
	fmt.Fprintf(tw, "revision\t%s\n", b.Revision)
	fmt.Fprintf(tw, "time\t%s\n", b.Time)
	fmt.Fprintf(tw, "modified\t%s\n", b.Modified)
	fmt.Fprintf(tw, "go\t%s\n", b.Go)
	fmt.Fprintf(tw, "platform\t%s\n", b.Platform)
	return tw.Flush()
}
