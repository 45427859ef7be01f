package frequency

import (
	"testing"

	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// TestCMSVerify: after the second pass every count in the top K is the
// exact count, the answer is the true top K on skewed streams with C = 4K,
// the first pass's answer is count-min + heap's, and nothing is allocated
// per event in either pass.
func TestCMSVerify(t *testing.T) {
	for _, sp := range []designtest.StreamSpec{
		{Seed: 1, Keys: 20000, S: 1, Events: 200000, Scramble: true},
		{Seed: 2, Keys: 5000, S: 1.3, Events: 100000},
	} {
		ev := sp.Gen()
		for i := range ev {
			if i%97 == 0 {
				ev[i].Op = workload.Read
			}
			if i%89 == 0 {
				ev[i].Delta = 4
			}
		}
		truth, _ := designtest.ExactCounts(ev)
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
		want := designtest.TrueTop(truth, 10)
		for i, it := range got {
			if it.Count != truth[it.Key] || it.Err != 0 {
				t.Fatalf("s=%g: top[%d] = %+v, true count %d", sp.S, i, it, truth[it.Key])
			}
			if it.Key != want[i].Key {
				t.Fatalf("s=%g: top[%d] is key %d, the true top's %d", sp.S, i, it.Key, want[i].Key)
			}
		}
	}
}

// TestCMSVerifySecondPassAllocs: the verification pass allocates nothing.
func TestCMSVerifySecondPassAllocs(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 3, Keys: 1000, S: 1, Events: 8192}.Gen()
	v, _ := NewCMSVerify(CMSVerifyParams{Epsilon: 0.01, Delta: 0.01}, 20, 1)
	v.Observe(ev)
	v.SecondPass()
	if n := testing.AllocsPerRun(3, func() { v.Observe(ev) }); n != 0 {
		t.Fatalf("%v allocations a batch", n)
	}
}
