package workload

import (
	"fmt"
	"math"
	"time"

	"github.com/cespare/xxhash/v2"
)

// A log's record made an event: each column's text read as the LogConfig
// says (a key hashed or a decimal id, a node numbered, a score set, a time
// on the log's clock), a bad value a *LogError at its line (logfile.go
// reads the records, logcsv.go and logjson.go split them into columns).

// decode makes the current record an event. A bad value is a *LogError;
// err is an error that stops the reading.
func (r *LogReader) decode() (ev Event, bad *LogError, err error) {
	cfg := &r.cfg
	if cfg.KeyID != "" {
		ev.Key, bad = r.decimal(colKeyID)
	} else {
		ev.Key, bad = r.hashed(colKey)
	}
	if bad != nil {
		return ev, bad, nil
	}
	switch {
	case cfg.ActorID != "":
		ev.Actor, bad = r.decimal(colActorID)
	case cfg.Actor != "":
		ev.Actor, bad = r.hashed(colActor)
	}
	if bad != nil {
		return ev, bad, nil
	}
	if cfg.Node != "" {
		if ev.Actor, bad = r.node(); bad != nil {
			return ev, bad, nil
		}
	}
	switch {
	case cfg.EventID != "":
		ev.ID, bad = r.decimal(colEventID)
	case cfg.ID != "":
		ev.ID, bad = r.hashed(colID)
	default:
		ev.ID = uint64(r.events) + 1
	}
	if bad != nil {
		return ev, bad, nil
	}
	ev.Delta = 1
	if cfg.Delta != "" {
		s, bad := r.text(colDelta)
		if bad != nil {
			return ev, bad, nil
		}
		d, ok := parseDecimalI64(s)
		if !ok {
			return ev, r.bad(colDelta, fmt.Sprintf("%q is not a decimal int64", clip(s))), nil
		}
		ev.Delta = d
	}
	if cfg.Op != "" {
		s, bad := r.text(colOp)
		if bad != nil {
			return ev, bad, nil
		}
		switch s {
		case "write":
			ev.Op = Write
		case "read":
			ev.Op = Read
		case "set":
			ev.Op = Set
		default:
			return ev, r.bad(colOp, fmt.Sprintf("%q is not one of write, read, set", clip(s))), nil
		}
	}
	if cfg.Score != "" {
		if s, why := r.src.value(colScore); why == "" && s != "" {
			d, ok := parseDecimalI64(s)
			if !ok {
				return ev, r.bad(colScore, fmt.Sprintf("%q is not a decimal int64", clip(s))), nil
			}
			ev.Op, ev.Delta = Set, d
		}
	}
	// The time last: an event's time moves the clock only once the rest of
	// its line is good.
	if cfg.Time == "" {
		at := float64(r.events) * 1e9 / cfg.Rate
		if at >= math.MaxInt64 {
			return ev, nil, fatalLogError{&LogError{Path: cfg.Path, Line: r.line,
				Msg: fmt.Sprintf("event %d at %v events/s is beyond int64 time (292 years)", r.events+1, cfg.Rate)}}
		}
		ev.At = roundTime(at)
		r.events++
		return ev, nil, nil
	}
	s, bad := r.text(colTime)
	if bad != nil {
		return ev, bad, nil
	}
	t, why := parseLogTime(s)
	if why != "" {
		return ev, r.bad(colTime, fmt.Sprintf("%q is %s", clip(s), why)), nil
	}
	t0 := r.t0
	if !r.started {
		t0 = t
		if !cfg.Start.IsZero() {
			t0 = r.start
		}
	}
	at, ok := sub64(t, t0)
	if !cfg.Start.IsZero() && t < t0 {
		return ev, r.bad(colTime, fmt.Sprintf("%s is before the start %s", clip(s), cfg.Start.Format(time.RFC3339Nano))), nil
	}
	if !ok && t > t0 {
		return ev, r.bad(colTime, fmt.Sprintf("%s is more than 292 years after the first time", clip(s))), nil
	}
	reordered := false
	if r.started && (!ok || at < r.latest) {
		back, ok2 := sub64(r.latest, at)
		if !ok || !ok2 || back > int64(cfg.Tolerance) {
			msg := fmt.Sprintf("%s is more than the tolerance %v before the latest time", clip(s), cfg.Tolerance)
			if ok && ok2 {
				msg = fmt.Sprintf("%s is %v before the latest time, more than the tolerance %v", clip(s), time.Duration(back), cfg.Tolerance)
			}
			return ev, r.bad(colTime, msg), nil
		}
		at, reordered = r.latest, true
	}
	ev.At = at
	r.t0, r.started, r.latest = t0, true, at
	if reordered {
		r.reordered++
	}
	r.events++
	return ev, nil, nil
}

