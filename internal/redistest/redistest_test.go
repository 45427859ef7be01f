package redistest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// client is a go-redis client of addr that fails at once instead of
// retrying, so a test sees the first error.
func client(t *testing.T, addr string) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL("redis://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	opt.MaxRetries = -1
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestServerKill: a server answers SET and GET on its URL, is the process
// of its PID, logs into its Dir; once killed, a command on the open
// connection and a new connection both fail within 2 s.
func TestServerKill(t *testing.T) {
	t.Parallel()
	s := Server(t)
	if !strings.HasPrefix(s.Addr, "127.0.0.1:") {
		t.Fatalf("Addr %q: want 127.0.0.1:port", s.Addr)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "redis.log")); err != nil {
		t.Errorf("no log in Dir: %v", err)
	}
	ctx := context.Background()
	c := client(t, s.Addr)
	if err := c.Set(ctx, "k", "v1", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if got, err := c.Get(ctx, "k").Result(); err != nil || got != "v1" {
		t.Fatalf("GET k = %q, %v; want v1", got, err)
	}
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	if got := infoField(info, "process_id"); got != strconv.Itoa(s.PID) {
		t.Fatalf("server's process_id %s, Instance.PID %d", got, s.PID)
	}

	s.Kill()
	if err := syscall.Kill(s.PID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after Kill, signal 0 to PID %d: %v; want ESRCH (gone and reaped)", s.PID, err)
	}
	start := time.Now()
	ctx2, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if got, err := c.Get(ctx2, "k").Result(); err == nil {
		t.Fatalf("GET after Kill = %q, want an error", got)
	}
	if d, err := net.DialTimeout("tcp", s.Addr, 2*time.Second); err == nil {
		d.Close()
		t.Fatalf("dial %s after Kill succeeded", s.Addr)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("failing took %v, want < 2 s", el)
	}
	s.Kill() // idempotent
}

// TestServersParallel: servers started at once get their own ports,
// processes and directories, and keep their own data.
func TestServersParallel(t *testing.T) {
	t.Parallel()
	const n = 4
	ss := make([]*Instance, n)
	errs := make(chan error, n)
	for k := range ss {
		ss[k] = Server(t)
	}
	ctx := context.Background()
	addrs, pids, dirs := map[string]bool{}, map[int]bool{}, map[string]bool{}
	clients := make([]*redis.Client, n)
	for k, s := range ss {
		addrs[s.Addr], pids[s.PID], dirs[s.Dir] = true, true, true
		clients[k] = client(t, s.Addr)
	}
	if len(addrs) != n || len(pids) != n || len(dirs) != n {
		t.Fatalf("%d servers share addresses, PIDs or directories: %v %v %v", n, addrs, pids, dirs)
	}
	for k, c := range clients {
		go func() { errs <- c.Set(ctx, "who", k, 0).Err() }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for k, c := range clients {
		if got, err := c.Get(ctx, "who").Int(); err != nil || got != k {
			t.Errorf("server %d: who = %d, %v; want %d", k, got, err, k)
		}
	}
}

// TestCluster: three masters on loopback, each serving part of the slots,
// every one ok, and the URL naming them in order.
func TestCluster(t *testing.T) {
	t.Parallel()
	c := Cluster(t)
	if len(c.Nodes) != 3 {
		t.Fatalf("%d nodes, want 3", len(c.Nodes))
	}
	var addrs []string
	for _, n := range c.Nodes {
		addrs = append(addrs, n.Addr)
	}
	if want := "redis-cluster://" + strings.Join(addrs, ","); c.URL != want {
		t.Errorf("URL %q, want %q", c.URL, want)
	}
	ctx := context.Background()
	for _, n := range c.Nodes {
		cl := client(t, n.Addr)
		info, err := cl.ClusterInfo(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		if infoField(info, "cluster_state") != "ok" || infoField(info, "cluster_known_nodes") != "3" ||
			infoField(info, "cluster_size") != "3" {
			t.Errorf("node %s: CLUSTER INFO:\n%s", n.Addr, info)
		}
		if got := infoField(cl.Info(ctx, "server").Val(), "process_id"); got != strconv.Itoa(n.PID) {
			t.Errorf("node %s: process_id %s, Instance.PID %d", n.Addr, got, n.PID)
		}
	}
	// A key lives on one node; the others redirect to it.
	var ok, moved int
	for _, n := range c.Nodes {
		err := client(t, n.Addr).Set(ctx, "somekey", "v", 0).Err()
		switch {
		case err == nil:
			ok++
		case strings.HasPrefix(err.Error(), "MOVED "):
			moved++
		default:
			t.Errorf("SET on %s: %v", n.Addr, err)
		}
	}
	if ok != 1 || moved != 2 {
		t.Errorf("SET somekey: accepted by %d nodes, MOVED by %d; want 1 and 2", ok, moved)
	}
}

// fatalTB records the first Fatal or Skip and stops the function under
// test, as testing.T would, by a panic that the test recovers.
type fatalTB struct {
	testing.TB
	msg     string
	skipped bool
}

type stopped struct{}

func (f *fatalTB) Helper()                   {}
func (f *fatalTB) Fatalf(s string, a ...any) { f.msg = fmt.Sprintf(s, a...); panic(stopped{}) }
func (f *fatalTB) Fatal(a ...any)            { f.msg = fmt.Sprint(a...); panic(stopped{}) }
func (f *fatalTB) Skip(...any)               { f.skipped = true; panic(stopped{}) }
func (f *fatalTB) Skipf(string, ...any)      { f.skipped = true; panic(stopped{}) }
func (f *fatalTB) SkipNow()                  { f.skipped = true; panic(stopped{}) }

func (f *fatalTB) run(fn func(testing.TB)) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
		}
	}()
	fn(f)
}

