// Package redistest starts real Redis servers on 127.0.0.1 for tests that
// need one: the Redis store of issue 13 runs the same designs on a
// redis-server or a three-master Redis Cluster, and its tests check it there.
//
// [Server] starts one server, [Cluster] three cluster-enabled masters
// made into a cluster and [ClusterOf] as many masters as a test asks (the
// simulated cluster's placement is checked on 3 and on 8); each returns once the servers answer (PING; for a
// cluster, cluster_state:ok on every node). A server is an [Instance]: its
// address, its PID and its directory (a t.TempDir with its log, redis.log).
// Servers run through tools/redis-loopback, which execs redis-server in
// the foreground, so the PID is the server's own; t.Cleanup stops each by
// that PID (SIGTERM, then SIGKILL after 5 s), never by name.
// [Instance.Kill] ends one mid-test, as a crash would. [ReplicatedCluster]
// starts three masters each with a replica of its own, with a 1 s
// cluster-node-timeout, for tests that kill a master
// ([ReplicaCluster.KillMaster]) and wait for its replica's promotion
// ([ReplicaCluster.WaitPromoted]).
//
// Each call picks free loopback ports (for a cluster node, its bus port,
// PORT+10000, too) and retries when another process takes a port first, so
// parallel tests each get their own servers. [RandomKey] draws key names
// for tests of slot placement. Call Server and Cluster from
// the test's own goroutine: they fail the test with t.Fatalf.
//
// Without redis-server on PATH the test fails with how to install it; it
// is never skipped, so CI cannot pass by not running the Redis tests.
package redistest
