package redisstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"countsim/keyslot"
	"countsim/strategies"
)

// Paces: how a store sends a timed stream's ops.
const (
	PaceReal = "real" // at the scenario's rate, open loop (the default)
	PaceMax  = "max"  // as fast as the replies come back
)

// DefaultTimeout bounds every call to the server.
const DefaultTimeout = 2 * time.Second

// Config says which Redis to use and how.
type Config struct {
	// URL is redis://[user:password@]host[:port][/db] for one server (port
	// 6379 if none), or redis-cluster://host:port,host:port,… for a Redis
	// Cluster (any of its nodes; the others are found from it). A host is
	// required and a port is a number in 1..65535.
	URL string
	// Pace is PaceReal ("" too) or PaceMax.
	Pace string
	// Keep leaves the keys on the server after the run.
	Keep bool
	// Timeout bounds every call; 0 means DefaultTimeout.
	Timeout time.Duration
}

// CheckURL checks the form of a store URL without connecting.
func CheckURL(url string) error {
	_, _, err := parseURL(url)
	return err
}

// CheckPace checks a pace.
func CheckPace(pace string) error {
	if pace != "" && pace != PaceReal && pace != PaceMax {
		return fmt.Errorf("pace %q not allowed (allowed: real, max)", pace)
	}
	return nil
}

// urlForms is what the error of a malformed URL allows.
const urlForms = "allowed: redis://host:port[/db] or redis-cluster://host:port,host:port,…"

// parseURL returns the addresses of a cluster URL (cluster true), or the
// options of a one-server URL. Every address it accepts is host:port with
// a host and a port in 1..65535 (a one-server URL without a port has
// Redis's, 6379); every error names the URL and the allowed forms.
func parseURL(raw string) (opts *redis.Options, addrs []string, err error) {
	switch {
	case strings.HasPrefix(raw, "redis-cluster://"):
		for a := range strings.SplitSeq(strings.TrimPrefix(raw, "redis-cluster://"), ",") {
			if err := checkAddr(a); err != nil {
				return nil, nil, fmt.Errorf("store %q: node %q: %v (%s)", raw, a, err, urlForms)
			}
			addrs = append(addrs, a)
		}
		return nil, addrs, nil
	case strings.HasPrefix(raw, "redis://"):
		// go-redis would take a missing host for localhost: refuse it.
		if u, err := url.Parse(raw); err == nil && u.Hostname() == "" {
			return nil, nil, fmt.Errorf("store %q: no host (%s)", raw, urlForms)
		}
		o, err := redis.ParseURL(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("store %q: %v (%s)", raw, err, urlForms)
		}
		if err := checkAddr(o.Addr); err != nil {
			return nil, nil, fmt.Errorf("store %q: %v (%s)", raw, err, urlForms)
		}
		if o.DB < 0 {
			return nil, nil, fmt.Errorf("store %q: database %d not allowed, the least is 0 (%s)", raw, o.DB, urlForms)
		}
		return o, nil, nil
	}
	return nil, nil, fmt.Errorf("store %q: unknown scheme (%s)", raw, urlForms)
}

// checkAddr checks that a is host:port, with a host and a port in 1..65535.
func checkAddr(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return err
	}
	if host == "" {
		return errors.New("no host")
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return fmt.Errorf("port %q not a number in 1..65535", port)
	}
	return nil
}

// Backend is a connection to one Redis server or Redis Cluster, which opens
// a store for each twin design of a run ([strategies.Backend]). It is safe for
// concurrent use.
type Backend struct {
	cfg     Config
	client  redis.UniversalClient
	cluster bool
	opts    *redis.Options // a one-server URL's (nil: a cluster's)
	run     string         // the run's part of every key name
	nodes   []string       // the masters' addresses, in the order of their first slots
	slots   []int16        // slot → index in nodes (a cluster's); nil: one node

	clusterOpts redis.ClusterOptions // a cluster's, for DoClient's client

	mu           sync.Mutex            // guards the fields below
	fallible     redis.UniversalClient // DoClient's: no retries, no redirects (fallible.go)
	scriptLoaded bool                  // IncrByOnce's script is on every node
	scriptTried  time.Time             // the last try to load it
	killer       func(node int) error  // kills node i's master (SetKiller); nil: none
	killed       map[int]time.Time     // the failovers applied, by the run's fault index
}

