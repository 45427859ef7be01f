package engine

import (
	"runtime"
	"testing"
)

// TestBigArray holds the mapped array to what make gives: the length asked
// for, every count zero, each one its own, across the size where the
// mapping starts.
func TestBigArray(t *testing.T) {
	for _, n := range []uint64{hugeFrom/4 - 1, hugeFrom/4 + 1, hugeFrom/8 + 3} {
		owner := new(int)
		a := bigArray[uint32](owner, n)
		b := bigArray[uint64](owner, n)
		if uint64(len(a)) != n || uint64(len(b)) != n {
			t.Fatalf("n=%d: lengths %d and %d", n, len(a), len(b))
		}
		for _, i := range []uint64{0, 1, n / 2, n - 2, n - 1} {
			if a[i] != 0 || b[i] != 0 {
				t.Fatalf("n=%d: count %d not zero", n, i)
			}
			a[i] += uint32(i) + 1
			b[i] += i + 1
		}
		for _, i := range []uint64{0, 1, n / 2, n - 2, n - 1} {
			if a[i] != uint32(i)+1 || b[i] != i+1 {
				t.Fatalf("n=%d: count %d is %d and %d, want %d", n, i, a[i], b[i], i+1)
			}
		}
		runtime.KeepAlive(owner)
	}
}
