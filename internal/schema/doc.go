// Package schema reads the struct tags that state a configuration format —
// a field's key, its range or the values it takes, its default and its
// meaning — and checks Go values against them. A key, its type, its range,
// its default and its meaning are written once, in the field's tags; the
// scenario loader (package scenarios) decodes YAML by them, the designs'
// parameters (package strategies) are declared by them, and both check a
// value by the same code.
//
// [Of] reads the tagged fields of a struct type ([Field]: its [Form], its
// range as bounds and in words, its default as written); [Check] holds a
// struct value to its tags, for values built in Go rather than decoded.
// Fields of a type this package does not read (a nested struct, a list, a
// scenario's own kinds of value) have [FormOther] and are left to the
// caller.
//
// The tag language, on exported fields:
//
//	key:"name"          the key (a field without one is not part of the format)
//	doc:"..."           its meaning, one line (required)
//	range:"..."         lo..hi, lo.., >x, >=x, (lo,hi], [lo,hi), (lo,hi) or [lo,hi]
//	oneof:"a,b,c"       a string's values
//	type:"..."          duration (an int64 or time.Duration of ns), whole (a
//	                    float64 holding a whole number), or a string's form:
//	                    name, line, label or text
//	default:"..."       the default, as it would be written
//	defaultdoc:"..."    the default as the reference shows it, when not the text
//	required:"true"     the key must be given
//	allowed:"..."       what is allowed, in words, instead of the range's
//	entry:"..."         a list's entry noun
//
// A field whose type implements encoding.TextUnmarshaler (a tie policy, a
// read path) has [FormText]: its text is decoded by its own UnmarshalText,
// and its values are listed by a Names method where it has one.
//
// Schemas are built once a type and cached; they are safe for concurrent
// use. A malformed tag is a programming error: Of panics. schema imports no
// package of countsim.
package schema
