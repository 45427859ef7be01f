package scenarios

import (
	"fmt"
	"net"
	"strings"
)

// The types below are the scenario format. Each decoded field carries its
// schema in its tags, read once by schema.go and used by the decoder, by
// its error messages and by [Reference], the documentation of every key:
//
//	key:"…"       the YAML key; a field without one is not read from the file
//	doc:"…"       one line of meaning
//	type:"…"      a form beyond the Go type's: name, line, label, text,
//	              duration (an int64 of ns), whole (a float64 holding a whole number)
//	range:"…"     what is allowed: lo..hi (integers, whole numbers, entries of
//	              a list), >0, >=0, (lo,hi], [lo,hi), lo..hi for a number
//	oneof:"a,b"   the strings allowed
//	default:"…"   the value when the key is absent, written as in the file
//	required:"true"
//	entry:"…"     the noun of one entry of a list, for messages
//
// A field of type Pos receives the position of its mapping's key (a
// section) or of its entry (a list's). Cross-field rules are methods named
// check (rules.go and the kinds' files).

// Scenario is one loaded, validated scenario file, or one step of a file
// told in steps. Positions point into the file so that later checks (a
// design's parameters) can name the line too.
type Scenario struct {
	File        string // the path given, or "builtin:NAME.yaml"
	Name        string // `name`
	Title       string // `title`
	Description string // `description`: the file's, or the step's in a step
	Seed        uint64 // `seed`
	OnDemand    bool   // `on_demand`: left out of a run of every built-in scenario
	// Store is the real store to run the designs on servers on as well
	// (`store:`); nil: the simulated cluster alone. Shared by the steps.
	Store *Store

	// Assumptions are the real-world figures. The linked ones (figures.go)
	// not stated here are taken from what the scenario simulates.
	Assumptions Assumptions
	// Run is what the scenario simulates: one kind of run, picked by the
	// loader from the keys given (workload.events, workload.phases,
	// workload.audience or profile). nil in a file told in steps, where
	// each step has its own.
	Run        Run
	Questions  Questions     // what is asked of every design
	Cluster    *Cluster      // the simulated store cluster; nil without `cluster:`
	Faults     []Fault       // injected at simulated times, in time order
	Strategies []Strategy    // the designs to compare, in file order
	Expect     []Expectation // assertions on the truth's rows
	Shows      []Expectation // traps the truth's rows show on purpose
	Trials     int           // runs, each with its own derived seed (1: one run)
	FalseAlarm float64       // the false-alarm level of the tests over trials
	Goals      *Goals        // what countsim size sizes the designs to; nil without `goals:`

	// Figures are the linked figures of the scenario: each real-world
	// figure that a simulation also states, as assumed and as simulated.
	Figures []Figure

	// Steps holds the steps of a scenario told in steps (`steps:`), each a
	// Scenario of its own sharing File, Name, Title, Seed and Assumptions
	// with its parent, with Step set and its own Description, Run,
	// Questions, Cluster, Faults and Strategies. The parent has none of
	// those; strategy names are unique across all steps.
	// Sets are the -set arguments (set.go) applied to the file, in order.
	Sets []string

	Steps     []*Scenario
	Step      string // `steps[i].name`; "" outside steps
	StepTitle string // `steps[i].title`
	StepPos   Pos    // the step entry's position

	// keys holds the position of every key the file gives, by its path
	// from the top ("assumptions.key_capacity", "steps[0].cluster.nodes");
	// shared by a file and its steps. stepPath is "steps[i]" in a step.
	keys     map[string]Pos
	stepPath string
}

// Assumptions are the real-world figures (`assumptions:`) the plan works
// from at full scale. Zero = not given.
type Assumptions struct {
	Events       float64 `key:"events" range:">0" doc:"events over the period at full scale (searches in a day)"`
	Keys         float64 `key:"keys" range:">0" defaultdoc:"an audience's largest day of viewers" doc:"distinct keys at full scale (phrases; viewers of a day for distinct counting)"`
	EntryBytes   float64 `key:"entry_bytes" range:">0" doc:"bytes of one sorted-set entry"`
	ServerBytes  float64 `key:"server_bytes" range:">0" doc:"memory of one server, bytes"`
	DataFraction float64 `key:"data_fraction" range:"(0,1]" doc:"share of a server's memory given to data"`
	CounterBytes float64 `key:"counter_bytes" range:">0" doc:"bytes of one sketch counter"`
	KthCount     float64 `key:"kth_count" range:">0" doc:"count of the K-th heaviest key at full scale"`

	PeakRate    float64 `key:"peak_rate" range:">0" defaultdoc:"the peak of workload.phases" doc:"writes a second at the peak, on the hot key"`
	ReadRate    float64 `key:"read_rate" range:">0" defaultdoc:"workload.reads" doc:"reads a second of the counter"`
	KeyCapacity float64 `key:"key_capacity" range:">0" defaultdoc:"cluster.key_capacity" doc:"operations a second one store key serves"`
	Headroom    float64 `key:"headroom" range:"(0,1]" doc:"share of key_capacity to plan for"`
	AppServers  float64 `key:"app_servers" type:"whole" range:"1..1e9" doc:"app servers in front of the store"`
}

