package engine

import (
	"context"
	"countsim/workload"
	"fmt"
	"io"
)

// EachLine reads the log of cfg to its end one event at a time, handing
// each to fn with its line and its bad-line error; it looks at ctx.
func EachLine(ctx context.Context, cfg workload.LogConfig, fn func(e *workload.Event, line int64, bad func(string, ...any) error) error) error {
	r, err := workload.OpenLog(cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	buf := make([]workload.Event, 0, 1)
	for n := 0; ; n++ {
		if Stopped(ctx, n) {
			return ctx.Err()
		}
		b, err := r.Read(buf[:0])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		line := r.Line()
		bad := func(format string, a ...any) error {
			return &workload.LogError{Path: cfg.Path, Line: line, Msg: fmt.Sprintf(format, a...)}
		}
		if err := fn(&b[0], line, bad); err != nil {
			return err
		}
	}
}
