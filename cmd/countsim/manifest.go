package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"countsim/sim"
)

// manifest.json: what ran, from which build and command line, where, how
// long and in how much memory.

// peaks holds the process's peak resident memory once each step of a run
// was done, for manifest: writeReport (report.go) passes it the steps'
// wall times alone. runRun records each step's (recordPeak) and forgets
// them once its report is written (forgetPeaks).
var peaks = struct {
	sync.Mutex
	m map[*sim.Setup]int64
}{m: map[*sim.Setup]int64{}}

// recordPeak records the peak resident memory of step st once it is done:
// the process's since the step began (resetPeakRSS). st nil records what
// the process peaked at between steps (preparing them, writing nothing),
// the most of such.
func recordPeak(st *sim.Setup, rss int64) {
	peaks.Lock()
	defer peaks.Unlock()
	if st == nil {
		rss = max(rss, peaks.m[nil])
	}
	peaks.m[st] = rss
}

// runPeak is the process's peak over the whole run: the most of every
// step's and of what came between them, and of now.
func runPeak() int64 {
	peaks.Lock()
	defer peaks.Unlock()
	peak := peakRSS()
	for _, p := range peaks.m {
		peak = max(peak, p)
	}
	return peak
}

// peakAfter is what recordPeak recorded of st, 0 if nothing.
func peakAfter(st *sim.Setup) int64 {
	peaks.Lock()
	defer peaks.Unlock()
	return peaks.m[st]
}

// forgetPeaks drops what recordPeak recorded of the setups.
func forgetPeaks(setups []*sim.Setup) {
	peaks.Lock()
	defer peaks.Unlock()
	for _, st := range setups {
		delete(peaks.m, st)
	}
	delete(peaks.m, nil)
}

// manifestStep is a step of a scenario told in steps, in manifest.json.
type manifestStep struct {
	Step    string  `json:"step"`
	Title   string  `json:"title,omitempty"`
	Planned int64   `json:"memory_planned_bytes"` // what the memory check counted
	Wall    float64 `json:"wall_seconds"`         // 0 for a step not run
	PeakRSS int64   `json:"peak_rss_bytes"`       // the step's own peak: the process's from its start to its end; 0 not run, or where unknown
}

// manifestScenario is a scenario in manifest.json: each scenario once,
// its steps (if told in steps) inside.
type manifestScenario struct {
	Name    string         `json:"name"`
	File    string         `json:"file"`
	Title   string         `json:"title"`
	Seed    uint64         `json:"seed"`
	Set     []string       `json:"set,omitempty"`        // the -set PATH=VALUE overrides applied to its file, in order
	Planned int64          `json:"memory_planned_bytes"` // the most any step planned: they run one after another
	Wall    float64        `json:"wall_seconds"`         // its steps' sum; 0 for a scenario not run
	PeakRSS int64          `json:"peak_rss_bytes"`       // the scenario's own peak, its steps' most (each the process's from the step's start to its end); 0 not run, or where unknown
	Steps   []manifestStep `json:"steps,omitempty"`
}

// manifest records what produced a report: the scenarios (wall[i] is the
// wall time of setups[i], a step or a whole scenario; missing for those
// not run), the command line, the build and the machine, and the template
// of `countsim render` that the run was for, if any.
func manifest(setups []*sim.Setup, started time.Time, wall []time.Duration, partial bool, template string) any {
	type module struct {
		Path    string `json:"path"`
		Version string `json:"version"`
	}
	b := thisBuild()
	m := struct {
		Scenarios  []*manifestScenario `json:"scenarios"`
		Template   string              `json:"template,omitempty"` // the template rendered from this run (countsim render)
		Args       []string            `json:"args"`               // the command line, os.Args
		Started    string              `json:"started"`
		Finished   string              `json:"finished"`
		Partial    bool                `json:"partial"`
		Countsim   string              `json:"countsim"`    // the module version, "(devel)" when the build recorded none
		Commit     string              `json:"commit"`      // the VCS revision built from, "unknown" when the build recorded none
		CommitTime string              `json:"commit_time"` // its time, "unknown" likewise
		Modified   string              `json:"modified"`    // "true" when built with changes not committed; "false"; "unknown"
		GoVersion  string              `json:"go_version"`
		Modules    []module            `json:"modules"`
		Machine    any                 `json:"machine"`
		PeakRSS    int64               `json:"peak_rss_bytes"` // the process's, over every scenario; 0 where unknown
	}{
		Args:       os.Args,
		Started:    started.Format(time.RFC3339),
		Finished:   time.Now().UTC().Format(time.RFC3339),
		Partial:    partial,
		Countsim:   b.Version,
		Commit:     b.Revision,
		CommitTime: b.Time,
		Modified:   b.Modified,
		GoVersion:  runtime.Version(),
		Machine: map[string]any{
			"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU(), "gomaxprocs": runtime.GOMAXPROCS(0),
			"hostname": hostname(),
		},
		PeakRSS:  runPeak(),
		Template: template,
	}
	m.Scenarios = manifestScenarios(setups, wall)
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			m.Modules = append(m.Modules, module{d.Path, d.Version})
		}
	}
	return m
}

// manifestScenarios lists each scenario once, in the order run, a
// scenario told in steps with its steps inside.
func manifestScenarios(setups []*sim.Setup, wall []time.Duration) []*manifestScenario {
	var out []*manifestScenario
	for i, st := range setups {
		scn := st.Scenario
		if len(out) == 0 || out[len(out)-1].Name != scn.Name {
			out = append(out, &manifestScenario{Name: scn.Name, File: scn.File, Title: scn.Title, Seed: scn.Seed, Set: scn.Sets})
		}
		sc := out[len(out)-1]
		var secs float64
		if i < len(wall) {
			secs = wall[i].Seconds()
		}
		peak := peakAfter(st)
		sc.Planned = max(sc.Planned, st.MemoryNeeded())
		sc.Wall += secs
		sc.PeakRSS = max(sc.PeakRSS, peak)
		if scn.Step != "" {
			sc.Steps = append(sc.Steps, manifestStep{Step: scn.Step, Title: scn.StepTitle, Planned: st.MemoryNeeded(), Wall: roundMillis(secs), PeakRSS: peak})
		}
	}
	for _, sc := range out {
		sc.Wall = roundMillis(sc.Wall)
	}
	return out
}

// roundMillis rounds seconds to the millisecond.
func roundMillis(secs float64) float64 { return math.Round(secs*1000) / 1000 }

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}
