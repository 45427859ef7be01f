package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"countsim/internal/redistest"
	"countsim/metrics"
	"countsim/redisstore"
	"countsim/scenarios"
	"countsim/sim"
)

// The failover side by side (issue 29): testdata/failover-sidebyside.yaml
// runs on the simulated cluster, which predicts what a master's failover
// costs the clients (its delay and lag set to the real cluster's measured
// figures: 2.5 s, 0), and on a real Redis Cluster of 3 masters and 3
// replicas started here, whose node 1 master the run kills at the fault's
// time; each real figure must lie within a stated range of its prediction.

// sbsFile is the scenario, and the figures its ranges are stated in.
const (
	sbsFile = "testdata/failover-sidebyside.yaml"
	// sbsJitter is the election's jitter about the simulated delay: Redis
	// promotes the replica node-timeout (1 s) + 0.5..1 s (+ gossip) after
	// the kill, measured 2.1–2.8 s; the client's slot reload adds 0.15–0.3.
	sbsJitter = time.Second
	// sbsLagWindow bounds the replication lag on loopback (the failover
	// test's foLagBound): the real store loses at most the writes
	// acknowledged this long before the kill.
	sbsLagWindow = 50 * time.Millisecond
)

// sbsRange is a real figure's stated range about its simulated twin.
type sbsRange struct {
	lo, hi float64
	why    string
}

func (r sbsRange) holds(v float64) bool { return v >= r.lo && v <= r.hi }

// sbsRanges states the range of each row of design's side-by-side table
// (engine's sideBySide), from the simulated figures sim (by row label),
// the scenario's write rate and the designs' client:
//
//   - recovery from the kill: simulated ± the election's jitter;
//   - ops failed, writes given up, retries sent: they scale with the
//     outage, so the simulated figure × (delay ∓ jitter) / delay;
//   - acknowledged writes lost: [0, rate × the lag window]; so are the
//     writes lost against the truth of a design that retries until
//     answered (its retries outlast the outage's longest stated range);
//   - counted twice: 0 with idempotent writes; without, at most the
//     writes sent within a timeout before the kill (only a write in
//     flight when its master died can land unanswered);
//   - writes lost against the truth without retries: as the ops failed;
//   - final − truth: 0 with idempotent retries (exact); else within
//     [−(writes lost's high), counted twice's high].
func sbsRanges(sim map[string]float64, rate, delay, timeout float64, idempotent, retries bool) map[string]sbsRange {
	j := sbsJitter.Seconds()
	scaled := func(v float64) sbsRange {
		return sbsRange{v * (delay - j) / delay, v * (delay + j) / delay, fmt.Sprintf("simulated × (%g ∓ %g s) / %g s", delay, j, delay)}
	}
	lag := sbsRange{0, rate * sbsLagWindow.Seconds(), fmt.Sprintf("[0, rate %g/s × %v]", rate, sbsLagWindow)}
	r := map[string]sbsRange{
		"recovery from the kill, s (simulated: delay + fault_recovery_s)": {sim["recovery from the kill, s (simulated: delay + fault_recovery_s)"] - j,
			sim["recovery from the kill, s (simulated: delay + fault_recovery_s)"] + j, fmt.Sprintf("simulated ± %g s", j)},
		"ops failed in the faults":                   scaled(sim["ops failed in the faults"]),
		"retries sent":                               scaled(sim["retries sent"]),
		"acknowledged writes lost (replication lag)": lag,
	}
	if retries {
		r["writes given up by the client"] = sbsRange{0, 0, "0: retries outlast the outage"}
		r["writes lost (truth - final)"] = lag
	} else {
		r["writes given up by the client"] = scaled(sim["writes given up by the client"])
		r["writes lost (truth - final)"] = scaled(sim["writes lost (truth - final)"])
	}
	if idempotent {
		r["writes counted twice (final - truth)"] = sbsRange{0, 0, "0: idempotent writes"}
	} else {
		r["writes counted twice (final - truth)"] = sbsRange{0, rate * timeout, fmt.Sprintf("[0, rate %g/s × timeout %g s]", rate, timeout)}
	}
	lost, twice := r["writes lost (truth - final)"], r["writes counted twice (final - truth)"]
	r["final count - truth"] = sbsRange{-lost.hi, twice.hi, "[−(lost's high), counted twice's high]"}
	if idempotent && retries {
		r["final count - truth"] = sbsRange{0, 0, "0: exact"}
	}
	return r
}

