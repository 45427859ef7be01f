package scenarios

// The document's skeleton: the top level, its steps, and the sections of
// one run; and how a read file becomes its Scenario values.

import (
	"fmt"
	"reflect"
	"slices"

	"go.yaml.in/yaml/v3"
)

// fileSpec is the top level of a scenario file.
type fileSpec struct {
	Name        string      `key:"name" type:"name" required:"true" doc:"the scenario's name, in report folders and tables"`
	Title       string      `key:"title" type:"line" doc:"one line for reports"`
	Description string      `key:"description" type:"text" doc:"free text for the report"`
	Seed        uint64      `key:"seed" range:"0..18446744073709551615" default:"1" doc:"the run's seed: the same seed gives the same results, byte for byte"`
	OnDemand    bool        `key:"on_demand" doc:"run only when named: a built-in scenario left out of a run of every built-in one (too long for it); true or false"`
	Assumptions Assumptions `key:"assumptions" doc:"the real-world figures the plan works from at full scale"`
	Store       *Store      `key:"store" doc:"a real Redis to run the designs on servers on as well, beside the simulated cluster (countsim run -store overrides it)"`
	body
	Steps []stepSpec `key:"steps" range:"1..20" entry:"step" doc:"a scenario told in steps, each with its own run and designs (and none at the top)"`
}

// stepSpec is one entry of `steps:`.
type stepSpec struct {
	Name        string `key:"name" type:"name" required:"true" doc:"the step's name, unique among the steps"`
	Title       string `key:"title" type:"line" doc:"one line for the step's heading"`
	Description string `key:"description" type:"text" doc:"free text for the step"`
	// Assumptions are the step's own figures, over the file's.
	Assumptions Assumptions `key:"assumptions" doc:"the step's own real-world figures, stated here when they concern this step alone; over the file's"`
	body
	Pos Pos // the entry's position

	// What check kept of the entry, for the rules made once the whole
	// file is read.
	k    *yaml.Node
	path string
	g    given
}

// body is the sections of one run: of a file without steps, or of a step.
type body struct {
	Run        Run        `doc:"what is simulated"`
	Questions  Questions  `key:"questions" doc:"what is asked of every design that can answer it"`
	Cluster    *Cluster   `key:"cluster" doc:"the simulated store cluster, for designs that live on servers"`
	Faults     []Fault    `key:"faults" entry:"fault" doc:"faults injected at simulated times, in time order (a timed stream only)"`
	Strategies []Strategy `key:"strategies" range:"1.." entry:"strategy" defaultdoc:"none: required unless goals: is given" doc:"the designs to compare, each run on the same events (with goals: and no strategies, countsim size sizes one design of every type that answers them)"`
	// Expect are assertions on the truth's rows (the stream itself).
	Expect []Expectation `key:"expect" doc:"assertions on the truth's measured rows (the stream itself), each 'metric op value', 'metric op plan' or 'metric op metric' (countsim check: PASS or FAIL)"`
	// Shows are traps the stream itself shows on purpose.
	Shows []Expectation `key:"shows" doc:"traps the truth's measured rows show on purpose, in expect's grammar (countsim check: SHOWN or NOT SHOWN)"`
	// Trials runs the whole scenario this many times, each with a seed of
	// its own derived from the scenario's.
	Trials int `key:"trials" range:"1..10000" default:"1" doc:"runs of the scenario, each with its own seed derived from seed (the same seeds every time): every measured figure is reported over them (mean, min, p50, p95, max), and a design's share of keys over its bound is tested against δ"`
	// FalseAlarm is the false-alarm level of the tests over trials.
	FalseAlarm float64 `key:"false_alarm" range:"(0,0.01]" default:"1e-6" doc:"the probability that a test over trials fails a correct design: a share over the bound fails when its one-sided binomial p-value is below this"`
	// Goals are what countsim size sizes the designs to (goals.go).
	Goals *Goals `key:"goals" doc:"what the answer must meet, for countsim size: it finds each design's smallest size that meets every goal, verified by trials (countsim run ignores it)"`
}

var (
	fileType = reflect.TypeFor[fileSpec]()
	bodyType = reflect.TypeFor[body]()
)

