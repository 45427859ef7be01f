package scenarios

// The recorded log (`workload: {file: PATH, key: COLUMN, …}`): a team's own
// events — searches, views, likes — read from a CSV or NDJSON file (gzip
// told by its content), streamed, never loaded whole, and replayed through
// every design like a count stream (issue 15).

import (
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// Log is a recorded event log and how to read it.
type Log struct {
	File    string `key:"file" type:"line" required:"true" doc:"the event log: CSV with a header line, or NDJSON (one JSON object a line), gzipped or not (told by the content); a path relative to the scenario file"`
	Format  string `key:"format" oneof:"csv,ndjson" default:"csv" doc:"csv: the first line names the columns; ndjson: one JSON object a line, its keys the columns"`
	Key     string `key:"key" type:"line" required:"true" doc:"the column of what is counted (a phrase, a video): its string is hashed with XXH64 to the key"`
	KeyID   string `key:"key_id" type:"line" doc:"a column holding each key's 64-bit id in decimal, used instead of hashing the key's string (countsim sample writes it, so that a replay gives the synthetic run's keys)"`
	Time    string `key:"time" type:"line" doc:"the column of each event's time: RFC 3339, or Unix seconds, milliseconds, microseconds or nanoseconds (told apart by size); without it events are spaced at rate"`
	Actor   string `key:"actor" type:"line" doc:"the column of who acted (a viewer), hashed like the key"`
	ActorID string `key:"actor_id" type:"line" doc:"a column holding who acted as a decimal 64-bit id, instead of actor (countsim sample writes it)"`
	ID      string `key:"id" type:"line" doc:"the column of each event's ID (a resend repeats it), hashed; default: the event's number in the log"`
	EventID string `key:"event_id" type:"line" doc:"a column holding each event's ID as a decimal 64-bit number, instead of id (countsim sample writes it)"`
	Delta   string `key:"delta" type:"line" doc:"the column of each event's increment, a whole number (default 1)"`
	Op      string `key:"op" type:"line" doc:"the column saying write (default), read or set"`
	// Rate spaces events without a time column.
	Rate float64 `key:"rate" range:">0" default:"1e6" doc:"without time: events a second, the first at 0 (with time: not allowed)"`
	// Tolerance accepts an event this much older than the latest read.
	Tolerance int64 `key:"tolerance" type:"duration" range:">=0" default:"0" doc:"how much earlier than the latest event an event may be and still be taken (at the latest's time); an event earlier still is a bad line"`
	SkipBad   int64 `key:"skip_bad" range:"0..1e12" default:"0" doc:"bad lines to skip and count in the report before one is refused (0: the first bad line is refused, with the log's name and line)"`
	Batch     int   `key:"batch" range:"1..1048576" default:"4096" doc:"events handed to the designs at a time"`
	// As is the kind of run the log is replayed as; the keys of each kind
	// but count are in a struct of their own (logas_*.go), given only with
	// that kind.
	As string `key:"as" oneof:"count,timed,audience,trending,board,ratings,split,posts" default:"count" doc:"what the log is replayed as: count, a count stream; timed, a timed stream on the simulated cluster (with cluster: and faults:); audience, the distinct actors of each day; trending, phrases over the log's own clock; board, score changes and rank reads on a leaderboard; ratings, stars given to items; split, events partitioned over nodes by a column; posts, likes of posts whose followers a posts table gives, on the simulated cluster"`
	LogAudience
	LogTrending
	LogBoard
	LogRatings
	LogSplit
	LogPosts
	Pos Pos // the workload key
}

// logAs is the options of one kind a log is replayed as (logas_*.go): a
// struct embedded in Log whose keys are refused with any other as.
type logAs interface {
	// refuses says why a run of this kind takes no such section, or "".
	refuses(section string) string
	// check checks the kind's keys against the rest of the log's.
	check(l *Log, r *rule) error
}

// logAsKinds maps a value of as to the struct of its keys (nil: none of
// its own); the keys of every other struct are refused with it.
var logAsKinds = map[string]reflect.Type{
	"count":    nil,
	"timed":    nil,
	"audience": reflect.TypeFor[LogAudience](),
	"trending": reflect.TypeFor[LogTrending](),
	"board":    reflect.TypeFor[LogBoard](),
	"ratings":  reflect.TypeFor[LogRatings](),
	"split":    reflect.TypeFor[LogSplit](),
	"posts":    reflect.TypeFor[LogPosts](),
}

// asOptions returns the options of the kind the log is replayed as (nil
// for count and timed).
func (l *Log) asOptions() logAs {
	switch l.As {
	case "audience":
		return &l.LogAudience
	case "trending":
		return &l.LogTrending
	case "board":
		return &l.LogBoard
	case "ratings":
		return &l.LogRatings
	case "split":
		return &l.LogSplit
	case "posts":
		return &l.LogPosts
	}
	return nil
}

// checkAs refuses a key of another kind than the one the log is replayed
// as, naming the kind it belongs to.
func (l *Log) checkAs(r *rule) error {
	for _, as := range slices.Sorted(maps.Keys(logAsKinds)) {
		t := logAsKinds[as]
		if t == nil || as == l.As {
			continue
		}
		for _, key := range schemaOf(t).keys() {
			if r.has(key) {
				return r.failKey(key, "is for as: %s, and this log is replayed as %s (allowed: remove %s, or as: %s)", as, l.As, key, as)
			}
		}
	}
	if o := l.asOptions(); o != nil {
		return o.check(l, r)
	}
	return nil
}

func init() {
	defineKind(&kindDef{name: "log", order: 9, key: "workload", marker: "file", what: "a recorded log",
		new: func() Run { return new(Log) }})
}

func (l *Log) Kind() string { return "log" }
func (l *Log) Where() Pos   { return l.Pos }

// Duration is 0 but for a timed replay: then the log's span, unknown until
// it is read, is taken as the longest a stream may be (a fault after the
// log's end is refused when the log is read).
func (l *Log) Duration() int64 {
	if l.As == "timed" {
		return math.MaxInt64
	}
	return 0
}
func (l *Log) simulates() []Figure { return nil }

// check: a column is read one way: actor or actor_id, id or event_id; rate
// spaces events only without time, tolerance orders them only with it.
func (l *Log) check(r *rule) error {
	switch {
	case l.Actor != "" && l.ActorID != "":
		return r.failKey("actor_id", "given with actor (allowed: one of actor, hashed, or actor_id, a decimal id)")
	case l.ID != "" && l.EventID != "":
		return r.failKey("event_id", "given with id (allowed: one of id, hashed, or event_id, a decimal id)")
	case l.Time != "" && r.has("rate"):
		return r.failKey("rate", "given with time: the log's times space its events (allowed: remove rate, or time)")
	case l.Time == "" && l.Tolerance > 0:
		return r.failKey("tolerance", "given without time: events without times are never out of order (allowed: remove tolerance, or give time)")
	}
	return l.checkAs(r)
}

// refuses: a log replayed as a count stream has no simulated cluster and
// no fault: those are a timed replay's (as: timed); every other kind says
// what it refuses itself.
func (l *Log) refuses(section string) string {
	if o := l.asOptions(); o != nil {
		return o.refuses(section)
	}
	switch section {
	case "cluster", "faults":
		if l.As == "count" {
			return "a recorded log replayed as a count stream has no simulated cluster or faults; as: timed replays it as a timed stream on the cluster"
		}
	}
	return ""
}

// Path is the log's path: File, relative to the scenario file's folder
// unless absolute (a built-in scenario's from the working directory).
func (l *Log) Path(scenarioFile string) string {
	if filepath.IsAbs(l.File) || strings.HasPrefix(scenarioFile, builtinPrefix) {
		return l.File
	}
	return filepath.Join(filepath.Dir(scenarioFile), l.File)
}
