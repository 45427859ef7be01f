package strategies

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"countsim/internal/schema"
	"countsim/metrics"
)

// Assumptions are the real-world figures a scenario states, at full scale.
// Plans use them; the simulated stream is usually smaller. Zero means unknown.
type Assumptions struct {
	Events       float64 // events over the period (2e9 searches a day)
	Keys         float64 // distinct keys (4e8 phrases)
	EntryBytes   float64 // bytes one sorted-set entry takes (100)
	ServerBytes  float64 // memory of one server (64 GB)
	DataFraction float64 // share of a server's memory for data (0.5)
	CounterBytes float64 // bytes one sketch counter takes (4)
	KthCount     float64 // count of the K-th heaviest key at full scale (1.4e7)

	PeakRate    float64 // writes a second at the peak, on the hot key (200,000 views/s)
	ReadRate    float64 // reads a second of the counter (5,000 page reads/s)
	KeyCapacity float64 // operations a second one key takes (10,000 increments/s)
	Headroom    float64 // share of KeyCapacity to plan for, in (0,1] (0.7)
	AppServers  float64 // app servers in front of the store (200)
}

// Env is what a design is built for: the simulated stream's size and the
// scenario's questions and figures.
type Env struct {
	Seed   uint64 // seeds hashes; the same seed builds the same design
	Keys   uint64 // distinct keys the simulated stream can hold (a size hint)
	Events int64  // events in the simulated stream
	Top    int    // the K of the scenario's top-K question (0: none)
	// Full holds the figures at the scenario's full, real-world scale, and
	// Sim the same figures as simulated (the simulated stream's events and
	// keys, the phases' peak, the cluster's key capacity). A plan works its
	// simulated-scale lines out from Sim and its full-scale lines from
	// Full, so a plan never describes a stream other than the one measured.
	Full Assumptions
	Sim  Assumptions

	// Store is the design's own store (a fresh simulated cluster for each
	// design), or nil where the scenario has no cluster. Designs that live
	// on servers refuse to build without one.
	Store Store
	// Nodes is the nodes of a split stream: an event's Actor is its node,
	// 0..Nodes−1 (0: the stream is not split).
	Nodes int
	// Duration is the simulated stream's length in ns (0: not timed).
	Duration int64
	// Part numbers the part of a run the design is built for, where a run
	// builds it afresh for each part on one store: an audience's day (0, 1,
	// …). A design on a store keeps each part's keys apart by it.
	Part int
	// Reads is room to make for the values shown to readers: at least the
	// read events the stream is expected to hold, so that recording them
	// does not allocate inside Observe (more still work: the record grows).
	Reads int64
	// Population describes a run of many counters created over time (the
	// posts run), for the plan of the stripes they hold; nil otherwise.
	Population *Population
}

// PlanLine is one closed-form number of a design's plan.
type PlanLine struct {
	Metric metrics.Metric // same name as the measured metric where one matches
	Value  float64        //
	Unit   string         //
	Full   bool           // true: at the scenario's full scale; false: at the simulated scale
	Note   string         // the formula, in words: "w = ⌈e/ε⌉"
}

// Type is a registered design.
type Type struct {
	Name    string // the YAML `type`
	Summary string // one line for `countsim list`

	params    reflect.Type // the parameter struct
	build     func(Params, Env) (Strategy, error)
	plan      func(Params, Env) []PlanLine
	check     func(Params, Env) error // optional: Check's rules beyond Validate
	onServers bool                    // the design lives on a Store
	families  []Family                // the questions it answers
	errs      Bias                    // the direction its counts err
	promise   Promise                 // what its top-K answer promises
}

// Family names a question a design answers, so that a run can be checked
// before any design is built (building one may allocate a lot).
type Family string

const (
	FamilyPointCounter   Family = "point-counter"
	FamilyTopK           Family = "top-k"
	FamilyDistinct       Family = "distinct"
	FamilyReader         Family = "reader"
	FamilyRank           Family = "rank"            // Ranker: a player's rank, exact or estimated
	FamilyBoard          Family = "board"           // Board: exact ranks, leaders, count above
	FamilyTrending       Family = "trending"        // Trending: the top K of now
	FamilyWindowDistinct Family = "window-distinct" // WindowDistinct: the distinct ids of a sliding window
)

// typeOption adds to a Type what its parameters alone do not say.
type typeOption func(*Type)

// OnServers marks a design that lives on a Store.
func OnServers(t *Type) { t.onServers = true }

// Answers declares the families a design's built values implement (a test
// holds every registered type to it).
func Answers(fs ...Family) typeOption { return func(t *Type) { t.families = fs } }