// node returns the number of the current record's node: its decimal below
// Nodes, or its name's number in the order names appeared.
func (r *LogReader) node() (uint64, *LogError) {
	s, bad := r.text(colNode)
	if bad != nil {
		return 0, bad
	}
	n := uint64(r.cfg.Nodes)
	if s == "" {
		return 0, r.bad(colNode, "empty: every event names its node")
	}
	if v, ok := parseDecimalU64(s); ok {
		switch {
		case len(r.nodes) > 0:
			return 0, r.bad(colNode, fmt.Sprintf("%q is a number, and the nodes before it were named (allowed: names only, or numbers only)", clip(s)))
		case v >= n:
			return 0, r.bad(colNode, fmt.Sprintf("node %d is not below the %d nodes", v, n))
		}
		r.nodeNumbers = true
		return v, nil
	}
	if r.nodeNumbers {
		return 0, r.bad(colNode, fmt.Sprintf("%q is a name, and the nodes before it were numbers (allowed: numbers only, 0..%d, or names only)", clip(s), n-1))
	}
	if v, ok := r.nodes[s]; ok {
		return v, nil
	}
	if uint64(len(r.nodes)) >= n {
		return 0, r.bad(colNode, fmt.Sprintf("%q is a node beyond the %d named before it (allowed: at most %d nodes)", clip(s), n, n))
	}
	v := uint64(len(r.nodes))
	r.nodes[s] = v
	return v, nil
}

// NodeNames returns the node names read so far by their numbers (with
// Node; a node given by its number has no name, "").
func (r *LogReader) NodeNames() []string {
	out := make([]string, len(r.nodes))
	for s, v := range r.nodes {
		out[v] = s
	}
	return out
}

// sub64 returns a − b and whether it fits an int64.
func sub64(a, b int64) (int64, bool) {
	d := a - b
	return d, (a^b)&(a^d) >= 0
}

// text returns column c's value, or a bad line if it has none.
func (r *LogReader) text(c logCol) (string, *LogError) {
	s, why := r.src.value(c)
	if why != "" {
		return "", r.bad(c, why)
	}
	return s, nil
}

func (r *LogReader) hashed(c logCol) (uint64, *LogError) {
	s, bad := r.text(c)
	if bad != nil {
		return 0, bad
	}
	return xxhash.Sum64String(s), nil
}

func (r *LogReader) decimal(c logCol) (uint64, *LogError) {
	s, bad := r.text(c)
	if bad != nil {
		return 0, bad
	}
	v, ok := parseDecimalU64(s)
	if !ok {
		return 0, r.bad(c, fmt.Sprintf("%q is not a decimal integer in [0, 2^64)", clip(s)))
	}
	return v, nil
}

// bad returns the bad line of column c's value: "column NAME (Field): msg".
func (r *LogReader) bad(c logCol, msg string) *LogError {
	return &LogError{Path: r.cfg.Path, Line: r.src.line(c), Msg: fmt.Sprintf("%s %q (%v): %s", r.colWord(), r.cols[c], c, msg)}
}

func (r *LogReader) colWord() string {
	if r.cfg.Format == "csv" {
		return "column"
	}
	return "field"
}

// clip shortens a value for an error message.
func clip(s string) string {
	const most = 64
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
}
