package strategies

import (
	"testing"

	"countsim/workload"
)

// TestCMSVerify: after the second pass every count in the top K is the
// exact count, the answer is the true top K on skewed streams with C = 4K,
// the first pass's answer is count-min + heap's, and nothing is allocated
// per event in either pass.
func TestCMSVerify(t *testing.T) {
	for _, sp := range []streamSpec{
		{seed: 1, keys: 20000, s: 1, events: 200000, scramble: true},
		{seed: 2, keys: 5000, s: 1.3, events: 100000},
	} {
		ev := sp.gen()
		for i := range ev {
			if i%97 == 0 {
				ev[i].Op = workload.Read
			}
			if i%89 == 0 {
				ev[i].Delta = 4
			}
		}
		truth, _ := exactCounts(ev)
		v, err := NewCMSVerify(CMSVerifyParams{Epsilon: 0.001, Delta: 0.01}, 40, 7)
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := NewCountMinTopK(CountMinParams{Epsilon: 0.001, Delta: 0.01, Top: 40}, 7)
		for b := 0; b < len(ev); b += 4096 {
			v.Observe(ev[b:min(b+4096, len(ev))])
			ref.Observe(ev[b:min(b+4096, len(ev))])
		}
		first := v.Top(10)
		for i, it := range ref.Top(10) {
			if first[i] != it {
				t.Fatalf("first pass top[%d] = %+v, count-min + heap %+v", i, first[i], it)
			}
		}
		v.SecondPass()
		for b := 0; b < len(ev); b += 4096 {
			v.Observe(ev[b:min(b+4096, len(ev))])
		}
		got := v.Top(10)
		want := trueTop(truth, 10)
		for i, it := range got {
			if it.Count != truth[it.Key] || it.Err != 0 {
				t.Fatalf("s=%g: top[%d] = %+v, true count %d", sp.s, i, it, truth[it.Key])
			}
			if it.Key != want[i].Key {
				t.Fatalf("s=%g: top[%d] is key %d, the true top's %d", sp.s, i, it.Key, want[i].Key)
			}
		}
	}
}

// TestCMSVerifySecondPassAllocs: the verification pass allocates nothing.
func TestCMSVerifySecondPassAllocs(t *testing.T) {
	ev := streamSpec{seed: 3, keys: 1000, s: 1, events: 8192}.gen()
	v, _ := NewCMSVerify(CMSVerifyParams{Epsilon: 0.01, Delta: 0.01}, 20, 1)
	v.Observe(ev)
	v.SecondPass()
	if n := testing.AllocsPerRun(3, func() { v.Observe(ev) }); n != 0 {
		t.Fatalf("%v allocations a batch", n)
	}
}
