package scenarios

import "fmt"

// Error is a scenario the loader (or a later check) refuses. Its message
// names the file, the line and what is allowed.
type Error struct {
	Pos  Pos
	Path string // the key at fault, "workload.phases[1].rate" or "params.epsilon", where the decoder knows it
	Msg  string
	Err  error // the underlying error (a file system error from Load), or nil
}

func (e *Error) Error() string {
	if e.Pos.Set != "" {
		return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
	}
	if e.Pos.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Pos.File, e.Pos.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Pos.File, e.Msg)
}

// Unwrap returns the underlying error, so that errors.Is(err, fs.ErrNotExist)
// works on what Load returns.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
