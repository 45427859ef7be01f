package scenarios

import "fmt"

// Error is a scenario the loader (or a later check) refuses. Its message
// names the file, the line and what is allowed.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	if e.Pos.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Pos.File, e.Pos.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Pos.File, e.Msg)
}

// Errorf returns an *Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
