package scenarios

// Scenario is one loaded, validated scenario file. Positions (Pos) point
// into the file so that later checks (a design's parameters) can name the
// line too.
type Scenario struct {
	File        string // the path given, or "builtin:NAME.yaml"
	Name        string // `name`: lower-case letters, digits and '-'
	Title       string // `title`: one line for reports
	Description string // `description`: free text
	Seed        uint64 // `seed`: the run's seed (default 1)

	Assumptions Assumptions // full-scale figures for the plan
	Workload    Workload    // the simulated stream
	Questions   Questions   // what is asked of every design
	Strategies  []Strategy  // the designs to compare, in file order
}

// Assumptions are the real-world figures (`assumptions:`). Zero = not given.
type Assumptions struct {
	Events       float64 `yaml:"events"`        // events over the period, > 0
	Keys         float64 `yaml:"keys"`          // distinct keys, > 0
	EntryBytes   float64 `yaml:"entry_bytes"`   // bytes of one sorted-set entry, > 0
	ServerBytes  float64 `yaml:"server_bytes"`  // memory of one server in bytes, > 0
	DataFraction float64 `yaml:"data_fraction"` // share of server memory for data, in (0,1]
	CounterBytes float64 `yaml:"counter_bytes"` // bytes of one sketch counter, > 0
	KthCount     float64 `yaml:"kth_count"`     // count of the K-th heaviest key, > 0
}

// Workload is the simulated stream (`workload:`).
type Workload struct {
	Events       int64   // `events`: number of events, 1..1e10
	Keys         uint64  // `keys`: distinct keys n, 1..1e9
	Distribution string  // `distribution`: "zipf" (default) or "uniform"
	S            float64 // `s`: Zipf exponent, >= 0 (default 1)
	Scramble     bool    // `scramble`: map ranks to keys bijectively (default true)
	Rate         float64 // `rate`: events per simulated second, > 0 (default 1e6)
	Batch        int     // `batch`: events per batch, 1..1<<20 (default 4096)
	Pos          Pos
}

// Questions are asked of every design that can answer them (`questions:`).
type Questions struct {
	Top int // `top`: K of the top-K question, 0..10000 (0: not asked)
	Pos Pos
}

// Strategy is one design entry of `strategies:`.
type Strategy struct {
	Name   string  // `name`: unique within the scenario
	Type   string  // `type`: a registered design type (checked by sim, not here)
	Params []Param // `params`: raw, decoded strictly by the design
	Pos    Pos     // the entry's position
}

// Param is one raw design parameter. Value is an int64, float64, bool or
// string, decided by the YAML scalar's tag (2.5 is a float64, 25 an int64).
type Param struct {
	Key   string
	Value any
	Pos   Pos
}

// Pos is a position in a scenario file.
type Pos struct {
	File string
	Line int
	Col  int
}
