package main

import (
	"path/filepath"

	"countsim/sim"
)

// The workload of the replay scenario countsim sample -replay writes
// (scenarios.Replay writes the rest of it).

// replayWorkload lists the workload keys that replay a sample log of
// format at logPath (as written in the scenario: relative to its folder)
// as s says: the log's columns, read as the synthetic run's keys and
// actors, and the kind's own keys. A key of s.Keys with an empty value
// drops that column. files are the paths of s.Files, in order, as the
// scenario names them.
func replayWorkload(logPath, format string, s *sim.Sampled, files []string) [][2]string {
	kv := [][2]string{{"file", logPath}, {"format", format}}
	if s.As != "count" {
		kv = append(kv, [2]string{"as", s.As})
	}
	kv = append(kv, [][2]string{{"key", "key"}, {"key_id", "key_id"}, {"time", "time"}, {"actor_id", "actor_id"},
		{"event_id", "id"}, {"delta", "delta"}, {"op", "op"}}...)
	keys := s.Keys
	for i, f := range s.Files {
		keys = append(append(keys[:len(keys):len(keys)], [2]string{f.Key, files[i]}), f.Keys...)
	}
	for _, o := range keys {
		i := indexKey(kv, o[0])
		switch {
		case i >= 0 && o[1] == "":
			kv = append(kv[:i], kv[i+1:]...)
		case i >= 0:
			kv[i][1] = o[1]
		case o[1] != "":
			kv = append(kv, o)
		}
	}
	return kv
}

func indexKey(kv [][2]string, key string) int {
	for i, p := range kv {
		if p[0] == key {
			return i
		}
	}
	return -1
}

// relativeTo returns path as the replay scenario at scenarioPath names it:
// relative to the scenario's folder where it can be.
func relativeTo(scenarioPath, path string) string {
	abs, err1 := filepath.Abs(path)
	dir, err2 := filepath.Abs(filepath.Dir(scenarioPath))
	if err1 != nil || err2 != nil {
		return path
	}
	if rel, err := filepath.Rel(dir, abs); err == nil {
		return rel
	}
	return abs
}
