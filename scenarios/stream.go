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

// Writes is what a count stream and a split stream share: Events writes
// over a key space, one every 1/Rate s, handed over in batches.
type Writes struct {
	Events int64 `key:"events" range:"1..1e10" required:"true" doc:"writes in the stream (a count stream)"`
	Keyspace
	Rate  float64 `key:"rate" range:">0" default:"1e6" doc:"events a simulated second"`
	Batch int     `key:"batch" range:"1..1048576" default:"4096" doc:"events handed to the designs at a time"`
}

// Stream is a count stream: its writes, and a key of known true count
// planted among them if asked.
type Stream struct {
	Writes
	Plant *StreamPlant `key:"plant" doc:"one key of a stated true count planted among the writes, spread evenly over the stream, each taking a draw's place; none without it"`
	Pos   Pos          // the workload key
}

// StreamPlant is the planted key of a count stream: a key the law never
// draws, written exactly Count times (the practice question's dish,
// searched 400 times).
type StreamPlant struct {
	Count int64  `key:"count" range:"1..1e10" required:"true" doc:"the planted key's writes: its true count, at most events"`
	Key   uint64 `key:"key" range:"1.." defaultdoc:"the key of rank keys + 1" doc:"the planted key, one the stream does not draw (its rank outside 1..keys)"`
	Pos   Pos    // the plant key
}

func init() {
	defineKind(&kindDef{name: "stream", order: 1, key: "workload", marker: "events", what: "a count stream",
		doc: "the stream to simulate",
		new: func() Run { return new(Stream) }})
}

func (s *Stream) Kind() string                  { return "stream" }
func (s *Stream) Where() Pos                    { return s.Pos }
func (w *Writes) Duration() int64               { return 0 }
func (w *Writes) refuses(section string) string { return "" }

// checkWrites: the keys' rules.
func (w *Writes) checkWrites(r *rule) error { return w.Keyspace.checkKeys(r) }

// check: the writes' rules, and a plant of at most every event.
func (s *Stream) check(r *rule) error {
	if err := s.checkWrites(r); err != nil {
		return err
	}
	if s.Plant != nil && s.Plant.Count > s.Events {
		return r.fail("plant", "count %d is more than the stream's %d events (allowed: 1..events)", s.Plant.Count, s.Events)
	}
	return nil
}

// Planted is the planted key's writes and the key given (0: the key of
// rank keys + 1), or 0, 0 without a plant.
func (s *Stream) Planted() (count int64, key uint64) {
	if s.Plant == nil {
		return 0, 0
	}
	return s.Plant.Count, s.Plant.Key
}

// ExpectedWrites is the stream's writes: Events.
func (w *Writes) ExpectedWrites() float64 { return float64(w.Events) }

func (w *Writes) simulates() []Figure {
	return []Figure{
		{Name: "events", Simulated: float64(w.Events), SimulatedAt: "workload.events"},
		{Name: "keys", Simulated: float64(w.Keys), SimulatedAt: "workload.keys"},
	}
}