// TestNoRedisFails: without redis-server on PATH, Server and Cluster fail
// the test (never skip it) and say how to install it.
func TestNoRedisFails(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for name, fn := range map[string]func(testing.TB){
		"Server":  func(tb testing.TB) { Server(tb) },
		"Cluster": func(tb testing.TB) { Cluster(tb) },
	} {
		f := &fatalTB{TB: t}
		f.run(fn)
		if f.skipped {
			t.Errorf("%s skipped the test; it must fail it", name)
		}
		for _, want := range []string{"apt-get install -y redis-server", "tools/redis-loopback start"} {
			if !strings.Contains(f.msg, want) {
				t.Errorf("%s failed with %q; want it to say %q", name, f.msg, want)
			}
		}
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := moduleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(root)
	wd, _ := os.Getwd()
	if want := filepath.Dir(filepath.Dir(wd)); abs != want { // internal/redistest
		t.Errorf("module root %s, want %s", abs, want)
	}
	if _, err := moduleRoot(t.TempDir()); err == nil {
		t.Error("a temporary directory has a module root; want an error")
	}
}

// script runs tools/redis-loopback with args and env (besides the test's
// own), returning its stdout, stderr and exit code.
func script(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	path, err := scriptPath()
	if err != nil {
		t.Fatal(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, append([]string{path}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestScriptErrors: usage errors exit 2 with the usage text; without
// redis-server on PATH, the script says how to install it and exits 1.
func TestScriptErrors(t *testing.T) {
	t.Parallel()
	empty := "PATH=" + t.TempDir()
	for _, tc := range []struct {
		env  []string
		args []string
		code int
		want string
	}{
		{nil, nil, 2, "usage: redis-loopback"},
		{nil, []string{"launch"}, 2, "unknown command 'launch'"},
		{nil, []string{"start", "65536"}, 2, "PORT must be a port number in 1..65535, got '65536'"},
		{nil, []string{"start", "08"}, 2, "got '08'"},
		{nil, []string{"start", "1", "2"}, 2, "start takes [PORT]"},
		{nil, []string{"server", "7000"}, 2, "server takes PORT DIR [cluster]"},
		{nil, []string{"server", "60000", "/", "cluster"}, 2, "1..55535"},
		{nil, []string{"server", "7000", "/", "replica"}, 2, "must be 'cluster'"},
		{nil, []string{"create", "1", "2"}, 2, "create takes P1 P2 P3 [P4 ...]"},
		{nil, []string{"start-cluster", "55534"}, 2, "1..55533"},
		{[]string{empty}, []string{"start"}, 1, "redis-loopback: redis-server not found; install it with: apt-get install -y redis-server (Debian/Ubuntu)\n"},
		{[]string{empty}, []string{"server", "7000", "/"}, 1, "redis-server not found"},
		{[]string{empty}, []string{"start-cluster"}, 1, "redis-server not found"},
		{[]string{empty}, []string{"create", "7001", "7002", "7003"}, 1, "redis-server not found"},
		{[]string{"TMPDIR=" + t.TempDir()}, []string{"stop", "7001"}, 1, "no server started by 'redis-loopback start 7001'"},
	} {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			out, errs, code := script(t, tc.env, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, no stdout, stderr with %q", code, out, errs, tc.code, tc.want)
			}
			if tc.code == 2 && !strings.Contains(errs, "usage: redis-loopback COMMAND") {
				t.Errorf("usage error without the usage text:\n%s", errs)
			}
		})
	}
}

// TestScriptStartStop: `start` leaves a daemon that answers on the printed
// URL and is the PID of its pidfile; `stop` ends it by that PID and removes
// its state. The same for `start-cluster` (not with -short: forming a
// cluster takes redis-cli about 2 s).
func TestScriptStartStop(t *testing.T) {
	t.Parallel()
	for _, cluster := range []bool{false, true} {
		t.Run(fmt.Sprintf("cluster=%v", cluster), func(t *testing.T) {
			if cluster && testing.Short() {
				t.Skip("forming a cluster takes ~2 s; the Cluster tests cover create")
			}
			t.Parallel()
			testScriptStartStop(t, cluster)
		})
	}
}

func testScriptStartStop(t *testing.T, cluster bool) {
	tmp := "TMPDIR=" + t.TempDir()
	stateDir := func(p int) string {
		return filepath.Join(strings.TrimPrefix(tmp, "TMPDIR="), "countsim-redis-"+strconv.Itoa(p))
	}
	start, stop, n := "start", "stop", 1
	if cluster {
		start, stop, n = "start-cluster", "stop-cluster", 3
	}
	var p1 int
	for range 100 {
		p1 = portLow + rand.IntN(portHigh-portLow-2)
		free := true
		for p := p1; p < p1+n; p++ {
			free = free && canBind(p) && (!cluster || canBind(p+clusterBusSkew))
		}
		if free {
			break
		}
	}
	arg := strconv.Itoa(p1)
	t.Cleanup(func() { // if the test fails half way
		if _, err := os.Stat(stateDir(p1)); err == nil {
			script(t, []string{tmp}, stop, arg)
		}
	})
	out, errs, code := script(t, []string{tmp}, start, arg)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", start, arg, code, errs)
	}
	var addrs []string
	for p := p1; p < p1+n; p++ {
		addrs = append(addrs, "127.0.0.1:"+strconv.Itoa(p))
	}
	want := "redis://" + addrs[0] + "\n"
	if cluster {
		want = "redis-cluster://" + strings.Join(addrs, ",") + "\n"
	}
	if out != want {
		t.Fatalf("%s printed %q, want %q", start, out, want)
	}
	ctx := context.Background()
	pids := make([]int, n)
	for k, addr := range addrs {
		pid, err := os.ReadFile(filepath.Join(stateDir(p1+k), "redis.pid"))
		if err != nil {
			t.Fatal(err)
		}
		pids[k], err = strconv.Atoi(strings.TrimSpace(string(pid)))
		if err != nil {
			t.Fatal(err)
		}
		c := client(t, addr)
		info := c.Info(ctx, "server", "persistence").Val()
		if got := infoField(info, "process_id"); got != strconv.Itoa(pids[k]) {
			t.Errorf("%s: process_id %s, pidfile %d", addr, got, pids[k])
		}
		if cfg := c.ConfigGet(ctx, "bind").Val()["bind"]; cfg != "127.0.0.1" {
			t.Errorf("%s: bind %q, want 127.0.0.1", addr, cfg)
		}
		if cfg := c.ConfigGet(ctx, "save").Val()["save"]; cfg != "" {
			t.Errorf("%s: save %q, want none", addr, cfg)
		}
		if got := infoField(info, "aof_enabled"); got != "0" {
			t.Errorf("%s: aof_enabled %s, want 0", addr, got)
		}
		if cluster {
			if s := infoField(c.ClusterInfo(ctx).Val(), "cluster_state"); s != "ok" {
				t.Errorf("%s: cluster_state %q", addr, s)
			}
		}
	}
	// A second start of the same port refuses, and leaves the first alone.
	if _, errs, code := script(t, []string{tmp}, start, arg); code != 1 || !strings.Contains(errs, "already runs on port") {
		t.Errorf("second %s: exit %d, %s", start, code, errs)
	}
	if _, errs, code := script(t, []string{tmp}, stop, arg); code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", stop, arg, code, errs)
	}
	for k, addr := range addrs {
		if _, err := os.Stat(stateDir(p1 + k)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("state dir of %s after %s: %v; want removed", addr, stop, err)
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			t.Errorf("%s answers after %s", addr, stop)
		}
		// A daemon's parent is init, which may reap it late: gone or a zombie.
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pids[k])); err == nil {
			if f := strings.Fields(string(stat)); len(f) > 2 && f[2] != "Z" {
				t.Errorf("PID %d still runs after %s: %s", pids[k], stop, stat)
			}
		}
	}
}