// TestFailoverSideBySide runs the scenario with its designs twinned on the
// replicated cluster (whose backend kills node 1's master at 3 s), and
// checks, row by row of each design's side-by-side table, that the real
// figure lies within its stated range of the simulated one, and that the
// simulated figures themselves are what the scenario promises: no lost
// write at lag 0, none counted twice (the dead master applies nothing),
// the retrying designs exact.
func TestFailoverSideBySide(t *testing.T) {
	t.Parallel()
	c := redistest.ReplicatedCluster(t, redistest.ReplicaOptions{})
	b := connect(t, redisstore.Config{URL: c.URL})
	var err error
	kills := 0
	b.SetKiller(func(node int) error {
		kills++
		c.KillMaster(node)
		return nil
	})
	// A fifth of the scenario's rate and twice its timeout, in both of
	// make test's passes (the failover test's own -short figures): the
	// suite runs other packages' binaries beside this one, and a replay
	// behind its schedule by more than the timeout sees writes that landed
	// time out and be retried (at load 9–12 on 2 cores the full rate's
	// replay fell behind: 3,268 ops failed against 450 simulated). The
	// scenario's own rate, 1,000 a second with 250 ms, holds its ranges
	// on a quiet machine (the README's table).
	timeout := 250 * time.Millisecond
	var sets []scenarios.Set
	{
		timeout *= 2
		args := []string{"workload.phases[0].rate=200"}
		for _, d := range []string{"timeout", "retries", "retries-idempotent"} {
			args = append(args, fmt.Sprintf("strategies[%s].params.timeout=%v", d, timeout))
		}
		if sets, err = scenarios.ParseSets(args); err != nil {
			t.Fatal(err)
		}
	}
	scn, err := scenarios.Load(sbsFile, sets...)
	if err != nil {
		t.Fatal(err)
	}
	timed, ok := scn.Run.(*scenarios.Timed)
	if !ok || len(timed.Phases) != 1 || len(scn.Faults) != 1 {
		t.Fatalf("%s: want a timed stream of one phase and one fault", sbsFile)
	}
	rate, f := timed.Phases[0].Rate, scn.Faults[0]
	delay := time.Duration(f.Delay).Seconds()
	st, err := sim.Prepare(scn, sim.Options{Store: b})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if kills != 1 {
		t.Fatalf("the master was killed %d times, want once", kills)
	}
	designs := map[string]struct{ idempotent, retries bool }{
		"timeout":            {},
		"retries":            {retries: true},
		"retries-idempotent": {idempotent: true, retries: true},
	}
	tables := 0
	for _, tb := range rep.Tables {
		name, ok := strings.CutPrefix(tb.Name, "sidebyside-")
		if !ok {
			continue
		}
		tables++
		d, ok := designs[name]
		if !ok {
			t.Errorf("a side-by-side table of %q, not a design of the scenario", name)
			continue
		}
		// Under the race detector the replay falls behind its schedule on a
		// shared 2-core machine (CI's race pass: 1,407 ops failed against 84
		// simulated, landed writes answered late and retried), so that pass
		// holds only the rows a replay behind schedule cannot move: no
		// acknowledged write lost, and the idempotent design exact. The
		// full pass holds every row to its range and the pace too.
		robust := map[string]bool{"acknowledged writes lost (replication lag)": true}
		if d.idempotent {
			robust["writes counted twice (final - truth)"], robust["final count - truth"] = true, true
		}
		if kept := value(t, rep, name+"@redis", metrics.KeptUp); kept != 1 && !raceEnabled {
			t.Errorf("%s@redis did not keep the scenario's pace: the real figures are the machine's backlog", name)
		}
		simv := map[string]float64{}
		for k, l := range tb.Labels {
			simv[l] = tb.Rows[k][0]
		}
		ranges := sbsRanges(simv, rate, delay, timeout.Seconds(), d.idempotent, d.retries)
		if len(tb.Labels) != len(ranges) {
			t.Errorf("%s: table rows %q, want one for each of %d stated ranges", name, tb.Labels, len(ranges))
		}
		for k, l := range tb.Labels {
			sv, rv := tb.Rows[k][0], tb.Rows[k][1]
			r, ok := ranges[l]
			if !ok {
				t.Errorf("%s: row %q has no stated range", name, l)
				continue
			}
			t.Logf("%-18s %-66s simulated %8.3f  real %8.3f  range [%g, %g] (%s)", name, l, sv, rv, r.lo, r.hi, r.why)
			if raceEnabled && !robust[l] {
				continue
			}
			if !r.holds(rv) {
				t.Errorf("%s: %s: real %g outside [%g, %g] (%s) about the simulated %g", name, l, rv, r.lo, r.hi, r.why, sv)
			}
		}
		var md strings.Builder
		if err := metrics.WriteTableMarkdown(&md, tb); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s (report.md):\n%s", tb.Title, md.String())
		if !strings.Contains(md.String(), "simulated") || !strings.Contains(md.String(), "real") {
			t.Errorf("%s: the report's table has no simulated and real columns:\n%s", name, md.String())
		}
		t.Logf("%s@redis: store_writes_extra %g (no simulated twin)", name, value(t, rep, name+"@redis", metrics.StoreExtra))
		// What the simulation itself promises at lag 0 and no queue.
		for _, l := range []string{"acknowledged writes lost (replication lag)", "writes counted twice (final - truth)"} {
			if simv[l] != 0 {
				t.Errorf("%s: simulated %s %g, want 0 (lag 0; the dead master applies nothing)", name, l, simv[l])
			}
		}
		if d.retries && simv["final count - truth"] != 0 {
			t.Errorf("%s: simulated final − truth %g, want 0 (retries outlast the outage)", name, simv["final count - truth"])
		}
		if simv["ops failed in the faults"] == 0 {
			t.Errorf("%s: no simulated op failed in the failover", name)
		}
	}
	if tables != len(designs) {
		t.Errorf("%d side-by-side tables, want one a design (%d)", tables, len(designs))
	}
	if !strings.Contains(strings.Join(st.Notes, "\n"), "store_writes_extra") {
		t.Errorf("the notes do not say which real rows have no simulated twin: %q", st.Notes)
	}
}
