package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Limits and defaults of a scenario file.
const (
	maxFileBytes = 1 << 20 // a scenario file is small; a larger one is a mistake

	maxEvents  = 10_000_000_000
	maxKeys    = 1_000_000_000
	maxBatch   = 1 << 20
	maxTop     = 10_000
	maxNameLen = 64 // names end up in file names and table columns

	maxPhases      = 1000
	maxDuration    = int64(24 * time.Hour) // of a timed stream, and of any one duration
	maxNodes       = 4096
	maxAppServers  = 1_000_000_000
	maxPhaseLabel  = 64
	maxTimedEvents = maxEvents // expected writes and reads of a timed stream

	maxDays          = 366
	maxViewers       = 10_000_000_000 // of one day
	maxViews         = 1 << 16        // a viewer's views a day
	maxAudienceViews = maxEvents      // Σ viewers × views over the days

	maxProfileCardinality = 1e9
	maxPointsPerOctave    = 64
	maxTrials             = 100_000

	maxSteps = 20

	defaultSeed         = 1
	defaultDistribution = "zipf"
	defaultS            = 1.0
	defaultScramble     = true
	defaultRate         = 1e6
	defaultBatch        = 4096
	defaultArrivals     = "even"
	defaultResendDelay  = int64(100 * time.Millisecond)
	defaultNodes        = 1
	defaultViews        = 1

	defaultProfileMin      = 1.0
	defaultProfileMax      = 1e6
	defaultPointsPerOctave = 4
	defaultTrials          = 100
)

// Values a workload or a fault may name.
var (
	distributions = []string{"zipf", "uniform"}
	arrivals      = []string{"even", "poisson"}
	faultKinds    = []string{"app-crash", "node-loss"}
)

// Load reads and parses the scenario file at path. The Scenario's File and
// every error's Pos.File are path. A file larger than 1 MiB is refused.
func Load(path string) (*Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fileError(path, err)
	}
	return Parse(path, data)
}

// fileError turns a file system error into an *Error that names path once.
func fileError(path string, err error) error {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	e := Errorf(Pos{File: path}, "%s", msg)
	e.Err = err
	return e
}

// Parse parses and validates one scenario. file is the name used in the
// Scenario's File and in errors; data is the YAML text. Every error is an
// *Error at the line of the offending key or value.
//
// The rules, beyond the schema on [Scenario]:
//   - one YAML document, a mapping; at most 1 MiB of UTF-8 text. A UTF-16
//     file (YAML allows it, some Windows tools write it) is refused with a
//     hint to save it as UTF-8, so that every line found here is the file's;
//   - unknown keys, repeated keys, anchors and aliases (&x, *x, <<) and tags
//     other than the standard !!str, !!int, !!float, !!bool, !!null, !!map and
//     !!seq are refused;
//   - an integer field takes a YAML integer (10000000, 10_000_000, 0x10,
//     0o17) or an integer-valued float (1e7, 1.0e7); 2.5 and "10" are
//     refused, and so is 010, which YAML 1.1 reads as octal 8;
//   - a number field takes an integer or a float, finite;
//   - a string field takes a string: 12, true or 2024-01-02 must be quoted;
//   - a key given with no value (`seed:`) is refused, except for the
//     mappings assumptions, questions, workload, profile, audience, cluster,
//     params and a list entry, where it is an empty mapping, and the lists
//     strategies, phases, faults, steps and days, where it is an empty list;
//   - title and description lose surrounding white space; title is one line;
//   - a duration (a phase's duration, a fault's at, resend_delay) is a Go
//     duration ("60s", "250ms", "1m30s", as time.ParseDuration reads it) or
//     a number of seconds (60, 0.25), at most 24h; it is kept in ns, a
//     number of seconds rounded to the nearest ns;
//   - a scenario (or a step) gives exactly one of workload and profile;
//     with a profile, questions, cluster and faults are refused. profile
//     defaults to min 1, max 1e6, points_per_octave 4 and trials 100, and
//     max is at least min;
//   - the workload gives exactly one of events (a count stream), phases
//     (a timed stream) and audience (viewers over days). keys is required
//     but with an audience; rate belongs to a count stream only; arrivals,
//     reads, resend and resend_delay to a timed stream only; an audience
//     takes none of keys, distribution, s, scramble and rate either;
//   - an audience has 1..366 days of 0..1e10 viewers each, at least one day
//     with a viewer, and at most 1e10 views in all (Σ viewers × views). A
//     day's overlap is 0 on the first day and at most the day's viewers and
//     the previous day's;
//   - a timed stream has 1..1000 phases lasting at most 24h in all, at least
//     one of them with a rate (or to) above 0, and at most 1e10 expected
//     events: Σ (rate+to)/2 · duration of its writes plus reads · its
//     duration (resends are not counted);
//   - cluster needs key_capacity; nodes defaults to 1 and node_capacity to
//     0 (no limit);
//   - steps holds 1..20 steps, each a mapping with a name (unique among the
//     steps), an optional one-line title, a description and the sections
//     workload or profile, questions, cluster, faults and strategies, read
//     as at the top level. A file with steps has none of those sections at
//     its top level; a strategy name is unique in the file, across steps;
//   - faults need a timed stream, each at a time before its end, and must be
//     listed in time order (equal times keep their order): a fault earlier
//     than the one before it is refused, not sorted. An app-crash names
//     its server (below assumptions.app_servers when that is given), a
//     node-loss its node (below cluster.nodes; it needs a cluster). In a
//     step, these checks use the step's workload and cluster.
//
// Design types and their parameters are not checked here: package strategies
// owns them, and [Scenario.ParamPos] maps its errors back to the file.
func Parse(file string, data []byte) (*Scenario, error) {
	if len(data) > maxFileBytes {
		return nil, Errorf(Pos{File: file}, "file is larger than %d bytes (allowed: a scenario of at most 1 MiB)", maxFileBytes)
	}
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return nil, Errorf(Pos{File: file, Line: 1, Col: 1}, "the file is UTF-16 text (allowed: UTF-8 text; save the file as UTF-8)")
	}
	root, err := parseDocument(file, data)
	if err != nil {
		return nil, err
	}
	d := &decoder{file: file, strategyNames: map[string]strategyUse{}}
	return d.scenario(root)
}

// parseDocument returns the root mapping of the one document in data.
func parseDocument(file string, data []byte) (root *yaml.Node, err error) {
	defer func() {
		// The YAML library reports errors by panicking internally and
		// recovers them itself; anything it lets escape is its bug, but a
		// bad file must still give an error, not a crash.
		if r := recover(); r != nil {
			root, err = nil, Errorf(Pos{File: file}, "YAML parser failed: %v", r)
		}
	}()
	want := "want a mapping with keys " + keyList(topKeys)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, Errorf(Pos{File: file, Line: 1, Col: 1}, "empty file (%s)", want)
		}
		return nil, syntaxError(file, data, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		return nil, syntaxError(file, data, err)
	default:
		return nil, Errorf(Pos{File: file, Line: next.Line, Col: next.Column},
			"a second YAML document starts here (allowed: one document per file)")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, Errorf(Pos{File: file, Line: 1, Col: 1}, "no YAML document (%s)", want)
	}
	root = doc.Content[0]
	if isNull(root) {
		return nil, Errorf(Pos{File: file, Line: doc.Line, Col: doc.Column}, "empty document (%s)", want)
	}
	if root.Kind != yaml.MappingNode {
		return nil, Errorf(Pos{File: file, Line: root.Line, Col: root.Column}, "the document is %s, not a mapping (%s)", describe(root), want)
	}
	return root, nil
}