// Connect connects to the store cfg names, checks that it answers (and,
// for a cluster, that every slot is served and its state is ok), and reads
// its slots' nodes.
func Connect(ctx context.Context, cfg Config) (*Backend, error) {
	if err := CheckPace(cfg.Pace); err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	opts, addrs, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	quiet.Do(func() { redis.SetLogger(discard{}) })
	b := &Backend{cfg: cfg, run: runID()}
	if addrs != nil {
		if err := clusterReady(ctx, addrs, cfg.Timeout); err != nil {
			return nil, fmt.Errorf("store %s: %w", cfg.URL, err)
		}
	}
	off := &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if opts != nil {
		opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = cfg.Timeout, cfg.Timeout, cfg.Timeout
		opts.PoolTimeout, opts.MaxRetries, opts.Protocol = cfg.Timeout, -1, 2
		opts.DisableIdentity, opts.MaintNotificationsConfig = true, off
		b.client = redis.NewClient(opts)
		b.nodes, b.opts = []string{opts.Addr}, opts
	} else {
		b.cluster = true
		b.clusterOpts = redis.ClusterOptions{Addrs: addrs,
			DialTimeout: cfg.Timeout, ReadTimeout: cfg.Timeout, WriteTimeout: cfg.Timeout, PoolTimeout: cfg.Timeout,
			MaxRetries: -1, Protocol: 2, DisableIdentity: true, MaintNotificationsConfig: off}
		o := b.clusterOpts
		b.client = redis.NewClusterClient(&o)
	}
	if err := b.connect(ctx); err != nil {
		b.client.Close()
		return nil, fmt.Errorf("store %s: %w", cfg.URL, err)
	}
	return b, nil
}

// connect pings the server; on a cluster it checks the state and maps the
// slots to their masters (CLUSTER SHARDS).
func (b *Backend) connect(ctx context.Context) error {
	c, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	if !b.cluster {
		return b.client.Ping(c).Err()
	}
	cc := b.client.(*redis.ClusterClient)
	shards, err := cc.ClusterShards(c).Result()
	if err != nil {
		return err
	}
	master := func(sh redis.ClusterShard) string {
		for _, n := range sh.Nodes {
			if n.Role == "master" {
				return net.JoinHostPort(cmp.Or(n.IP, n.Endpoint), strconv.FormatInt(n.Port, 10))
			}
		}
		return ""
	}
	// The masters in the order of the first slot each serves: on a cluster
	// made by redis-cli --cluster create, the order the nodes were given
	// to it, so that node i is the simulated cluster's node i.
	first := map[string]int64{}
	for _, sh := range shards {
		a := master(sh)
		if a == "" || len(sh.Slots) == 0 {
			continue
		}
		lo := sh.Slots[0].Start
		for _, r := range sh.Slots {
			lo = min(lo, r.Start)
		}
		if f, ok := first[a]; !ok || lo < f {
			first[a] = lo
		}
	}
	for a := range first {
		b.nodes = append(b.nodes, a)
	}
	slices.SortFunc(b.nodes, func(x, y string) int { return cmp.Compare(first[x], first[y]) })
	b.slots = make([]int16, keyslot.Count)
	for i := range b.slots {
		b.slots[i] = -1
	}
	for _, sh := range shards {
		n := int16(slices.Index(b.nodes, master(sh)))
		if n < 0 {
			continue
		}
		for _, r := range sh.Slots {
			for j := r.Start; j <= r.End && j < int64(len(b.slots)); j++ {
				b.slots[j] = n
			}
		}
	}
	if slices.Contains(b.slots, -1) {
		return errors.New("the cluster is not ready: some slots have no master")
	}
	// Every master must answer too: a node down leaves its slots unserved.
	return cc.ForEachMaster(c, func(ctx context.Context, m *redis.Client) error { return m.Ping(ctx).Err() })
}

// clusterReady asks each node given, by itself, whether the cluster is
// ready: a cluster not yet created (or with a slot unserved) reports
// cluster_state:fail, which go-redis's cluster client would only show as
// "no nodes" or a MOVED loop.
func clusterReady(ctx context.Context, addrs []string, timeout time.Duration) error {
	for _, a := range addrs {
		c := redis.NewClient(nodeOptions(nil, a, timeout))
		cctx, cancel := context.WithTimeout(ctx, timeout)
		info, err := c.ClusterInfo(cctx).Result()
		cancel()
		c.Close()
		if err != nil {
			return fmt.Errorf("node %s: %w", a, err)
		}
		state := "unknown"
		for line := range strings.SplitSeq(info, "\n") {
			if s, ok := strings.CutPrefix(strings.TrimSpace(line), "cluster_state:"); ok {
				state = s
			}
		}
		if state != "ok" {
			return fmt.Errorf("the cluster is not ready (node %s: cluster_state:%s): wait until every slot is served, or create it (tools/redis-loopback create, or start-cluster)", a, state)
		}
	}
	return nil
}

