package scenarios

// The accuracy profile (`profile:`): every design counts fresh streams of
// distinct ids in seeded trials, and its error is recorded at cardinalities
// on a log grid — how HyperLogLog is characterised against 1.04/√m.

// Profile is an accuracy profile: Trials seeded trials at cardinalities
// from Min to Max with PointsPerOctave points per doubling.
type Profile struct {
	Min             float64 `key:"min" range:"1..1e9" default:"1" doc:"the smallest cardinality"`
	Max             float64 `key:"max" range:"1..1e9" default:"1e6" doc:"the largest cardinality, at least min"`
	PointsPerOctave int     `key:"points_per_octave" range:"1..64" default:"4" doc:"grid points per doubling of the cardinality"`
	Trials          int     `key:"trials" range:"1..100000" default:"100" doc:"seeded trials at each cardinality"`
	Pos             Pos     // the profile key
}

func init() {
	defineKind(&kindDef{name: "profile", order: 4, key: "profile", what: "an accuracy profile",
		doc: "seeded trials at cardinalities on a log grid",
		new: func() Run { return new(Profile) }})
}

func (p *Profile) Kind() string        { return "profile" }
func (p *Profile) Where() Pos          { return p.Pos }
func (p *Profile) Duration() int64     { return 0 }
func (p *Profile) simulates() []Figure { return nil }

func (p *Profile) refuses(section string) string {
	switch section {
	case "questions":
		return "a profile asks every design for its estimate at each cardinality, not questions"
	case "cluster":
		return "a profile runs the designs in memory, with no store cluster"
	case "faults":
		return "faults need a timed stream, and a profile has no stream"
	}
	return ""
}

// check: max is at least min.
func (p *Profile) check(r *rule) error {
	if p.Max >= p.Min {
		return nil
	}
	if !r.has("max") {
		return r.fail("min", "%s is above max, 1e6 when not given (allowed: 1..1e6, or give a max from min to 1e9)", describe(r.vals["min"]))
	}
	return r.fail("max", "%s is below min, %s at line %d (allowed: %s..1e9)", describe(r.vals["max"]), describe(r.vals["min"]), r.vals["min"].Line, describe(r.vals["min"]))
}