// Questions are asked of every design that can answer them (`questions:`).
type Questions struct {
	Top int `key:"top" range:"0..10000" doc:"K of the top-K question; 0: not asked"`
	// Pos is the `questions` key; when absent, the document's start (a
	// step's entry in a step).
	Pos Pos
}

// Cluster is the simulated store (`cluster:`): keys placed on nodes as
// Redis Cluster places them (or by a hash mod the nodes), each key serving
// at most KeyCapacity operations a second; more queues.
type Cluster struct {
	Nodes int `key:"nodes" range:"1..4096" default:"1" doc:"store nodes; each key lives on one, chosen by hash"`
	// KeyCapacity defaults to assumptions.key_capacity (figures.go).
	KeyCapacity  float64 `key:"key_capacity" range:">0" defaultdoc:"assumptions.key_capacity" doc:"operations a second one key serves; more queue"`
	NodeCapacity float64 `key:"node_capacity" range:">=0" default:"0" doc:"operations a second one node serves; 0: no limit"`
	// Placement is "slots" or "modulo" (sim/cluster.Placement).
	Placement string `key:"placement" oneof:"slots,modulo" default:"slots" doc:"how keys are placed on the nodes: slots, as Redis Cluster places them (CRC16 of the key's name or hash tag over 16,384 slots, the slots in contiguous ranges over the nodes as redis-cli --cluster create spreads them; a multi-key command across slots is refused, CROSSSLOT); modulo, a hash of the key mod the nodes (a multi-key command across nodes is refused; one node is one server)"`
	Pos       Pos    // the `cluster` key
}

// Store is a real Redis (`store:`) on which the designs that live on
// servers run a second time, beside their simulated cluster.
type Store struct {
	URL  string `key:"url" type:"line" required:"true" doc:"redis://host:port[/db] for one server, or redis-cluster://host:port,host:port,… for a Redis Cluster"`
	Pace string `key:"pace" oneof:"real,max" default:"real" doc:"real: a timed stream's ops are sent at their times (open loop); max: as fast as the store answers"`
	Keep bool   `key:"keep" doc:"leave the run's keys on the store (default false: they are deleted after the run); true or false"`
	Pos  Pos    // the store key
}

// check: the URL names a Redis server or cluster.
func (s *Store) check(r *rule) error {
	switch {
	case strings.HasPrefix(s.URL, "redis://") && len(s.URL) > len("redis://"):
	case strings.HasPrefix(s.URL, "redis-cluster://") && len(s.URL) > len("redis-cluster://"):
		for a := range strings.SplitSeq(strings.TrimPrefix(s.URL, "redis-cluster://"), ",") {
			if _, _, err := net.SplitHostPort(a); err != nil {
				return r.failKey("url", "node %q: %v (allowed: redis-cluster://host:port,host:port,…)", a, err)
			}
		}
	default:
		return r.failKey("url", "%q is not a Redis URL (allowed: redis://host:port[/db] or redis-cluster://host:port,host:port,…)", s.URL)
	}
	return nil
}

// Fault is one `faults:` entry: at simulated time At, an app server
// crashes (kind "app-crash", target `server`), or a store node fails: it
// loses its data (node-loss), answers nothing for a time (node-down),
// serves a share of its capacity for a time (node-slow), a partition cuts
// app servers off nodes for a time (partition), or a master dies and its
// replica takes over after a delay, losing its replication lag's writes
// (failover). Each kind takes its own keys and refuses the others'
// (rules.go).
type Fault struct {
	At     int64   `key:"at" type:"duration" range:">=0" required:"true" doc:"when, from the stream's start: before its end, in time order"`
	Kind   string  `key:"kind" oneof:"app-crash,node-loss,node-down,node-slow,partition,failover" required:"true" doc:"app-crash: an app server loses what it holds; node-loss: a store node loses its data; node-down: a store node answers nothing for a time (its writes not applied, its ops timing out); node-slow: a store node serves a share of its capacity for a time; partition: some app servers cannot reach some store nodes for a time; failover: a store master dies, its replica answers after a delay, and the writes of its replication lag are lost"`
	Server int     `key:"server" range:"0..999999999" doc:"with app-crash: the app server, below assumptions.app_servers"`
	Node   int     `key:"node" range:"0..4095" doc:"with node-loss, node-down, node-slow and failover: the store node, below cluster.nodes"`
	For    int64   `key:"for" type:"duration" range:">0" doc:"with node-down, node-slow and partition: how long the fault lasts; it ends within the stream"`
	Share  float64 `key:"share" range:"(0,1)" doc:"with node-slow: the share of its capacity (per key and per node) the slow node keeps"`
	// Servers and Nodes are a partition's sides.
	Servers []int `key:"servers" range:"0..999999999" doc:"with partition: the app servers cut off, each below assumptions.app_servers"`
	Nodes   []int `key:"nodes" range:"0..4095" doc:"with partition: the store nodes those servers cannot reach, each below cluster.nodes"`
	Delay   int64 `key:"delay" type:"duration" range:">0" doc:"with failover: from the master's death until its replica answers as the new master; it ends within the stream"`
	Lag     int64 `key:"lag" type:"duration" range:">=0" doc:"with failover: the replication lag: the writes the master served in the lag before its death had not reached the replica and are lost"`
	Target  int   // Server or Node, as the kind says
	Pos     Pos   // the entry's position
}