var (
	yamlLine      = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)
	unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
)

// syntaxError turns the YAML library's "yaml: line N: msg" into an *Error.
// The library leaves the line out when it is line 1, and for errors of its
// reader (bad UTF-8, control characters) and of aliases; those lines are
// found here.
func syntaxError(file string, data []byte, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if parserError(m[2]) {
			// The library prints a parser error's 0-based line: that of
			// the construct being parsed (a block mapping, a flow list),
			// or of the problem when the construct starts on line 1.
			line++
		}
		return Errorf(Pos{File: file, Line: line}, "YAML syntax: %s", m[2])
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 1
	if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
			line = lineAt(data, i)
		}
	} else if i := badCharAt(data); i >= 0 {
		line = lineAt(data, i)
	}
	return Errorf(Pos{File: file, Line: line}, "YAML syntax: %s", msg)
}

// parserError reports whether msg comes from the YAML library's parser (as
// opposed to its scanner or reader); the list is that of its parserc.go.
func parserError(msg string) bool {
	switch msg {
	case "found undefined tag handle", "found duplicate %YAML directive",
		"found incompatible YAML document", "found duplicate %TAG directive":
		return true
	}
	return strings.HasPrefix(msg, "did not find expected ")
}

// lineAt returns the 1-based line of byte offset i, counting line breaks
// as the YAML library does: \r\n, \r, \n, U+0085, U+2028 and U+2029.
func lineAt(data []byte, i int) int {
	line := 1
	for j := 0; j < i && j < len(data); {
		r, size := utf8.DecodeRune(data[j:])
		switch r {
		case '\r':
			if j+1 < len(data) && data[j+1] == '\n' {
				size++
			}
			line++
		case '\n', 0x85, 0x2028, 0x2029:
			line++
		}
		j += size
	}
	return line
}

// badCharAt returns the offset of the first byte that is not valid UTF-8 or
// is a character YAML does not allow in a file, or -1.
func badCharAt(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		ok := r == '\t' || r == '\n' || r == '\r' || r == 0x85 ||
			0x20 <= r && r <= 0x7e || 0xa0 <= r && r <= 0xd7ff ||
			0xe000 <= r && r <= 0xfffd || 0x10000 <= r && r <= 0x10ffff
		if r == utf8.RuneError && size <= 1 || !ok {
			return i
		}
		i += size
	}
	return -1
}

// The keys of the document, of a step and of list entries, for messages
// given before their mappings are walked (the other lists come from the
// field tables).
var (
	topKeys      = []string{"name", "title", "description", "seed", "assumptions", "workload", "profile", "questions", "cluster", "faults", "strategies", "steps"}
	stepKeys     = []string{"name", "title", "description", "workload", "profile", "questions", "cluster", "faults", "strategies"}
	sectionKeys  = []string{"workload", "profile", "questions", "cluster", "faults", "strategies"} // of a step, or of a file without steps
	strategyKeys = []string{"name", "type", "params"}
	phaseKeys    = []string{"name", "duration", "rate", "to"}
	faultKeys    = []string{"at", "kind", "server", "node"}
	audienceKeys = []string{"days", "views", "views_max", "views_s"}
	dayKeys      = []string{"viewers", "overlap"}
)

func keyList(keys []string) string { return strings.Join(keys, ", ") }

// decoder walks the node tree of one file.
type decoder struct {
	file string
	// strategyNames maps each strategy name to its first use: names are
	// unique in the file, across all its steps.
	strategyNames map[string]strategyUse
}

// strategyUse is where a strategy name was first given: the line of its
// value, and the step it belongs to (nil outside steps).
type strategyUse struct {
	line int
	step *Scenario
}

// field is one known key of a mapping. decode gets the key node, the value
// node and the value's path ("workload.events").
type field struct {
	key      string
	required bool
	decode   func(k, v *yaml.Node, path string) error
}

func (d *decoder) pos(n *yaml.Node) Pos {
	return Pos{File: d.file, Line: n.Line, Col: n.Column}
}

