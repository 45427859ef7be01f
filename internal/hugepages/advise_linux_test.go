package hugepages

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestAdviseTakes checks, where the kernel gives huge pages on request
// (THP "madvise" or "always"), that the mapping holding an array Make
// advised is eligible for them (THPeligible: 1 in /proc/self/smaps): the
// advice was given, to the right range. With THP "never" there is
// nothing to see and the test says so.
func TestAdviseTakes(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(mode, []byte("[never]")) {
		t.Skipf("the kernel gives no transparent huge pages here (%q, %v)", mode, err)
	}
	s := Make[uint64](From / 8 * 2)
	for i := 0; i < len(s); i += 4096 / 8 {
		s[i] = 1
	}
	eligible, found := thpEligible(t, addr(s))
	if !found {
		t.Skip("this kernel's smaps has no THPeligible field")
	}
	if !eligible {
		t.Errorf("the mapping of Make's %d MB array is not eligible for huge pages (THP %q)", len(s)*8>>20, strings.TrimSpace(string(mode)))
	}
	// The check can tell: under "madvise", a mapping of the same size not
	// advised is not eligible. (A mapping of its own: a heap array not
	// advised may reuse the pages of one advised before and freed.)
	if bytes.Contains(mode, []byte("[madvise]")) {
		plain, err := syscall.Mmap(-1, 0, len(s)*8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Munmap(plain)
		for i := 0; i < len(plain); i += 4096 {
			plain[i] = 1
		}
		if e, ok := thpEligible(t, addr(plain)); ok && e {
			t.Errorf("a mapping not advised is eligible too: the check cannot tell advice given from none")
		}
	}
}

// thpEligible reads /proc/self/smaps's THPeligible field of the mapping
// that holds a, and whether the field was there.
func thpEligible(t *testing.T, a uintptr) (eligible, found bool) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(a) >= l && uint64(a) < h
				continue
			}
		}
		if in && fields[0] == "THPeligible:" && len(fields) > 1 {
			return fields[1] == "1", true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return false, false
}
