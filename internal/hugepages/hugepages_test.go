package hugepages

import (
	"slices"
	"testing"
	"unsafe"
)

// TestSpan holds the advised range to the whole huge pages inside the
// array, at and around each boundary.
func TestSpan(t *testing.T) {
	const h = hugePage
	for _, c := range []struct{ p, size, start, length uintptr }{
		{0, h, 0, h},
		{0, h - 1, 0, 0},
		{1, h, h, 0},
		{1, 2 * h, h, h},
		{1, 2*h - 1, h, h},
		{1, 2*h - 2, h, 0},
		{h - 1, h + 1, h, h},
		{h - 1, h, h, 0},
		{h, 3 * h, h, 3 * h},
		{h + 8, 3 * h, 2 * h, 2 * h},
		{5 * h, 0, 5 * h, 0},
	} {
		start, length := span(c.p, c.size)
		if length != c.length || length > 0 && start != c.start {
			t.Errorf("span(%#x, %#x) = %#x, %#x; want %#x, %#x", c.p, c.size, start, length, c.start, c.length)
		}
		if length > 0 && (start%h != 0 || length%h != 0 || start < c.p || start+length > c.p+c.size) {
			t.Errorf("span(%#x, %#x) = %#x, %#x: not whole huge pages inside the array", c.p, c.size, start, length)
		}
	}
}

// TestMake holds Make to make's contract on both sides of From: the
// length asked for, every element zero, each one its own.
func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, From/4 - 1, From/4 + 1, From/8 + 3} {
		a := Make[uint32](n)
		b := Make[uint64](n)
		if len(a) != n || len(b) != n {
			t.Fatalf("n=%d: lengths %d and %d", n, len(a), len(b))
		}
		if n == 0 {
			continue
		}
		at := slices.Compact([]int{0, n / 2, n - 1})
		for _, i := range at {
			if a[i] != 0 || b[i] != 0 {
				t.Fatalf("n=%d: element %d not zero", n, i)
			}
			a[i] += uint32(i) + 1
			b[i] += uint64(i) + 1
		}
		for _, i := range at {
			if a[i] != uint32(i)+1 || b[i] != uint64(i)+1 {
				t.Fatalf("n=%d: element %d is %d and %d, want %d", n, i, a[i], b[i], i+1)
			}
		}
	}
}

// addr is the address of s's middle element.
func addr[E any](s []E) uintptr { return uintptr(unsafe.Pointer(&s[len(s)/2])) }
