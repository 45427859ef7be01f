//go:build !linux

package main

import (
	"io"
	"os"
)

// terminal reports whether w is a character device, as a terminal is; its
// width is not read (0).
func terminal(w io.Writer) (bool, int) {
	f, ok := w.(*os.File)
	if !ok {
		return false, 0
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0, 0
}
