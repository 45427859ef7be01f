package scenarios

// The count stream (`workload: {events: N, …}`): N writes over a Zipf (or
// uniform) law of keys at a constant rate; the search day's kind of run.

// Keyspace is the keys a stream draws from, the same for a count stream
// and a timed stream.
type Keyspace struct {
	Keys         uint64  `key:"keys" range:"1..1e9" required:"true" doc:"distinct keys n the stream draws from (1: one hot key)"`
	Distribution string  `key:"distribution" oneof:"zipf,uniform" default:"zipf" doc:"how keys are drawn: zipf (the key of rank r with probability ∝ r^-s) or uniform"`
	S            float64 `key:"s" range:">=0" default:"1" doc:"the Zipf exponent s, with distribution zipf only (0 is uniform)"`
	Scramble     bool    `key:"scramble" default:"true" doc:"map ranks to keys by a seeded bijection, so that the hot keys are not the small ids"`
}

// Exponent is the Zipf exponent the keys are drawn with: S, or 0 for the
// uniform distribution.
func (k Keyspace) Exponent() float64 {
	if k.Distribution == "uniform" {
		return 0
	}
	return k.S
}

// checkKeys refuses an exponent given with the uniform distribution: an
// ignored setting would read as if it mattered.
func (k *Keyspace) checkKeys(r *rule) error {
	if r.has("s") && k.Distribution != "zipf" {
		return r.fail("s", "applies only to distribution zipf (allowed: remove s, or set distribution: zipf)")
	}
	return nil
}

// Stream is a count stream: Events writes, one every 1/Rate s.
type Stream struct {
	Events int64 `key:"events" range:"1..1e10" required:"true" doc:"writes in the stream (a count stream)"`
	Keyspace
	Rate  float64 `key:"rate" range:">0" default:"1e6" doc:"events a simulated second"`
	Batch int     `key:"batch" range:"1..1048576" default:"4096" doc:"events handed to the designs at a time"`
	Pos   Pos     // the workload key
}

func init() {
	defineKind(&kindDef{name: "stream", order: 1, key: "workload", marker: "events", what: "a count stream",
		doc: "the stream to simulate",
		new: func() Run { return new(Stream) }})
}

func (s *Stream) Kind() string                  { return "stream" }
func (s *Stream) Where() Pos                    { return s.Pos }
func (s *Stream) Duration() int64               { return 0 }
func (s *Stream) refuses(section string) string { return "" }
func (s *Stream) check(r *rule) error           { return s.Keyspace.checkKeys(r) }

// ExpectedWrites is the stream's writes: Events.
func (s *Stream) ExpectedWrites() float64 { return float64(s.Events) }

func (s *Stream) simulates() []Figure {
	return []Figure{
		{Name: "events", Simulated: float64(s.Events), SimulatedAt: "workload.events"},
		{Name: "keys", Simulated: float64(s.Keys), SimulatedAt: "workload.keys"},
	}
}
