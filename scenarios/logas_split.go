package scenarios

// A log replayed as a split stream (as: split): each event goes to the
// node a column names, and the designs that count on nodes answer as they
// do on a split stream (issue 25).

// LogSplit is the keys of a log replayed as a split stream.
type LogSplit struct {
	Node      string `key:"node" type:"line" doc:"as: split: the column of the node each event is counted on: a whole number 0..node_count−1, or a name, numbered in order of first appearance"`
	NodeCount int    `key:"node_count" range:"1..4096" doc:"as: split: the nodes; default: those the head of the log names (the first 1,048,576 events: one more than the highest number, or the names seen), a later line naming another refused"`
}

func (x *LogSplit) refuses(section string) string {
	switch section {
	case "faults":
		return "faults need a timed stream, and a split replay is not timed"
	}
	return ""
}

func (x *LogSplit) check(l *Log, r *rule) error {
	switch {
	case x.Node == "":
		return r.failHere("as: split needs the column of each event's node (allowed: node: COLUMN)")
	case l.Actor != "" || l.ActorID != "":
		key := "actor"
		if l.ActorID != "" {
			key = "actor_id"
		}
		return r.failKey(key, "given with as: split, where an event's actor is its node, read from node: %s (allowed: remove %s)", x.Node, key)
	}
	return nil
}
