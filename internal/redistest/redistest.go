package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Timeouts and retry counts. A loopback redis-server answers PING within
// tens of milliseconds of its start; the bounds are for a loaded machine.
const (
	readyTimeout   = 10 * time.Second // from start to PING answered (or cluster_state:ok)
	createTimeout  = 30 * time.Second // tools/redis-loopback create, which waits ≤ 15 s itself
	stopTimeout    = 5 * time.Second  // from SIGTERM to SIGKILL
	startAttempts  = 5                // starts tried when another process takes the port first
	portLow        = 20000            // ports are picked in [portLow, portHigh), so that a
	portHigh       = 55000            // cluster bus port, PORT+10000, is a port too
	clusterBusSkew = 10000
	logTailLines   = 20
)

// installHint says how to get a redis-server; tests fail with it when there is none.
const installHint = "redistest: redis-server not found on PATH. The Redis store's tests run a real server: " +
	"install it with: apt-get install -y redis-server (Debian/Ubuntu); " +
	"tools/redis-loopback start then runs one by hand"

// Instance is one redis-server this test started.
type Instance struct {
	Addr string // 127.0.0.1:port; its URL is "redis://"+Addr
	PID  int    // the redis-server's own PID
	Dir  string // its working directory, with its log, redis.log

	cmd     *exec.Cmd
	done    chan struct{} // closed once cmd.Wait has returned
	waitErr error         // cmd.Wait's result, set before done is closed
	killed  atomic.Bool   // Kill was called: an exit is expected
}

// Kill ends the server at once with SIGKILL, by its own PID, and waits until
// it has exited: a crash in the middle of a test. Calling it again, or after
// the server has exited, does nothing.
func (i *Instance) Kill() {
	i.killed.Store(true)
	select {
	case <-i.done:
		return
	default:
	}
	_ = i.cmd.Process.Kill() // fails only if it has just exited
	<-i.done
}

// stop ends the server by its own PID: SIGTERM, then SIGKILL after
// stopTimeout. It runs in t.Cleanup.
func (i *Instance) stop(t testing.TB) {
	select {
	case <-i.done:
		if !i.killed.Load() {
			t.Logf("redistest: redis-server %s (PID %d) exited during the test: %v%s", i.Addr, i.PID, i.waitErr, logTail(i.Dir))
		}
		return
	default:
	}
	_ = i.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-i.done:
		return
	case <-time.After(stopTimeout):
	}
	t.Logf("redistest: redis-server %s (PID %d) ignored SIGTERM for %v; sending SIGKILL", i.Addr, i.PID, stopTimeout)
	_ = i.cmd.Process.Kill()
	<-i.done
}

// Server starts one redis-server on a free loopback port and returns once it
// answers PING. t.Cleanup stops it. It fails the test, never skips it, when
// redis-server is not installed or does not start.
func Server(t testing.TB) *Instance {
	t.Helper()
	script := setup(t)
	return start(t, script, false)
}

// ClusterNode starts one cluster-enabled redis-server that is in no
// cluster: its slots are unassigned and it reports cluster_state:fail, as
// a cluster not yet created does. t.Cleanup stops it.
func ClusterNode(t testing.TB) *Instance {
	t.Helper()
	script := setup(t)
	return start(t, script, true)
}

// ClusterInstance is a Redis Cluster of masters this test started.
type ClusterInstance struct {
	// Nodes are the masters in the order they were given to redis-cli
	// --cluster create, which spreads the slots over them in that order:
	// Nodes[i] serves the i-th range of keyslot.Ranges(len(Nodes)).
	Nodes []*Instance
	URL   string // redis-cluster://127.0.0.1:P1,127.0.0.1:P2,…
}

// Cluster starts three cluster-enabled masters on free loopback ports, makes
// them a cluster with tools/redis-loopback create, and returns once every
// node reports cluster_state:ok with all 16384 slots assigned. t.Cleanup
// stops them. It fails the test, never skips it, when redis-server is not
// installed or the cluster does not form.
func Cluster(t testing.TB) *ClusterInstance {
	t.Helper()
	return ClusterOf(t, 3)
}