// Errs declares the direction in which the design's counts and top-K items
// err; a type that declares none is exact (the conformance suite holds
// every design to its declaration).
func Errs(b Bias) typeOption { return func(t *Type) { t.errs = b } }

// Promises declares what the design's top-K answer promises.
func Promises(p Promise) typeOption { return func(t *Type) { t.promise = p } }

// CheckedBy adds rules that need the Env (values the scenario supplies,
// such as batched's app servers) to Check.
func CheckedBy[P Params](f func(P, Env) error) typeOption {
	return func(t *Type) { t.check = func(p Params, e Env) error { return f(p.(P), e) } }
}

var registry = map[string]*Type{}

// Define registers a design type: its name, a line for `countsim list`,
// how to build it from its parameters (a *P, whose fields carry package
// schema's tags) and its plan. It panics on a duplicate name or a
// malformed tag: both are programming errors caught at init.
func Define[P any, PT interface {
	*P
	Params
}](name, summary string, build func(PT, Env) (Strategy, error), plan func(PT, Env) []PlanLine, opts ...typeOption) *Type {
	if _, dup := registry[name]; dup {
		panic("strategies: type " + name + " defined twice")
	}
	t := &Type{
		Name:    name,
		Summary: summary,
		params:  reflect.TypeFor[P](),
		build:   func(p Params, e Env) (Strategy, error) { return build(p.(PT), e) },
		plan:    func(p Params, e Env) []PlanLine { return plan(p.(PT), e) },
	}
	schema.Of(t.params) // every tag read now: a malformed one panics at init
	for _, o := range opts {
		o(t)
	}
	registry[name] = t
	return t
}

// ErrUnknownType is returned by Lookup for a name no design registered.
var ErrUnknownType = errors.New("strategies: unknown type")

// Lookup returns the design registered under name.
func Lookup(name string) (*Type, error) {
	if t, ok := registry[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("%w %q (allowed: %s)", ErrUnknownType, name, strings.Join(TypeNames(), ", "))
}

// TypeNames lists the registered type names, sorted.
func TypeNames() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Types lists the registered types sorted by name.
func Types() []*Type {
	ts := make([]*Type, 0, len(registry))
	for _, n := range TypeNames() {
		ts = append(ts, registry[n])
	}
	return ts
}

// New returns a fresh parameter struct of the type at its zero value, to
// be filled by the scenario decoder (scenarios.DecodeParams), which sets
// each field's default first, or in Go.
func (t *Type) New() Params { return reflect.New(t.params).Interface().(Params) }

// Validate holds decoded parameters to their tags and their rules across
// fields (CheckParams), the type named in the error.
func (t *Type) Validate(p Params) error { return ValidateWith(t.Name, p) }

// Check is what Build would refuse, found without building: a design on
// servers in a scenario without a cluster (store false), or parameters that
// the Env must complete. A run checks every design before it starts.
func (t *Type) Check(p Params, env Env, store bool) error {
	if t.onServers && !store {
		return fmt.Errorf("%s %w", t.Name, ErrNeedsCluster)
	}
	if t.check != nil {
		if err := t.check(p, env); err != nil {
			var pe *ParamError
			if errors.As(err, &pe) && pe.Type == "" {
				pe.Type = t.Name
			}
			return err
		}
	}
	return nil
}

// OnServers reports whether the design lives on a Store.
func (t *Type) OnServers() bool { return t.onServers }

// Answers reports whether the design answers the family's question.
func (t *Type) Answers(f Family) bool { return slices.Contains(t.families, f) }

// Errs is the direction in which the design's counts err.
func (t *Type) Errs() Bias { return t.errs }

// Promises is what the design's top-K answer promises of the true top k.
func (t *Type) Promises() Promise { return t.promise }

// Build constructs the design from validated parameters.
func (t *Type) Build(p Params, env Env) (Strategy, error) { return t.build(p, env) }

// Plan returns the design's closed-form numbers.
func (t *Type) Plan(p Params, env Env) []PlanLine { return t.plan(p, env) }

// ParamDocs describes the type's parameters for `countsim list`, from
// their tags.
func (t *Type) ParamDocs() []ParamDoc {
	var docs []ParamDoc
	for _, f := range schema.Of(t.params) {
		d := ParamDoc{Key: f.Key, Kind: f.Kind(), Default: f.DefaultDoc, Allowed: f.Allowed, Range: f.RangeText(), Doc: f.Doc}
		if f.Required {
			d.Default = "required"
		}
		docs = append(docs, d)
	}
	return docs
}

// ParamDoc describes one parameter: its key, what its value is, its
// default as written ("required", or "" for none), what is allowed (in
// words, and as its range is written: 1..32, (0,1), or the values) and
// what it means.
type ParamDoc struct {
	Key, Kind, Default, Allowed, Range, Doc string
}