// fail returns an *Error at n whose message starts with path.
func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	return Errorf(d.pos(n), "%s", msg)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (d *decoder) scenario(root *yaml.Node) (*Scenario, error) {
	s := &Scenario{File: d.file, Seed: defaultSeed}
	// A file with steps keeps its sections in the steps: knowing that
	// before the walk lets a section at the top be refused at its own line,
	// wherever steps comes.
	stepsKey := findKey(root, "steps")
	var (
		b     body    // the sections' keys of a file without steps
		steps []*body // those of each step
	)
	fields := []field{
		{key: "name", required: true, decode: func(_, v *yaml.Node, path string) (err error) {
			s.Name, err = d.name(v, path)
			return err
		}},
		{key: "title", decode: func(_, v *yaml.Node, path string) (err error) {
			s.Title, err = d.title(v, path)
			return err
		}},
		{key: "description", decode: func(_, v *yaml.Node, path string) (err error) {
			s.Description, err = d.description(v, path)
			return err
		}},
		{key: "seed", decode: func(_, v *yaml.Node, path string) (err error) {
			s.Seed, err = d.unsigned(v, path, 0, math.MaxUint64, "a non-negative integer", "0..18446744073709551615")
			return err
		}},
		{key: "assumptions", decode: func(k, v *yaml.Node, path string) error {
			return d.assumptions(k, v, path, &s.Assumptions)
		}},
	}
	if stepsKey == nil {
		s.Questions.Pos = d.pos(root)
		fields = append(fields, d.sections(s, &b, nil)...)
	} else {
		for _, key := range sectionKeys {
			fields = append(fields, field{key: key, decode: func(k, _ *yaml.Node, path string) error {
				return d.fail(k, path, "belongs in a step, as the file has steps (line %d) (allowed: %s in each entry of steps, or no steps)",
					stepsKey.Line, key)
			}})
		}
	}
	fields = append(fields, field{key: "steps", decode: func(k, v *yaml.Node, path string) (err error) {
		s.Steps, steps, err = d.steps(k, v, path)
		return err
	}})
	if err := d.mapping(root, root, "", fields); err != nil {
		return nil, err
	}
	if stepsKey == nil {
		if err := d.checkSections(s, &b, root, "", true); err != nil {
			return nil, err
		}
		if err := d.checkFaults(s, &b, ""); err != nil {
			return nil, err
		}
		return s, nil
	}
	// A step shares what the top level says of the whole file, which may
	// come after the steps; the faults are checked against it once known.
	for i, st := range s.Steps {
		st.File, st.Name, st.Title, st.Seed, st.Assumptions = s.File, s.Name, s.Title, s.Seed, s.Assumptions
		if err := d.checkFaults(st, steps[i], fmt.Sprintf("steps[%d]", i)); err != nil {
			return nil, err
		}
	}
	return s, nil
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

// title decodes a title: one line of text, trimmed.
func (d *decoder) title(v *yaml.Node, path string) (string, error) {
	t, err := d.str(v, path, "one line of text")
	if err != nil {
		return "", err
	}
	t = strings.TrimSpace(t)
	if strings.ContainsAny(t, "\r\n") {
		return "", d.fail(v, path, "more than one line (allowed: one line of text; use description for more)")
	}
	return t, nil
}

// description decodes a description: text, trimmed.
func (d *decoder) description(v *yaml.Node, path string) (string, error) {
	t, err := d.str(v, path, "text")
	return strings.TrimSpace(t), err
}

// body keeps where the sections of one scenario or step are, for the
// checks made once its mapping, or the whole file, is read.
type body struct {
	workloadKey, profileKey *yaml.Node
	runKeys                 []*yaml.Node // the keys of questions, cluster and faults, in file order
	faultsKey               *yaml.Node
	faultNodes              []faultNode
}

// Why a profile refuses each of questions, cluster and faults.
var notWithProfile = map[string]string{
	"questions": "a profile asks every design for its estimate at each cardinality, not questions",
	"cluster":   "a profile runs the designs in memory, with no store cluster",
	"faults":    "faults need a timed stream, and a profile has no stream",
}

// sections returns the fields of workload, profile, questions, cluster,
// faults and strategies, which decode into s and record their keys in b.
// step is s in a step, nil at the top level.
func (d *decoder) sections(s *Scenario, b *body, step *Scenario) []field {
	// run records the key of workload or profile, refusing the second.
	run := func(k *yaml.Node, path string, mine **yaml.Node, other *yaml.Node) error {
		if other != nil {
			return d.fail(k, path, "%s is given too, at line %d (allowed: a workload or a profile, not both)", other.Value, other.Line)
		}
		*mine = k
		return nil
	}
	return []field{
		{key: "workload", decode: func(k, v *yaml.Node, path string) error {
			if err := run(k, path, &b.workloadKey, b.profileKey); err != nil {
				return err
			}
			return d.workload(k, v, path, &s.Workload)
		}},
		{key: "profile", decode: func(k, v *yaml.Node, path string) (err error) {
			if err := run(k, path, &b.profileKey, b.workloadKey); err != nil {
				return err
			}
			s.Profile, err = d.profile(k, v, path)
			return err
		}},
		{key: "questions", decode: func(k, v *yaml.Node, path string) error {
			b.runKeys = append(b.runKeys, k)
			s.Questions.Pos = d.pos(k)
			return d.mapping(k, v, path, []field{
				{key: "top", decode: func(_, v *yaml.Node, path string) error {
					top, err := d.unsigned(v, path, 0, maxTop, "an integer", "0..10000")
					s.Questions.Top = int(top)
					return err
				}},
			})
		}},
		{key: "cluster", decode: func(k, v *yaml.Node, path string) error {
			b.runKeys = append(b.runKeys, k)
			return d.cluster(k, v, path, &s.Cluster)
		}},
		{key: "faults", decode: func(k, v *yaml.Node, path string) (err error) {
			b.runKeys = append(b.runKeys, k)
			b.faultsKey = k
			s.Faults, b.faultNodes, err = d.faults(v, path)
			return err
		}},
		{key: "strategies", required: true, decode: func(k, v *yaml.Node, path string) (err error) {
			s.Strategies, err = d.strategies(k, v, path, step)
			return err
		}},
	}
}

// checkSections checks what the sections of s say together once its
// mapping is read: a workload or a profile, and with a profile no
// questions, cluster or faults. k is where a missing workload is reported
// (the document, or the step's entry); top says whether s is the file's
// top level, where steps are the third choice.
func (d *decoder) checkSections(s *Scenario, b *body, k *yaml.Node, path string, top bool) error {
	if b.workloadKey == nil && b.profileKey == nil {
		allowed := "workload, the stream to simulate, or profile, seeded trials at cardinalities on a log grid"
		if top {
			allowed = "workload, the stream to simulate; profile, seeded trials at cardinalities on a log grid; or steps, each with one of them"
		}
		return d.fail(k, path, "missing required key \"workload\" or \"profile\" (allowed: %s)", allowed)
	}
	if b.profileKey != nil && len(b.runKeys) > 0 {
		kn := b.runKeys[0]
		return d.fail(kn, join(path, kn.Value), "%s (allowed: remove %s, or give a workload instead of profile at line %d)",
			notWithProfile[kn.Value], kn.Value, b.profileKey.Line)
	}
	return nil
}

// steps decodes the steps of a file, each a Scenario holding its own
// sections (the caller fills in what the top level says), and where their
// keys are. k is the steps key.
func (d *decoder) steps(k, v *yaml.Node, path string) ([]*Scenario, []*body, error) {
	if err := d.plain(v, path); err != nil {
		return nil, nil, err
	}
	if isNull(v) || (v.Kind == yaml.SequenceNode && len(v.Content) == 0) {
		return nil, nil, d.fail(k, path, "at least one step is required (allowed: a list of 1..20 mappings with keys %s)", keyList(stepKeys))
	}
	var (
		out    []*Scenario
		bodies []*body
	)
	first := map[string]int{} // step name -> line of its first use
	err := d.list(v, path, stepKeys, func(i int, item *yaml.Node, ipath string) error {
		if i == maxSteps {
			return d.fail(item, path, "more than 20 steps (allowed: 1..20 steps)")
		}
		st := &Scenario{StepPos: d.pos(item), Questions: Questions{Pos: d.pos(item)}}
		b := &body{}
		fields := []field{
			{key: "name", required: true, decode: func(_, v *yaml.Node, path string) (err error) {
				if st.Step, err = d.name(v, path); err != nil {
					return err
				}
				if line, dup := first[st.Step]; dup {
					return d.fail(v, ipath, "name %q used twice (first at line %d; allowed: a name unique among the steps)", st.Step, line)
				}
				first[st.Step] = v.Line
				return nil
			}},
			{key: "title", decode: func(_, v *yaml.Node, path string) (err error) {
				st.StepTitle, err = d.title(v, path)
				return err
			}},
			{key: "description", decode: func(_, v *yaml.Node, path string) (err error) {
				st.Description, err = d.description(v, path)
				return err
			}},
		}
		fields = append(fields, d.sections(st, b, st)...)
		if err := d.mapping(item, item, ipath, fields); err != nil {
			return err
		}
		if err := d.checkSections(st, b, item, ipath, false); err != nil {
			return err
		}
		out = append(out, st)
		bodies = append(bodies, b)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, bodies, nil
}

// profile decodes `profile:`; k is the profile key.
func (d *decoder) profile(k, v *yaml.Node, path string) (*Profile, error) {
	p := &Profile{
		Min:             defaultProfileMin,
		Max:             defaultProfileMax,
		PointsPerOctave: defaultPointsPerOctave,
		Trials:          defaultTrials,
		Pos:             d.pos(k),
	}
	var minNode, maxNode *yaml.Node
	cardinality := func(x float64) bool { return x >= 1 && x <= maxProfileCardinality }
	err := d.mapping(k, v, path, []field{
		{key: "min", decode: func(_, v *yaml.Node, path string) (err error) {
			minNode = v
			p.Min, err = d.number(v, path, cardinality, "a number from 1 to 1e9, the smallest cardinality")
			return err
		}},
		{key: "max", decode: func(_, v *yaml.Node, path string) (err error) {
			maxNode = v
			p.Max, err = d.number(v, path, cardinality, "a number from 1 to 1e9 and at least min, the largest cardinality")
			return err
		}},
		{key: "points_per_octave", decode: func(_, v *yaml.Node, path string) error {
			n, err := d.unsigned(v, path, 1, maxPointsPerOctave, "an integer", "1..64, grid points per doubling of the cardinality")
			p.PointsPerOctave = int(n)
			return err
		}},
		{key: "trials", decode: func(_, v *yaml.Node, path string) error {
			n, err := d.unsigned(v, path, 1, maxTrials, "an integer", "1..100000, seeded trials at each cardinality")
			p.Trials = int(n)
			return err
		}},
	})
	if err != nil {
		return nil, err
	}
	if p.Max < p.Min {
		if maxNode == nil {
			return nil, d.fail(minNode, join(path, "min"), "%s is above max, 1e6 when not given (allowed: 1..1e6, or give a max from min to 1e9)", describe(minNode))
		}
		return nil, d.fail(maxNode, join(path, "max"), "%s is below min, %s at line %d (allowed: %s..1e9)",
			describe(maxNode), describe(minNode), minNode.Line, describe(minNode))
	}
	return p, nil
}

func (d *decoder) assumptions(k, v *yaml.Node, path string, a *Assumptions) error {
	positive := func(dst *float64) func(_, v *yaml.Node, path string) error {
		return func(_, v *yaml.Node, path string) (err error) {
			*dst, err = d.number(v, path, func(x float64) bool { return x > 0 }, "a number > 0")
			return err
		}
	}
	return d.mapping(k, v, path, []field{
		{key: "events", decode: positive(&a.Events)},
		{key: "keys", decode: positive(&a.Keys)},
		{key: "entry_bytes", decode: positive(&a.EntryBytes)},
		{key: "server_bytes", decode: positive(&a.ServerBytes)},
		{key: "data_fraction", decode: func(_, v *yaml.Node, path string) (err error) {
			a.DataFraction, err = d.number(v, path, func(x float64) bool { return x > 0 && x <= 1 }, "a number in (0,1]")
			return err
		}},
		{key: "counter_bytes", decode: positive(&a.CounterBytes)},
		{key: "kth_count", decode: positive(&a.KthCount)},
		{key: "peak_rate", decode: positive(&a.PeakRate)},
		{key: "read_rate", decode: positive(&a.ReadRate)},
		{key: "key_capacity", decode: positive(&a.KeyCapacity)},
		{key: "headroom", decode: func(_, v *yaml.Node, path string) (err error) {
			a.Headroom, err = d.number(v, path, func(x float64) bool { return x > 0 && x <= 1 }, "a number in (0,1]")
			return err
		}},
		{key: "app_servers", decode: func(_, v *yaml.Node, path string) error {
			n, err := d.unsigned(v, path, 1, maxAppServers, "a whole number", "a whole number, 1..1e9")
			a.AppServers = float64(n)
			return err
		}},
	})
}

// timedKeys are the workload keys of a timed stream only.
var timedKeys = map[string]bool{"arrivals": true, "reads": true, "resend": true, "resend_delay": true}

// Why an audience refuses each workload key it does not take (timed keys
// aside: they need phases).
var notWithAudience = map[string]string{
	"keys":         "an audience has one key, the video",
	"distribution": "an audience has one key, the video, so no distribution of keys",
	"s":            "an audience has one key, the video, so no Zipf exponent of keys",
	"scramble":     "an audience's viewer ids are always scrambled",
	"rate":         "an audience's views are counted by day, not at a rate",
}

func (d *decoder) workload(k, v *yaml.Node, path string, w *Workload) error {
	*w = Workload{
		Distribution: defaultDistribution,
		S:            defaultS,
		Scramble:     defaultScramble,
		Rate:         defaultRate,
		Batch:        defaultBatch,
		Pos:          d.pos(k),
		Arrivals:     defaultArrivals,
		ResendDelay:  defaultResendDelay,
	}
	var (
		sNode, keysKey, rateKey *yaml.Node
		streamKey               *yaml.Node   // events, phases or audience, the one given
		given                   []*yaml.Node // the other keys but batch, in file order
	)
	// stream records the key of events, phases or audience, refusing a
	// second one.
	stream := func(kn *yaml.Node, path string) error {
		if streamKey != nil {
			return d.fail(kn, path, "%s is given too, at line %d (allowed: one of events for a count stream, phases for a timed stream or audience for viewers over days)",
				streamKey.Value, streamKey.Line)
		}
		streamKey = kn
		return nil
	}
	// opt is a key that some kinds of stream refuse.
	opt := func(key string, decode func(kn, v *yaml.Node, path string) error) field {
		return field{key: key, decode: func(kn, v *yaml.Node, path string) error {
			given = append(given, kn)
			return decode(kn, v, path)
		}}
	}
	err := d.mapping(k, v, path, []field{
		{key: "events", decode: func(kn, v *yaml.Node, path string) error {
			if err := stream(kn, path); err != nil {
				return err
			}
			n, err := d.unsigned(v, path, 1, maxEvents, "an integer", "1..1e10")
			w.Events = int64(n)
			return err
		}},
		// keys is required but for an audience, which has one key (Keys 0).
		opt("keys", func(kn, v *yaml.Node, path string) (err error) {
			keysKey = kn
			w.Keys, err = d.unsigned(v, path, 1, maxKeys, "an integer", "1..1e9")
			return err
		}),
		opt("distribution", func(_, v *yaml.Node, path string) (err error) {
			w.Distribution, err = d.oneOf(v, path, distributions)
			return err
		}),
		opt("s", func(_, v *yaml.Node, path string) (err error) {
			sNode = v
			w.S, err = d.number(v, path, func(x float64) bool { return x >= 0 }, "a number >= 0")
			return err
		}),
		opt("scramble", func(_, v *yaml.Node, path string) (err error) {
			w.Scramble, err = d.boolean(v, path)
			return err
		}),
		opt("rate", func(kn, v *yaml.Node, path string) (err error) {
			rateKey = kn
			w.Rate, err = d.number(v, path, func(x float64) bool { return x > 0 }, "a number > 0 (events per simulated second)")
			return err
		}),
		{key: "batch", decode: func(_, v *yaml.Node, path string) error {
			n, err := d.unsigned(v, path, 1, maxBatch, "an integer", "1..1048576")
			w.Batch = int(n)
			return err
		}},
		{key: "phases", decode: func(kn, v *yaml.Node, path string) (err error) {
			if err := stream(kn, path); err != nil {
				return err
			}
			w.Phases, err = d.phases(kn, v, path)
			return err
		}},
		opt("arrivals", func(_, v *yaml.Node, path string) (err error) {
			w.Arrivals, err = d.oneOf(v, path, arrivals)
			return err
		}),
		opt("reads", func(_, v *yaml.Node, path string) (err error) {
			w.Reads, err = d.number(v, path, func(x float64) bool { return x >= 0 }, "a number >= 0 (reads per simulated second)")
			return err
		}),
		opt("resend", func(_, v *yaml.Node, path string) (err error) {
			w.Resend, err = d.number(v, path, func(x float64) bool { return x >= 0 && x < 1 }, "a number in [0,1) (the share of writes sent twice)")
			return err
		}),
		opt("resend_delay", func(_, v *yaml.Node, path string) (err error) {
			w.ResendDelay, err = d.duration(v, path, 0)
			return err
		}),
		{key: "audience", decode: func(kn, v *yaml.Node, path string) (err error) {
			if err := stream(kn, path); err != nil {
				return err
			}
			w.Audience, err = d.audience(kn, v, path)
			return err
		}},
	})
	if err != nil {
		return err
	}
	if streamKey == nil {
		return d.fail(k, "", "%s needs events (a count), phases (a timed stream) or audience (viewers over days) (allowed: events: 1..1e10; phases: a list of mappings with keys %s; or audience: a mapping with keys %s)",
			path, keyList(phaseKeys), keyList(audienceKeys))
	}
	if streamKey.Value == "audience" {
		if len(given) > 0 {
			kn := given[0]
			if timedKeys[kn.Value] {
				return d.fail(kn, join(path, kn.Value), "needs phases, a timed stream (allowed: remove %s, or give phases instead of audience)", kn.Value)
			}
			return d.fail(kn, join(path, kn.Value), "%s (allowed: remove %s, or give events or phases instead of audience)", notWithAudience[kn.Value], kn.Value)
		}
		// Only what applies is kept: Keys stays 0 (the one key, the
		// video, is the stream's), and the keys' distribution, the rate,
		// the arrivals and resends are zero rather than defaults.
		*w = Workload{Batch: w.Batch, Pos: w.Pos, Audience: w.Audience}
		return nil
	}
	if keysKey == nil {
		return d.fail(k, path, "missing required key %q", "keys")
	}
	if sNode != nil && w.Distribution != "zipf" {
		// An ignored setting would read as if it mattered.
		return d.fail(sNode, join(path, "s"), "applies only to distribution zipf (allowed: remove s, or set distribution: zipf)")
	}
	if streamKey.Value == "events" {
		for _, kn := range given {
			if timedKeys[kn.Value] {
				return d.fail(kn, join(path, kn.Value), "needs phases, a timed stream (allowed: remove %s, or give phases instead of events)", kn.Value)
			}
		}
		return nil
	}
	if rateKey != nil {
		return d.fail(rateKey, join(path, "rate"), "a timed stream takes its rates from phases (allowed: remove rate, or give events instead of phases)")
	}
	w.Rate = 0
	return d.checkTimed(streamKey, join(path, "phases"), w)
}

// audience decodes `workload.audience`; k is the audience key.
func (d *decoder) audience(k, v *yaml.Node, path string) (*Audience, error) {
	a := &Audience{Views: defaultViews, Pos: d.pos(k)}
	var daysKey, viewsKey, maxKey, sKey *yaml.Node
	err := d.mapping(k, v, path, []field{
		{key: "days", required: true, decode: func(kn, v *yaml.Node, path string) (err error) {
			daysKey = kn
			a.Days, err = d.days(kn, v, path)
			return err
		}},
		{key: "views", decode: func(kn, v *yaml.Node, path string) error {
			viewsKey = kn
			n, err := d.unsigned(v, path, 1, maxViews, "an integer", "1..65536, the views a viewer makes each day it watches")
			a.Views = int(n)
			return err
		}},
		{key: "views_max", decode: func(kn, v *yaml.Node, path string) error {
			maxKey = kn
			n, err := d.unsigned(v, path, 2, maxViews, "an integer", "2..65536, the most views a viewer makes a day (Zipf views)")
			a.ViewsMax = int(n)
			return err
		}},
		{key: "views_s", decode: func(kn, v *yaml.Node, path string) error {
			sKey = kn
			x, err := d.number(v, path, func(x float64) bool { return x > 0 && x <= 10 }, "a number in (0, 10], the Zipf exponent of the views")
			a.ViewsS = x
			return err
		}},
	})
	if err != nil {
		return nil, err
	}
	switch {
	case viewsKey != nil && maxKey != nil:
		return nil, d.fail(maxKey, join(path, "views_max"), "views is given too, at line %d (allowed: views for a fixed number, or views_max with views_s for Zipf views)", viewsKey.Line)
	case sKey != nil && maxKey == nil:
		return nil, d.fail(sKey, join(path, "views_s"), "needs views_max (allowed: views_max with views_s for Zipf views)")
	case maxKey != nil:
		a.Views = 0
		if sKey == nil {
			a.ViewsS = 1
		}
	}
	var viewers int64 // at most 366 × 1e10: no overflow, nor below
	for _, day := range a.Days {
		viewers += day.Viewers
	}
	if viewers == 0 {
		return nil, d.fail(daysKey, join(path, "days"), "no day has a viewer (allowed: at least one day with viewers above 0)")
	}
	if a.ViewsMax == 0 {
		if total := viewers * int64(a.Views); total > maxAudienceViews {
			return nil, d.fail(k, path, "the days hold %d viewers × views %d = %d views, more than 1e10 (allowed: at most 1e10 views in all; fewer viewers or views)",
				viewers, a.Views, total)
		}
	} else if total := float64(viewers) * a.MeanViews(); total > maxAudienceViews {
		return nil, d.fail(k, path, "the days hold %d viewers × %.4g views on average = %.4g views, more than 1e10 (allowed: at most 1e10 views in all; fewer viewers or a smaller views_max)",
			viewers, a.MeanViews(), total)
	}
	return a, nil
}

// days decodes the days of an audience; k is the days key.
func (d *decoder) days(k, v *yaml.Node, path string) ([]AudienceDay, error) {
	if err := d.plain(v, path); err != nil {
		return nil, err
	}
	if isNull(v) || (v.Kind == yaml.SequenceNode && len(v.Content) == 0) {
		return nil, d.fail(k, path, "at least one day is required (allowed: a list of 1..366 mappings with keys %s)", keyList(dayKeys))
	}
	var out []AudienceDay
	err := d.list(v, path, dayKeys, func(i int, item *yaml.Node, ipath string) error {
		if i == maxDays {
			return d.fail(item, path, "more than 366 days (allowed: 1..366 days)")
		}
		day := AudienceDay{Pos: d.pos(item)}
		var overlap *yaml.Node
		err := d.mapping(item, item, ipath, []field{
			{key: "viewers", required: true, decode: func(_, v *yaml.Node, path string) error {
				n, err := d.unsigned(v, path, 0, maxViewers, "an integer", "0..1e10, the day's distinct viewers")
				day.Viewers = int64(n)
				return err
			}},
			{key: "overlap", decode: func(_, v *yaml.Node, path string) error {
				overlap = v
				n, err := d.unsigned(v, path, 0, maxViewers, "an integer", "0..1e10, the day's viewers who also watched the day before")
				day.Overlap = int64(n)
				return err
			}},
		})
		if err != nil {
			return err
		}
		// Keys come in any order: the overlap is checked once the day is read.
		if opath := join(ipath, "overlap"); i == 0 {
			if day.Overlap > 0 {
				return d.fail(overlap, opath, "%d on the first day (allowed: 0, as no day comes before it)", day.Overlap)
			}
		} else if prev := out[i-1]; day.Overlap > day.Viewers || day.Overlap > prev.Viewers {
			limit := min(day.Viewers, prev.Viewers)
			if day.Overlap > day.Viewers {
				return d.fail(overlap, opath, "%d is more than the day's %d viewers (allowed: 0..%d, at most the day's viewers and the day before's)",
					day.Overlap, day.Viewers, limit)
			}
			return d.fail(overlap, opath, "%d is more than the %d viewers of the day before, at line %d (allowed: 0..%d, at most the day's viewers and the day before's)",
				day.Overlap, prev.Viewers, prev.Pos.Line, limit)
		}
		out = append(out, day)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkTimed checks a timed stream's totals. k is the phases key.
func (d *decoder) checkTimed(k *yaml.Node, path string, w *Workload) error {
	if total := w.Duration(); total > maxDuration {
		return d.fail(k, path, "the phases last %v in all (allowed: at most 24h in all)", time.Duration(total))
	}
	positive := false
	for _, p := range w.Phases {
		positive = positive || p.Rate > 0 || p.To > 0
	}
	if !positive {
		return d.fail(k, path, "no phase has a rate above 0 (allowed: at least one phase with rate or to > 0)")
	}
	writes := w.ExpectedWrites()
	reads := w.Reads * float64(w.Duration()) / 1e9
	if !(writes+reads <= maxTimedEvents) {
		return d.fail(k, path, "the stream would hold about %.4g events (%.4g writes + %.4g reads), more than 1e10 (allowed: at most 1e10 events; lower the rates or shorten the phases)",
			writes+reads, writes, reads)
	}
	return nil
}

// phases decodes the phases of a timed stream; k is the phases key.
func (d *decoder) phases(k, v *yaml.Node, path string) ([]Phase, error) {
	if err := d.plain(v, path); err != nil {
		return nil, err
	}
	if isNull(v) || (v.Kind == yaml.SequenceNode && len(v.Content) == 0) {
		return nil, d.fail(k, path, "at least one phase is required (allowed: a list of 1..1000 mappings with keys %s)", keyList(phaseKeys))
	}
	var out []Phase
	err := d.list(v, path, phaseKeys, func(i int, item *yaml.Node, ipath string) error {
		if i == maxPhases {
			return d.fail(item, path, "more than 1000 phases (allowed: 1..1000 phases)")
		}
		p := Phase{Pos: d.pos(item)}
		toGiven := false
		err := d.mapping(item, item, ipath, []field{
			{key: "name", decode: func(_, v *yaml.Node, path string) (err error) {
				p.Name, err = d.label(v, path)
				return err
			}},
			{key: "duration", required: true, decode: func(_, v *yaml.Node, path string) (err error) {
				p.Duration, err = d.duration(v, path, 1)
				return err
			}},
			{key: "rate", required: true, decode: func(_, v *yaml.Node, path string) (err error) {
				p.Rate, err = d.number(v, path, func(x float64) bool { return x >= 0 }, "a number >= 0 (writes per simulated second at the phase's start)")
				return err
			}},
			{key: "to", decode: func(_, v *yaml.Node, path string) (err error) {
				toGiven = true
				p.To, err = d.number(v, path, func(x float64) bool { return x >= 0 }, "a number >= 0 (writes per simulated second at the phase's end)")
				return err
			}},
		})
		if !toGiven {
			p.To = p.Rate
		}
		out = append(out, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

const labelRule = "one line of text, at most 64 characters"

// label decodes a phase's name: one line of text, trimmed, not empty.
func (d *decoder) label(n *yaml.Node, path string) (string, error) {
	s, err := d.str(n, path, labelRule)
	if err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "\r\n") || utf8.RuneCountInString(s) > maxPhaseLabel {
		return "", d.fail(n, path, "%s is not allowed (allowed: %s)", describe(n), labelRule)
	}
	return s, nil
}

// cluster decodes the simulated store cluster; k is the cluster key.
func (d *decoder) cluster(k, v *yaml.Node, path string, c *Cluster) error {
	*c = Cluster{Given: true, Nodes: defaultNodes, Pos: d.pos(k)}
	return d.mapping(k, v, path, []field{
		{key: "nodes", decode: func(_, v *yaml.Node, path string) error {
			n, err := d.unsigned(v, path, 1, maxNodes, "an integer", "1..4096")
			c.Nodes = int(n)
			return err
		}},
		{key: "key_capacity", required: true, decode: func(_, v *yaml.Node, path string) (err error) {
			c.KeyCapacity, err = d.number(v, path, func(x float64) bool { return x > 0 }, "a number > 0 (operations a second one key serves)")
			return err
		}},
		{key: "node_capacity", decode: func(_, v *yaml.Node, path string) (err error) {
			c.NodeCapacity, err = d.number(v, path, func(x float64) bool { return x >= 0 }, "a number >= 0 (operations a second one node serves; 0: no limit)")
			return err
		}},
	})
}

// faultNode keeps where a fault's values are, for the checks made once the
// whole file is read.
type faultNode struct {
	at, kind, target *yaml.Node
}

// faults decodes the faults list, checking each entry on its own.
func (d *decoder) faults(v *yaml.Node, path string) ([]Fault, []faultNode, error) {
	var (
		out   []Fault
		nodes []faultNode
	)
	err := d.list(v, path, faultKeys, func(_ int, item *yaml.Node, ipath string) error {
		f := Fault{Pos: d.pos(item)}
		var fn faultNode
		var serverKey, nodeKey, serverVal, nodeVal *yaml.Node
		var server, node int
		err := d.mapping(item, item, ipath, []field{
			{key: "at", required: true, decode: func(_, v *yaml.Node, path string) (err error) {
				fn.at = v
				f.At, err = d.duration(v, path, 0)
				return err
			}},
			{key: "kind", required: true, decode: func(_, v *yaml.Node, path string) (err error) {
				fn.kind = v
				f.Kind, err = d.oneOf(v, path, faultKinds)
				return err
			}},
			{key: "server", decode: func(kn, v *yaml.Node, path string) error {
				serverKey, serverVal = kn, v
				n, err := d.unsigned(v, path, 0, maxAppServers-1, "an integer", "0..999999999, an app server's number")
				server = int(n)
				return err
			}},
			{key: "node", decode: func(kn, v *yaml.Node, path string) error {
				nodeKey, nodeVal = kn, v
				n, err := d.unsigned(v, path, 0, maxNodes-1, "an integer", "0..4095, a cluster node's number")
				node = int(n)
				return err
			}},
		})
		if err != nil {
			return err
		}
		switch f.Kind {
		case "app-crash":
			if nodeKey != nil {
				return d.fail(nodeKey, join(ipath, "node"), "kind app-crash targets an app server (allowed: server, not node)")
			}
			if serverKey == nil {
				return d.fail(item, ipath, "kind app-crash needs key \"server\" (allowed: server: the crashed app server's number, from 0)")
			}
			f.Target, fn.target = server, serverVal
		case "node-loss":
			if serverKey != nil {
				return d.fail(serverKey, join(ipath, "server"), "kind node-loss targets a cluster node (allowed: node, not server)")
			}
			if nodeKey == nil {
				return d.fail(item, ipath, "kind node-loss needs key \"node\" (allowed: node: the lost cluster node's number, from 0)")
			}
			f.Target, fn.target = node, nodeVal
		}
		out = append(out, f)
		nodes = append(nodes, fn)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, nodes, nil
}

// checkFaults checks the faults of s against the rest of it: they need a
// timed stream, fall within it in time order, and name a server or node
// that exists. b holds where the faults are; path is "" at the top level
// and "steps[i]" in a step.
func (d *decoder) checkFaults(s *Scenario, b *body, path string) error {
	if len(s.Faults) == 0 {
		return nil
	}
	fpath := join(path, "faults")
	if !s.Workload.Timed() {
		return d.fail(b.faultsKey, fpath, "faults need a timed stream (allowed: workload phases instead of events or audience, or no faults)")
	}
	total := s.Workload.Duration()
	for i, f := range s.Faults {
		n, path := b.faultNodes[i], fmt.Sprintf("%s[%d]", fpath, i)
		if f.At >= total {
			return d.fail(n.at, join(path, "at"), "%v is not within the stream (allowed: a time before %v, the phases' total duration)",
				time.Duration(f.At), time.Duration(total))
		}
		if i > 0 && f.At < s.Faults[i-1].At {
			return d.fail(n.at, join(path, "at"), "%v is before %v of %s[%d] at line %d (allowed: faults in time order)",
				time.Duration(f.At), time.Duration(s.Faults[i-1].At), fpath, i-1, b.faultNodes[i-1].at.Line)
		}
		switch f.Kind {
		case "app-crash":
			if a := s.Assumptions.AppServers; a > 0 && float64(f.Target) >= a {
				return d.fail(n.target, join(path, "server"), "%d is out of range (allowed: 0..%d, as assumptions.app_servers is %d)",
					f.Target, int64(a)-1, int64(a))
			}
		case "node-loss":
			c := s.Cluster
			if !c.Given {
				return d.fail(n.kind, join(path, "kind"), "node-loss needs a cluster (allowed: add cluster: with key_capacity, or kind app-crash)")
			}
			if f.Target >= c.Nodes {
				return d.fail(n.target, join(path, "node"), "%d is out of range (allowed: 0..%d, as cluster.nodes is %d)",
					f.Target, c.Nodes-1, c.Nodes)
			}
		}
	}
	return nil
}

// strategies decodes a strategies list; step is the step it belongs to,
// nil at the top level. Names are unique in the file, across its steps.
func (d *decoder) strategies(k, v *yaml.Node, path string, step *Scenario) ([]Strategy, error) {
	const want = "a list of mappings with keys name, type, params"
	if err := d.plain(v, path); err != nil {
		return nil, err
	}
	if isNull(v) || (v.Kind == yaml.SequenceNode && len(v.Content) == 0) {
		return nil, d.fail(k, path, "at least one strategy is required (allowed: %s)", want)
	}
	var out []Strategy
	err := d.list(v, path, strategyKeys, func(_ int, item *yaml.Node, ipath string) error {
		st := Strategy{Pos: d.pos(item)}
		err := d.mapping(item, item, ipath, []field{
			{key: "name", required: true, decode: func(_, v *yaml.Node, _ string) (err error) {
				if st.Name, err = d.name(v, ipath+".name"); err != nil {
					return err
				}
				switch use, dup := d.strategyNames[st.Name]; {
				case dup && use.step == step:
					return d.fail(v, ipath, "name %q used twice (first at line %d; allowed: a name unique in the file)", st.Name, use.line)
				case dup:
					return d.fail(v, ipath, "name %q used in step %q at line %d (allowed: a name unique in the file, across all steps)",
						st.Name, use.step.Step, use.line)
				}
				d.strategyNames[st.Name] = strategyUse{line: v.Line, step: step}
				return nil
			}},
			{key: "type", required: true, decode: func(_, v *yaml.Node, path string) error {
				t, err := d.str(v, path, "a design type such as count-min")
				if err == nil && t == "" {
					err = d.fail(v, path, "empty (allowed: a design type such as count-min)")
				}
				st.Type = t
				return err
			}},
			{key: "params", decode: func(_, v *yaml.Node, path string) (err error) {
				st.Params, err = d.params(v, path)
				return err
			}},
		})
		out = append(out, st)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// list walks the list v whose entries are mappings with the given keys,
// calling each with every entry's index and path ("faults[2]"). A null v
// has no entries; whether none is allowed is for the caller to say.
func (d *decoder) list(v *yaml.Node, path string, keys []string, each func(i int, item *yaml.Node, path string) error) error {
	if err := d.plain(v, path); err != nil {
		return err
	}
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		return d.fail(v, path, "%s is not a list (allowed: a list of mappings with keys %s)", describe(v), keyList(keys))
	}
	for i, item := range v.Content {
		ipath := fmt.Sprintf("%s[%d]", path, i)
		if err := d.plain(item, ipath); err != nil {
			return err
		}
		if item.Kind != yaml.MappingNode && !isNull(item) {
			return d.fail(item, ipath, "%s is not a mapping (allowed: a mapping with keys %s)", describe(item), keyList(keys))
		}
		if err := each(i, item, ipath); err != nil {
			return err
		}
	}
	return nil
}

// params decodes a mapping of scalars, keeping file order.
func (d *decoder) params(v *yaml.Node, path string) ([]Param, error) {
	const want = "key: value pairs whose values are numbers, bools or strings"
	if err := d.plain(v, path); err != nil {
		return nil, err
	}
	if isNull(v) {
		return nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, d.fail(v, path, "%s is not a mapping (allowed: %s)", describe(v), want)
	}
	var out []Param
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		key, err := d.key(k, path, seen)
		if err != nil {
			return nil, err
		}
		if key == "" {
			return nil, d.fail(k, path, "empty key (allowed: a parameter name)")
		}
		value, err := d.param(val, join(path, key))
		if err != nil {
			return nil, err
		}
		out = append(out, Param{Key: key, Value: value, Pos: d.pos(k)})
	}
	return out, nil
}

// param decodes one parameter value: int64, finite float64, bool or string.
func (d *decoder) param(v *yaml.Node, path string) (any, error) {
	const allowed = "an integer, a number, true, false or a string"
	if err := d.plain(v, path); err != nil {
		return nil, err
	}
	if v.Kind != yaml.ScalarNode {
		return nil, d.fail(v, path, "%s is not allowed (allowed: %s)", describe(v), allowed)
	}
	if isNull(v) {
		return nil, d.fail(v, path, "missing value (allowed: %s)", allowed)
	}
	x, err := d.value(v, path)
	if err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case uint64:
		return nil, d.fail(v, path, "%s is out of range (allowed: integers up to 9223372036854775807)", describe(v))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, d.fail(v, path, "%s is not allowed (allowed: finite numbers)", describe(v))
		}
		return x, nil
	case bool, string:
		return x, nil
	}
	return nil, d.fail(v, path, "%s is not a number, bool or string (allowed: %s; quote it to make it a string)", describe(v), allowed)
}

// mapping decodes the mapping v with the given fields, in file order. k is
// where a missing required key is reported (the mapping's own key, or the
// mapping itself); a null v is an empty mapping.
func (d *decoder) mapping(k, v *yaml.Node, path string, fields []field) error {
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.key
	}
	if err := d.plain(v, path); err != nil {
		return err
	}
	if v.Kind != yaml.MappingNode && !isNull(v) {
		return d.fail(v, path, "%s is not a mapping (allowed: a mapping with keys %s)", describe(v), keyList(keys))
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], v.Content[i+1]
		key, err := d.key(kn, path, seen)
		if err != nil {
			return err
		}
		var f *field
		for j := range fields {
			if fields[j].key == key {
				f = &fields[j]
			}
		}
		if f == nil {
			return d.fail(kn, path, "unknown key %q (allowed: %s)", key, keyList(keys))
		}
		if err := f.decode(kn, vn, join(path, key)); err != nil {
			return err
		}
	}
	for _, f := range fields {
		if f.required && seen[f.key] == nil {
			return d.fail(k, path, "missing required key %q", f.key)
		}
	}
	return nil
}

// key checks one mapping key and records it in seen, refusing repeats.
func (d *decoder) key(k *yaml.Node, path string, seen map[string]*yaml.Node) (string, error) {
	if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
		return "", d.fail(k, path, "merge keys (<<) are not allowed (write the keys out)")
	}
	if err := d.plain(k, path); err != nil {
		return "", err
	}
	if k.Kind != yaml.ScalarNode {
		return "", d.fail(k, path, "%s as a key is not allowed (allowed: a plain name)", describe(k))
	}
	if prev := seen[k.Value]; prev != nil {
		return "", d.fail(k, path, "key %q given twice (first at line %d)", k.Value, prev.Line)
	}
	seen[k.Value] = k
	return k.Value, nil
}

// standardTags are the tags a node may carry explicitly.
var standardTags = map[string]bool{
	"!!str": true, "!!int": true, "!!float": true, "!!bool": true,
	"!!null": true, "!!map": true, "!!seq": true,
}

// plain refuses anchors, aliases and non-standard explicit tags on n.
func (d *decoder) plain(n *yaml.Node, path string) error {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return d.fail(n, path, "anchors and aliases are not allowed (write the value out)")
	}
	if n.Style&yaml.TaggedStyle != 0 && !standardTags[n.Tag] {
		return d.fail(n, path, "tag %s is not allowed (allowed: no tag, or one of !!str, !!int, !!float, !!bool)", n.Tag)
	}
	return nil
}

var octalLooking = regexp.MustCompile(`^[-+]?0[0-9_]+$`)

// value decodes the scalar n as the YAML library types it: int, int64,
// uint64, float64, bool, string, time.Time or nil.
func (d *decoder) value(n *yaml.Node, path string) (any, error) {
	tag := n.ShortTag()
	if tag == "!!int" && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 && octalLooking.MatchString(n.Value) {
		sign, digits := "", strings.TrimLeft(n.Value, "+-0_")
		if n.Value[0] == '-' {
			sign = "-"
		}
		if digits == "" {
			digits = "0"
		}
		return nil, d.fail(n, path, "%s has a leading zero, which YAML reads as octal (allowed: %s%s, or %s0o%s for octal)",
			n.Value, sign, digits, sign, digits)
	}
	var x any
	if err := n.Decode(&x); err != nil {
		return nil, d.fail(n, path, "%s is not a valid %s", strconv.Quote(truncate(n.Value)), tag)
	}
	return x, nil
}

// numeric reads a plain scalar tagged as an integer or a float: a missing
// value, a non-scalar or another tag is an error (wrongType gives its
// message).
func (d *decoder) numeric(n *yaml.Node, path, allowed string, wrongType func() error) (any, error) {
	if err := d.plain(n, path); err != nil {
		return nil, err
	}
	if isNull(n) {
		return nil, d.fail(n, path, "missing value (allowed: %s)", allowed)
	}
	if n.Kind != yaml.ScalarNode {
		return nil, wrongType()
	}
	if tag := n.ShortTag(); tag != "!!int" && tag != "!!float" {
		return nil, wrongType()
	}
	return d.value(n, path)
}

// unsigned decodes an integer field in lo..hi. desc names the type
// ("an integer") and allowed the range, for messages.
func (d *decoder) unsigned(n *yaml.Node, path string, lo, hi uint64, desc, allowed string) (uint64, error) {
	wrongType := func() error { return d.fail(n, path, "%s is not %s (allowed: %s)", describe(n), desc, allowed) }
	outOfRange := func() error { return d.fail(n, path, "%s is out of range (allowed: %s)", describe(n), allowed) }
	x, err := d.numeric(n, path, allowed, wrongType)
	if err != nil {
		return 0, err
	}
	var u uint64
	switch x := x.(type) {
	case int:
		if x < 0 {
			return 0, outOfRange()
		}
		u = uint64(x)
	case int64:
		if x < 0 {
			return 0, outOfRange()
		}
		u = uint64(x)
	case uint64:
		u = x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || x != math.Trunc(x) {
			return 0, wrongType()
		}
		if x < 0 || x >= 1<<64 {
			return 0, outOfRange()
		}
		u = uint64(x)
	default:
		return 0, wrongType()
	}
	if u < lo || u > hi {
		return 0, outOfRange()
	}
	return u, nil
}

// number decodes a finite number field for which ok holds.
func (d *decoder) number(n *yaml.Node, path string, ok func(float64) bool, allowed string) (float64, error) {
	wrongType := func() error { return d.fail(n, path, "%s is not a number (allowed: %s)", describe(n), allowed) }
	x, err := d.numeric(n, path, allowed, wrongType)
	if err != nil {
		return 0, err
	}
	var f float64
	switch x := x.(type) {
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint64:
		f = float64(x)
	case float64:
		f = x
	default:
		return 0, wrongType()
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || !ok(f) {
		return 0, d.fail(n, path, "%s is out of range (allowed: %s)", describe(n), allowed)
	}
	return f, nil
}

// durationRule names the forms of a duration, for messages.
const durationRule = `written as a Go duration such as "60s", "250ms" or "1m30s", or as a number of seconds such as 60 or 0.25`

// duration decodes a duration field in ns, lo..24h (lo is 0 or 1): a
// string that time.ParseDuration reads, or a number of seconds (rounded to
// the ns).
func (d *decoder) duration(n *yaml.Node, path string, lo int64) (int64, error) {
	allowed := "a duration from 0 to 24h, " + durationRule
	if lo > 0 {
		allowed = "a duration above 0 and at most 24h, " + durationRule
	}
	if err := d.plain(n, path); err != nil {
		return 0, err
	}
	if isNull(n) {
		return 0, d.fail(n, path, "missing value (allowed: %s)", allowed)
	}
	wrongType := func() error { return d.fail(n, path, "%s is not a duration (allowed: %s)", describe(n), allowed) }
	outOfRange := func() error { return d.fail(n, path, "%s is out of range (allowed: %s)", describe(n), allowed) }
	if n.Kind != yaml.ScalarNode {
		return 0, wrongType()
	}
	var ns int64
	switch n.ShortTag() {
	case "!!str":
		x, err := time.ParseDuration(n.Value)
		if err != nil {
			return 0, wrongType()
		}
		ns = int64(x)
	case "!!int", "!!float":
		x, err := d.value(n, path)
		if err != nil {
			return 0, err
		}
		var sec float64
		switch x := x.(type) {
		case int:
			sec = float64(x)
		case int64:
			sec = float64(x)
		case uint64:
			sec = float64(x)
		case float64:
			sec = x
		default:
			return 0, wrongType()
		}
		if math.IsNaN(sec) || sec < 0 || sec > float64(maxDuration)/1e9 {
			return 0, outOfRange()
		}
		ns = int64(math.Round(sec * 1e9))
	default:
		return 0, wrongType()
	}
	if ns < lo || ns > maxDuration {
		return 0, outOfRange()
	}
	return ns, nil
}

func (d *decoder) boolean(n *yaml.Node, path string) (bool, error) {
	const allowed = "true, false"
	if err := d.plain(n, path); err != nil {
		return false, err
	}
	if isNull(n) {
		return false, d.fail(n, path, "missing value (allowed: %s)", allowed)
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		if x, err := d.value(n, path); err != nil {
			return false, err
		} else if b, ok := x.(bool); ok {
			return b, nil
		}
	}
	return false, d.fail(n, path, "%s is not a bool (allowed: %s)", describe(n), allowed)
}

// str decodes a string field; allowed describes what may go there.
func (d *decoder) str(n *yaml.Node, path, allowed string) (string, error) {
	if err := d.plain(n, path); err != nil {
		return "", err
	}
	if isNull(n) {
		return "", d.fail(n, path, "missing value (allowed: %s)", allowed)
	}
	if n.Kind != yaml.ScalarNode {
		return "", d.fail(n, path, "%s is not a string (allowed: %s)", describe(n), allowed)
	}
	if n.ShortTag() != "!!str" {
		return "", d.fail(n, path, "%s is not a string (allowed: %s; put it in quotes to make it one)", describe(n), allowed)
	}
	return n.Value, nil
}

// oneOf decodes a string field that must be one of allowed.
func (d *decoder) oneOf(n *yaml.Node, path string, allowed []string) (string, error) {
	s, err := d.str(n, path, keyList(allowed))
	if err != nil {
		return "", err
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", d.fail(n, path, "%q is not allowed (allowed: %s)", s, keyList(allowed))
}

const nameRule = "lower-case letters, digits and '-', starting with a letter or digit, at most 64 characters"

// name decodes a scenario or strategy name: [a-z0-9][a-z0-9-]*.
func (d *decoder) name(n *yaml.Node, path string) (string, error) {
	s, err := d.str(n, path, nameRule)
	if err != nil {
		return "", err
	}
	if !validName(s) {
		return "", d.fail(n, path, "%s is not allowed (allowed: %s)", describe(n), nameRule)
	}
	return s, nil
}

func validName(s string) bool {
	if s == "" || len(s) > maxNameLen || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe shows a node in a message: a scalar as written (quoted if it is
// a string), a collection by its kind.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if isNull(n) {
			return "an empty value"
		}
		v := truncate(n.Value)
		if n.ShortTag() == "!!str" {
			return strconv.Quote(v)
		}
		return v
	}
	return "a document"
}

// truncate shortens s to 40 characters for a message.
func truncate(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