// TestPortTaken: a server whose port another server holds is not mistaken
// for ready (that one answers PING, but with its own process_id); start
// sees errPortTaken, which makes it retry on another port.
func TestPortTaken(t *testing.T) {
	t.Parallel()
	s := Server(t)
	path, err := scriptPath()
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(s.Addr[strings.LastIndexByte(s.Addr, ':')+1:])
	inst, err := launch(t, path, port, t.TempDir(), false)
	if !errors.Is(err, errPortTaken) {
		t.Fatalf("launch on the port of a running server: %v, %v; want errPortTaken", inst, err)
	}
	if !strings.Contains(err.Error(), "redis.log") {
		t.Errorf("error without the log's tail: %v", err)
	}
	if err := checkServer(s, time.Now().Add(time.Second)); err != nil {
		t.Errorf("the first server after the failed start: %v", err)
	}
}

// TestReplicatedClusterFailsOver: three masters and three replicas form a
// cluster, each replica following its own master; after master 1's kill,
// its replica answers as the master within node timeout + FailoverMargin,
// not before the node timeout, and holds the master's keys (written and
// replicated before the kill: WAIT 1 says the replica took them).
func TestReplicatedClusterFailsOver(t *testing.T) {
	t.Parallel()
	c := ReplicatedCluster(t, ReplicaOptions{})
	if len(c.Masters) != 3 || len(c.Replicas) != 3 {
		t.Fatalf("%d masters and %d replicas, want 3 and 3", len(c.Masters), len(c.Replicas))
	}
	m, r := c.Masters[1], c.Replicas[1]
	mc := client(t, m.Addr)
	ctx := context.Background()
	// A key in master 1's slots: {c} hashes to slot 7365, in 5461..10922.
	const key = "{c}:k"
	if err := mc.Set(ctx, key, "v", 0).Err(); err != nil {
		t.Fatalf("SET on %s: %v", m.Addr, err)
	}
	if n, err := mc.Do(ctx, "WAIT", 1, 2000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1: %d, %v; want 1 replica", n, err)
	}
	// The replication lag: INCR a counter as fast as the master answers,
	// 50 a pipeline, counting the acknowledged ones, and kill the master
	// under it; the promoted replica's value is what it had received.
	const counter, pipe = "{c}:n", 50
	var acked int64
	stop := make(chan struct{})
	hammered := make(chan time.Duration)
	go func() {
		start := time.Now()
		defer func() { hammered <- time.Since(start) }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			p := mc.Pipeline()
			for range pipe {
				p.Incr(ctx, counter)
			}
			if _, err := p.Exec(ctx); err != nil {
				return // the kill
			}
			acked += pipe
		}
	}()
	time.Sleep(500 * time.Millisecond)
	killed := c.KillMaster(1)
	close(stop)
	took := <-hammered
	promoted, err := c.WaitPromoted(1, c.NodeTimeout+FailoverMargin+5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Get(r, counter)
	if err != nil {
		t.Fatal(err)
	}
	have, _ := strconv.ParseInt(got, 10, 64)
	rate := float64(acked) / took.Seconds()
	t.Logf("replication lag: %d INCRs acknowledged (%.0f/s), %d on the promoted replica: %d lost, %.3f ms of writes",
		acked, rate, have, acked-have, float64(acked-have)/rate*1e3)
	// The replica holds what the master acknowledged, less its lag, and at
	// most the pipeline in flight at the kill beyond it.
	if have > acked+pipe || have < acked/2 {
		t.Errorf("the promoted replica holds %d of %d acknowledged INCRs (+ %d in flight)", have, acked, pipe)
	}
	d := promoted.Sub(killed)
	t.Logf("failover: replica %s promoted %v after the kill of %s (node timeout %v)", r.Addr, d.Round(time.Millisecond), m.Addr, c.NodeTimeout)
	if d > c.NodeTimeout+2500*time.Millisecond {
		t.Logf("a slow failover (a failed election?):%s", logTail(r.Dir))
	}
	if d < c.NodeTimeout || d > c.NodeTimeout+FailoverMargin {
		t.Errorf("promoted %v after the kill, want within [%v, %v]", d, c.NodeTimeout, c.NodeTimeout+FailoverMargin)
	}
	if v, err := Get(r, key); err != nil || v != "v" {
		t.Errorf("GET %s on the promoted replica: %q, %v; want v", key, v, err)
	}
}
