package main

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// terminal reports whether w is a terminal, and its width in columns (0
// when it does not say): TIOCGWINSZ answers for a terminal alone, not for
// /dev/null or another character device.
func terminal(w io.Writer) (bool, int) {
	f, ok := w.(*os.File)
	if !ok {
		return false, 0
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false, 0
	}
	var ws struct{ Row, Col, X, Y uint16 }
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws)))
	}); err != nil || errno != 0 {
		return false, 0
	}
	return true, int(ws.Col)
}
