package strategies

import (
	"fmt"
	"slices"
	"strings"
)

// An enumeration of a design's parameters (a tie policy, a read path, how
// a write picks its stripe) is a type of its own whose values are
// 0..len(names)−1: it decodes its name once, where the scenario is read
// (encoding.TextUnmarshaler), so no design parses or re-checks a string
// after validation, and it lists its names for the messages and the
// reference. UnmarshalEnum and MarshalEnum are what such a type's
// UnmarshalText and MarshalText call.

// UnmarshalEnum sets *v to the value named text among names; what names the
// enumeration in the error ("tie policy").
func UnmarshalEnum[T ~uint8](v *T, what string, names []string, text []byte) error {
	if i := slices.Index(names, string(text)); i >= 0 {
		*v = T(i)
		return nil
	}
	return fmt.Errorf("unknown %s %q (allowed: %s)", what, text, strings.Join(names, ", "))
}

// MarshalEnum returns the name of v among names, or an error for a value
// with none.
func MarshalEnum[T ~uint8](v T, what string, names []string) ([]byte, error) {
	if int(v) < len(names) {
		return []byte(names[v]), nil
	}
	return nil, fmt.Errorf("%s %d has no name", what, v)
}

// EnumString is the name of v, or what(v) for a value with none.
func EnumString[T ~uint8](v T, what string, names []string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", what, v)
}