// Strategy is one design entry of `strategies:`.
type Strategy struct {
	Name   string  `key:"name" type:"name" required:"true" doc:"the design's name in tables: unique in the file"`
	Type   string  `key:"type" required:"true" allowed:"a design type such as count-min" doc:"a design type (countsim list shows them and their parameters)"`
	Params []Param `key:"params" doc:"the design's parameters, decoded strictly by its type"`
	// OnDemand leaves the design out of a run unless the run names it
	// (countsim run -with NAME): a design too large for every run.
	OnDemand bool `key:"on_demand" doc:"leave the design out unless the run names it with -with NAME (a design too large for every run); true or false"`
	// Expect are assertions on the design's measured metrics, checked by
	// countsim check.
	Expect []Expectation `key:"expect" doc:"the bounds and goals the design meets: assertions on its measured metrics, each 'metric op value', 'metric op plan' or 'metric op metric' (countsim check: PASS or FAIL)"`
	// Shows are the traps or failures the design shows on purpose, in the
	// same grammar: holding, an item shows the trap (countsim check:
	// SHOWN or NOT SHOWN; the report marks it ⚠, never ✔).
	Shows []Expectation `key:"shows" doc:"the traps or failures the design shows on purpose, in expect's grammar (countsim check: SHOWN or NOT SHOWN; the report marks a shown trap ⚠, never ✔)"`
	// Sweep runs the design once for each value of one parameter.
	Sweep *Sweep `key:"sweep" doc:"one parameter and a list of its values: the design runs once a value, on the same events, and the report draws its error against memory with the plan's curve"`
	Pos   Pos    // the entry's position (its first key, after the "- ")
}

// Param is one raw design parameter. Value is an int64, float64, bool or
// string, decided by the YAML scalar's tag (2.5 is a float64, 25 an int64).
// A float64 is always finite.
type Param struct {
	Key   string
	Value any
	Pos   Pos // the key's position
}

// Pos is a position in a scenario file. Line and Col count from 1; 0 means
// unknown.
type Pos struct {
	File string
	Line int
	Col  int
	// Set is the -set argument that gave the value (set.go), when the
	// command line gave it rather than the file: Line and Col are then
	// those of the key it replaced, or of the mapping it was added to.
	Set string
}

// String returns "file:line:col", "file:line" or "file" as far as known;
// for a value a -set gave, "file -set PATH=VALUE".
func (p Pos) String() string {
	switch {
	case p.Set != "" && p.File != "":
		return p.File + " -set " + p.Set
	case p.Set != "":
		return "-set " + p.Set
	case p.Line > 0 && p.Col > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// ParamPos returns the position of parameter key of the strategy at index
// strategy, or the strategy's own position if it has no such parameter (a
// rule about a missing key or several keys), or Pos{File: s.File} if the index
// is out of range. It maps a design's parameter errors back to the file.
func (s *Scenario) ParamPos(strategy int, key string) Pos {
	if strategy < 0 || strategy >= len(s.Strategies) {
		return Pos{File: s.File}
	}
	st := &s.Strategies[strategy]
	for _, p := range st.Params {
		if p.Key == key {
			return p.Pos
		}
	}
	return st.Pos
}

// KeyPos returns the position of the key at path ("cluster.key_capacity",
// "workload.phases[1].rate"), looked up in the scenario's step first and
// then at the top of the file, and whether the file gives that key.
func (s *Scenario) KeyPos(path string) (Pos, bool) {
	if s.stepPath != "" {
		if p, ok := s.keys[s.stepPath+"."+path]; ok {
			return p, true
		}
	}
	p, ok := s.keys[path]
	return p, ok
}

// Heading is the scenario's title, with its step's where it has one.
func (s *Scenario) Heading() string {
	switch {
	case s.StepTitle != "":
		return s.Title + " — " + s.StepTitle
	case s.Step != "":
		return s.Title + " — " + s.Step
	}
	return s.Title
}

// ID is "name", or "name/step" in a step.
func (s *Scenario) ID() string {
	if s.Step != "" {
		return s.Name + "/" + s.Step
	}
	return s.Name
}

// Differing returns the linked figures whose simulated value is not the
// assumed one: what a report says the simulation changed on purpose.
func (s *Scenario) Differing() []Figure {
	var out []Figure
	for _, f := range s.Figures {
		if f.Differs() {
			out = append(out, f)
		}
	}
	return out
}

// joinKeys lists keys for a message.
func joinKeys(keys []string) string { return strings.Join(keys, ", ") }
