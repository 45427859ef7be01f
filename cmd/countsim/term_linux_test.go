package main

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"unsafe"
)

// terminal tells a terminal (a pseudo-terminal here) and its width from a
// pipe and from /dev/null, a character device that is no terminal.
func TestTerminal(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	ioctl := func(f *os.File, req uintptr, arg unsafe.Pointer) {
		t.Helper()
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
			t.Skipf("ioctl %#x: %v", req, errno)
		}
	}
	var unlock int32
	ioctl(ptmx, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	var n uint32
	ioctl(ptmx, syscall.TIOCGPTN, unsafe.Pointer(&n))
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer pts.Close()
	ws := struct{ Row, Col, X, Y uint16 }{Row: 40, Col: 123}
	ioctl(pts, syscall.TIOCSWINSZ, unsafe.Pointer(&ws))
	if tty, width := terminal(pts); !tty || width != 123 {
		t.Errorf("a terminal of 123 columns: got %v, %d", tty, width)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for name, f := range map[string]*os.File{"a pipe": w, os.DevNull: null} {
		if tty, width := terminal(f); tty || width != 0 {
			t.Errorf("%s: got a terminal of %d columns", name, width)
		}
	}
}
