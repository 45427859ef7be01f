package strategies

import (
	"errors"
	"fmt"

	"countsim/internal/schema"
)

// A design's parameters are a struct whose exported fields carry the tags
// of the scenario format (package schema): the YAML key, the range or the
// values allowed, the default and the meaning, in one place. The scenario
// decoder (scenarios.DecodeParams) fills it from a scenario file by those
// tags, refusing what they do not allow at the parameter's line; a value
// built in Go is held to the same tags by CheckParams. A field whose zero
// value means "not given" has no default and is not required; an
// enumeration (a tie policy, a read path) is a type of its own that
// decodes its text once (encoding.TextUnmarshaler). What the tags cannot
// say — rules across fields — is the struct's Validate.

// Params is a pointer to a design's parameter struct, tagged as package
// schema reads.
type Params any

// Validator is a parameter struct with rules across its fields (epsilon
// with delta, or width with depth): Validate returns a *ParamError naming
// the key at fault, or none for the rule as a whole. Each field alone is
// held to its tags by CheckParams, which calls Validate last.
type Validator interface {
	Validate() error
}

// CheckParams holds p to its tags (each field in its range, of its values,
// given where required) and then, where it has them, to its rules across
// fields (Validator). The error is a *ParamError.
func CheckParams(p Params) error {
	if err := schema.Check(p); err != nil {
		var fe *schema.FieldError
		if errors.As(err, &fe) {
			return &ParamError{Key: fe.Key, Msg: fe.Msg}
		}
		return err
	}
	if v, ok := p.(Validator); ok {
		return v.Validate()
	}
	return nil
}

// ParamError is a parameter the design refuses: a value out of range or a
// rule across keys broken.
type ParamError struct {
	Type string // design type
	Key  string // parameter key ("" for a rule about several keys)
	Msg  string // what is wrong and what is allowed
}

func (e *ParamError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.Type, e.Msg)
	}
	return fmt.Sprintf("%s: parameter %s: %s", e.Type, e.Key, e.Msg)
}

// ParamErrorf builds a *ParamError for Validate methods.
func ParamErrorf(key, format string, args ...any) error {
	return &ParamError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// WithType names the design in a *ParamError that a check returned, so
// that constructors called without the registry (tests, benchmarks) give
// the same message as the registry: "count-min: parameter epsilon: 1.5 is
// out of range (allowed: a number in (0,1))".
func WithType(typeName string, err error) error {
	var pe *ParamError
	if errors.As(err, &pe) && pe.Type == "" {
		pe.Type = typeName
	}
	return err
}

// ValidateWith is CheckParams of p with the design named in its error: the
// first line of a validating constructor.
func ValidateWith(typeName string, p Params) error { return WithType(typeName, CheckParams(p)) }