// document reads the root mapping of a file into its Scenario.
func (d *decoder) document(root *yaml.Node) (*Scenario, error) {
	var f fileSpec
	var opts objectOpts
	if stepsKey := findKey(root, "steps"); stepsKey != nil {
		// A file with steps keeps its sections in the steps: knowing that
		// before the walk lets a section at the top be refused at its own
		// line, wherever steps comes.
		sections := schemaOf(bodyType).keys()
		opts.optional = sections
		opts.refuse = func(kn *yaml.Node, key, _ string) error {
			if slices.Contains(sections, key) {
				return d.fail(kn, key, "belongs in a step, as the file has steps (line %d) (allowed: %s in each entry of steps, or no steps)",
					stepsKey.Line, key)
			}
			return nil
		}
	}
	g, err := d.object(root, root, "", schemaOf(fileType), reflect.ValueOf(&f).Elem(), opts)
	if err != nil {
		return nil, err
	}
	top := &Scenario{File: d.file, Name: f.Name, Title: f.Title, Description: f.Description, Seed: f.Seed,
		OnDemand: f.OnDemand, Assumptions: f.Assumptions, Store: f.Store, keys: d.keys}
	if len(f.Steps) == 0 {
		if err := d.checkBody(&f.body, g, root, "", true); err != nil {
			return nil, err
		}
		if err := d.finish(top, &f.body, ""); err != nil {
			return nil, err
		}
		return top, nil
	}
	// A step shares what the top level says of the whole file, which may
	// come after the steps; the rules that need it run now.
	for i := range f.Steps {
		st := &f.Steps[i]
		s := &Scenario{File: d.file, Name: f.Name, Title: f.Title, Description: st.Description, Seed: f.Seed, OnDemand: f.OnDemand, Store: f.Store,
			Assumptions: d.over(f.Assumptions, st.Assumptions, st.path), Step: st.Name, StepTitle: st.Title, StepPos: st.Pos,
			keys: d.keys, stepPath: st.path}
		if err := d.finish(s, &st.body, st.path); err != nil {
			return nil, err
		}
		top.Steps = append(top.Steps, s)
	}
	return top, nil
}

// start notes which step is being read, for the names of its strategies.
func (s *stepSpec) start(d *decoder, i int) { d.step = i }

// check: the step's name is unique among the steps, and its sections make
// one run.
func (s *stepSpec) check(r *rule) error {
	d := r.d
	for j, name := range d.stepNames {
		if name == s.Name {
			return d.fail(r.vals["name"], r.path, "name %q used twice (first at line %d; allowed: a name unique among the steps)",
				s.Name, d.nodes[fmt.Sprintf("steps[%d].name", j)].Line)
		}
	}
	d.stepNames = append(d.stepNames, s.Name)
	d.step = -1
	s.k, s.path, s.g = r.k, r.path, r.given
	return d.checkBody(&s.body, r.given, r.k, r.path, false)
}

// finish fills s with the run of b: its sections, the faults checked
// against the stream, the cluster and the assumptions, and the linked
// figures.
func (d *decoder) finish(s *Scenario, b *body, path string) error {
	s.Run, s.Questions, s.Cluster, s.Faults, s.Strategies, s.Expect, s.Shows = b.Run, b.Questions, b.Cluster, b.Faults, b.Strategies, b.Expect, b.Shows
	s.Trials, s.FalseAlarm, s.Goals = b.Trials, b.FalseAlarm, b.Goals
	if err := d.checkFaults(s, path); err != nil {
		return err
	}
	if err := d.link(s, path); err != nil {
		return err
	}
	return s.resolveFigures()
}

// over returns the file's assumptions with the figures a step states (at
// path) in its own.
func (d *decoder) over(file, step Assumptions, path string) Assumptions {
	a := file
	for _, f := range schemaOf(reflect.TypeFor[Assumptions]()).fields {
		if _, ok := d.keys[path+".assumptions."+f.Key]; ok {
			v := reflect.ValueOf(step).FieldByIndex(f.Index)
			reflect.ValueOf(&a).Elem().FieldByIndex(f.Index).Set(v)
		}
	}
	return a
}

// findKey returns the key node of key in the mapping m, or nil.
func findKey(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return k
		}
	}
	return nil
}