// ClusterOf is [Cluster] of n masters, n at least 3 (redis-cli refuses
// fewer): 8 for the cricket final's board of 8 shards on 8 nodes.
func ClusterOf(t testing.TB, n int) *ClusterInstance {
	t.Helper()
	if n < 3 {
		t.Fatalf("redistest: a cluster of %d masters; redis-cli --cluster create needs at least 3", n)
	}
	script := setup(t)
	if _, err := exec.LookPath("redis-cli"); err != nil {
		t.Fatalf("redistest: redis-cli not found on PATH (tools/redis-loopback create needs it): %v; "+
			"install it with: apt-get install -y redis-server (Debian/Ubuntu)", err)
	}
	c := &ClusterInstance{Nodes: make([]*Instance, n)}
	args := []string{"create"}
	addrs := make([]string, len(c.Nodes))
	for k := range c.Nodes {
		node := start(t, script, true)
		c.Nodes[k] = node
		addrs[k] = node.Addr
		args = append(args, node.Addr[strings.LastIndexByte(node.Addr, ':')+1:])
	}
	c.URL = "redis-cluster://" + strings.Join(addrs, ",")

	ctx, cancel := context.WithTimeout(context.Background(), createTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, script, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("redistest: %s %s: %v\n%s", script, strings.Join(args, " "), err, out)
	}
	// The script has waited for cluster_state:ok on every node; check it
	// here too, so that Cluster's promise does not rest on the script alone.
	for _, node := range c.Nodes {
		if err := waitClusterOK(node, readyTimeout); err != nil {
			t.Fatalf("redistest: cluster %s: %v%s", c.URL, err, logTail(node.Dir))
		}
	}
	return c
}

// setup fails the test unless redis-server is on PATH, and returns the path
// of tools/redis-loopback.
func setup(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("%s (%v)", installHint, err)
	}
	script, err := scriptPath()
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	return script
}

var scriptPath = sync.OnceValues(func() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	root, err := moduleRoot(wd)
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "tools", "redis-loopback")
	if _, err := os.Stat(script); err != nil {
		return "", fmt.Errorf("the loopback script: %w", err)
	}
	return script, nil
})

// moduleRoot is the nearest directory at or above dir that holds go.mod.
func moduleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no go.mod in %s or any directory above it", dir)
		}
		d = up
	}
}

// errPortTaken: the server could not bind its port (or bus port), which
// another process took between the check and the start.
var errPortTaken = errors.New("port already in use")

// start runs `script server PORT DIR [cluster]` on a free port, retrying
// with another port when the port is taken first, and waits until it
// answers PING.
func start(t testing.TB, script string, cluster bool) *Instance {
	t.Helper()
	var err error
	for range startAttempts {
		var port int
		port, err = freePort(cluster)
		if err != nil {
			break
		}
		// The directory first: cleanups run last-in first-out, so the
		// server is stopped before its directory is removed.
		dir := t.TempDir()
		var inst *Instance
		inst, err = launch(t, script, port, dir, cluster)
		if err == nil {
			return inst
		}
		if !errors.Is(err, errPortTaken) {
			break
		}
	}
	t.Fatalf("redistest: %v", err)
	return nil
}

// launch starts one server and waits until it is ready; t.Cleanup stops it
// whether or not it became ready.
func launch(t testing.TB, script string, port int, dir string, cluster bool) (*Instance, error) {
	args := []string{"server", strconv.Itoa(port), dir}
	if cluster {
		args = append(args, "cluster")
	}
	// The script's own messages (redis-server logs to dir/redis.log).
	out, err := os.Create(filepath.Join(dir, "script.out"))
	if err != nil {
		return nil, err
	}
	defer out.Close()
	cmd := exec.Command(script, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", script, err)
	}
	inst := &Instance{
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		PID:  cmd.Process.Pid,
		Dir:  dir,
		cmd:  cmd,
		done: make(chan struct{}),
	}
	go func() {
		inst.waitErr = cmd.Wait()
		close(inst.done)
	}()
	t.Cleanup(func() { inst.stop(t) })
	if err := waitReady(inst, readyTimeout); err != nil {
		inst.Kill()
		return nil, err
	}
	return inst, nil
}

