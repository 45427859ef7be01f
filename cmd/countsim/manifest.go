package main

// manifest.json: what ran, where and how long.

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"countsim/sim"
)

// manifest records what produced a report.
func manifest(setups []*sim.Setup, started time.Time, wall []time.Duration, partial bool) any {
	type scen struct {
		Name    string  `json:"name"`
		File    string  `json:"file"`
		Title   string  `json:"title"`
		Seed    uint64  `json:"seed"`
		Planned int64   `json:"memory_planned_bytes"` // what the memory check counted
		Wall    float64 `json:"wall_seconds"`         // 0 for a scenario not run
	}
	type module struct {
		Path    string `json:"path"`
		Version string `json:"version"`
	}
	m := struct {
		Scenarios []scen   `json:"scenarios"`
		Started   string   `json:"started"`
		Finished  string   `json:"finished"`
		Partial   bool     `json:"partial"`
		GoVersion string   `json:"go_version"`
		Modules   []module `json:"modules"`
		Machine   any      `json:"machine"`
		Countsim  string   `json:"countsim"`
		PeakRSS   int64    `json:"peak_rss_bytes"` // the process's, over every scenario; 0 where unknown
	}{
		Started:   started.Format(time.RFC3339),
		Finished:  time.Now().UTC().Format(time.RFC3339),
		Partial:   partial,
		GoVersion: runtime.Version(),
		Machine: map[string]any{
			"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU(), "gomaxprocs": runtime.GOMAXPROCS(0),
			"hostname": hostname(),
		},
		Countsim: "(devel)",
		PeakRSS:  peakRSS(),
	}
	for i, st := range setups {
		sc := scen{st.Scenario.Name, st.Scenario.File, st.Scenario.Title, st.Scenario.Seed, st.MemoryNeeded(), 0}
		if i < len(wall) {
			sc.Wall = math.Round(wall[i].Seconds()*1000) / 1000
		}
		m.Scenarios = append(m.Scenarios, sc)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		m.Countsim = bi.Main.Version
		for _, d := range bi.Deps {
			m.Modules = append(m.Modules, module{d.Path, d.Version})
		}
	}
	return m
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}