// nodeOptions are the options of a client of the one node at addr, by
// itself: base's (a one-server URL's: its user, password and db) or none,
// with every call bounded by timeout and no retries.
func nodeOptions(base *redis.Options, addr string, timeout time.Duration) *redis.Options {
	var o redis.Options
	if base != nil {
		o = *base
	}
	o.Addr, o.PoolSize = addr, 1
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = timeout, timeout, timeout, timeout
	o.MaxRetries, o.Protocol, o.DisableIdentity = -1, 2, true
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return &o
}

// probe asks node i, by itself, whether it is there: nil if it answers a
// PING within the timeout, else why not.
func (b *Backend) probe(ctx context.Context, i int) error {
	c := redis.NewClient(nodeOptions(b.opts, b.nodes[i], b.cfg.Timeout))
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	return c.Ping(ctx).Err()
}

// nodeErr is err, which a call to the nodes of cmds met, naming the node to
// blame: the node of the first command the server refused (a Redis error
// reply); else (a connection reset or refused, a timeout) each node of a
// failed command that does not answer a PING now, as gone away; else
// (they all answer) those nodes as too slow. A call that failed because
// ctx ended blames no node: the run was stopped.
func (b *Backend) nodeErr(ctx context.Context, cmds []redis.Cmder, err error) error {
	if ctx.Err() != nil {
		return err
	}
	var blamed []int // in order of their first failed command
	name := ""       // the first failed command's
	for _, c := range cmds {
		cerr := c.Err()
		if cerr == nil || errors.Is(cerr, redis.Nil) {
			continue
		}
		n := 0
		if args := c.Args(); len(args) > 1 {
			if key, ok := args[1].(string); ok {
				n = b.nodeOf(key)
			}
		}
		if _, ok := errors.AsType[redis.Error](cerr); ok {
			return fmt.Errorf("node %s: %s: %w", b.nodes[n], strings.ToUpper(c.Name()), cerr)
		}
		if name == "" {
			name = strings.ToUpper(c.Name())
		}
		if !slices.Contains(blamed, n) {
			blamed = append(blamed, n)
		}
	}
	if len(blamed) == 0 {
		return err
	}
	var gone, why []string
	for _, n := range blamed {
		if perr := b.probe(ctx, n); perr != nil {
			gone, why = append(gone, b.nodes[n]), append(why, perr.Error())
		}
	}
	if len(gone) > 0 {
		return fmt.Errorf("%s %s went away (PING: %s): %s: %w", plural(len(gone)), strings.Join(gone, ", "), strings.Join(why, "; "), name, err)
	}
	slow := make([]string, len(blamed))
	for i, n := range blamed {
		slow[i] = b.nodes[n]
	}
	return fmt.Errorf("%s %s did not answer within %s (a PING now answers): %s: %w", plural(len(slow)), strings.Join(slow, ", "), b.cfg.Timeout, name, err)
}

// plural is "node" or "nodes".
func plural(n int) string {
	if n == 1 {
		return "node"
	}
	return "nodes"
}

// discard drops go-redis's own log lines (a failed dial, retried): the
// store reports its errors itself, once.
type discard struct{}

func (discard) Printf(context.Context, string, ...any) {}

var quiet sync.Once

// runID is a run's part of the key names: the time and random bits, so two
// runs on one server never share a key.
func runID() string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(r[:])
}

// Name is "redis": twins are named NAME@redis.
func (b *Backend) Name() string { return "redis" }

// URL is the store's URL.
func (b *Backend) URL() string { return b.cfg.URL }

// Prefix is the start of every key name the backend's stores write.
func (b *Backend) Prefix() string { return "countsim:" + b.run + ":" }

// Nodes is the masters' addresses, in the order of the first slot each
// serves (one server: its address).
func (b *Backend) Nodes() []string { return slices.Clone(b.nodes) }

// nodeOf is the index in nodes of the master that holds name.
func (b *Backend) nodeOf(name string) int {
	if b.slots == nil {
		return 0
	}
	return int(b.slots[keyslot.Of(name)])
}

// Open returns the store of one twin design ([strategies.Backend]). A
// design whose name holds a brace is refused: its keys' prefix would be a
// hash tag, every key in one slot.
func (b *Backend) Open(ctx context.Context, design string, paced bool, fail func(error)) (strategies.RealStore, error) {
	if strings.ContainsAny(design, "{}") {
		return nil, fmt.Errorf("redis store: design %q: a name with a brace would make its keys' prefix a hash tag", design)
	}
	return newStore(ctx, b, design, paced && b.cfg.Pace != PaceMax, fail), nil
}

// Close closes the connections.
func (b *Backend) Close() error {
	b.mu.Lock()
	f := b.fallible
	b.mu.Unlock()
	if f != nil && f != b.client {
		f.Close()
	}
	return b.client.Close()
}

var _ strategies.Backend = (*Backend)(nil)