// waitReady polls the server until it answers PING and INFO says it is the
// process we started (not another server that took the port), or it exits,
// or timeout passes.
func waitReady(inst *Instance, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		select {
		case <-inst.done:
			tail := logTail(inst.Dir)
			err := fmt.Errorf("redis-server %s exited before it was ready: %v%s", inst.Addr, inst.waitErr, tail)
			if strings.Contains(tail, "already in use") {
				err = fmt.Errorf("%w: %w", errPortTaken, err)
			}
			return err
		default:
		}
		if last = checkServer(inst, deadline); last == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server %s (PID %d) not ready within %v: %v%s", inst.Addr, inst.PID, timeout, last, logTail(inst.Dir))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkServer: PING answers PONG and INFO's process_id is inst.PID.
func checkServer(inst *Instance, deadline time.Time) error {
	c, err := dial(inst.Addr, deadline)
	if err != nil {
		return err
	}
	defer c.Close()
	if r, err := c.do("PING"); err != nil || r != "PONG" {
		return fmt.Errorf("PING: %q, %v", r, err)
	}
	info, err := c.do("INFO", "server")
	if err != nil {
		return fmt.Errorf("INFO server: %w", err)
	}
	if pid := infoField(info, "process_id"); pid != strconv.Itoa(inst.PID) {
		return fmt.Errorf("the server on %s has process_id %q, not the PID started, %d", inst.Addr, pid, inst.PID)
	}
	return nil
}

// waitClusterOK polls CLUSTER INFO on n until cluster_state is ok and every
// slot is assigned.
func waitClusterOK(n *Instance, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		info, err := clusterInfo(n.Addr, deadline)
		if err == nil && infoField(info, "cluster_state") == "ok" && infoField(info, "cluster_slots_assigned") == "16384" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node %s: cluster_state %q, slots assigned %q after %v (err %v)",
				n.Addr, infoField(info, "cluster_state"), infoField(info, "cluster_slots_assigned"), timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func clusterInfo(addr string, deadline time.Time) (string, error) {
	c, err := dial(addr, deadline)
	if err != nil {
		return "", err
	}
	defer c.Close()
	return c.do("CLUSTER", "INFO")
}

// freePort picks a port in [portLow, portHigh) that a listener on 127.0.0.1
// can bind now, and whose bus port, PORT+10000, can be bound too when
// cluster is set. Another process may still take it before the server
// does: start then retries.
func freePort(cluster bool) (int, error) {
	for range 200 {
		p := portLow + rand.IntN(portHigh-portLow)
		if canBind(p) && (!cluster || canBind(p+clusterBusSkew)) {
			return p, nil
		}
	}
	return 0, errors.New("no free loopback port found in 200 tries")
}

func canBind(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// logTail is the end of dir/redis.log and of the script's messages, for
// error messages ("" when both are empty).
func logTail(dir string) string {
	var b strings.Builder
	for _, name := range []string{"redis.log", "script.out"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(data) == 0 {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > logTailLines {
			lines = lines[len(lines)-logTailLines:]
		}
		fmt.Fprintf(&b, "\n--- last lines of %s:\n%s", filepath.Join(dir, name), strings.Join(lines, "\n"))
	}
	return b.String()
}

// infoField is the value of "name:value" in an INFO reply ("" if absent).
func infoField(info, name string) string {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// conn is the least of a RESP client, for readiness checks: commands whose
// reply is a simple string, an error, an integer or a bulk string.
type conn struct {
	net.Conn
	r *bufio.Reader
}

func dial(addr string, deadline time.Time) (*conn, error) {
	d := net.Dialer{Deadline: deadline}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := c.SetDeadline(deadline); err != nil {
		c.Close()
		return nil, err
	}
	return &conn{Conn: c, r: bufio.NewReader(c)}, nil
}

// do sends one command and reads its reply.
func (c *conn) do(args ...string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", errors.New("empty reply")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return "", fmt.Errorf("redis: %s", line[1:])
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < -1 {
			return "", fmt.Errorf("bad bulk length %q", line)
		}
		if n == -1 {
			return "", nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}
