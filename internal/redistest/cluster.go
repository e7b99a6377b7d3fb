package redistest

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Cluster is a Redis Cluster of masters without replicas, each a Server
// of its own on a free loopback port, made with redis-cli --cluster
// create (both from Debian's redis-server and redis-tools packages). A
// master that is down leaves its slots unanswered and the others serving
// (cluster-require-full-coverage no); Restart brings it back with its
// data and its place in the cluster.
type Cluster struct {
	Masters []*Server
}

// StartCluster starts n masters, joins them in one cluster, and returns
// once every master says the cluster is ok.
func StartCluster(tb testing.TB, n int) *Cluster {
	tb.Helper()
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		Start(tb) // fails in CI, skips elsewhere, with the install hint
		tb.Fatalf("redis-cli not found: %v", err)
	}
	c := &Cluster{}
	args := []string{"--cluster", "create"}
	for range n {
		m := Start(tb, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "2000", "--cluster-require-full-coverage", "no")
		c.Masters = append(c.Masters, m)
		args = append(args, m.Addr())
	}
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		tb.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, m := range c.Masters {
		c.AwaitOK(tb, m)
	}
	return c
}

// Addrs are the masters' host:port.
func (c *Cluster) Addrs() []string {
	var out []string
	for _, m := range c.Masters {
		out = append(out, m.Addr())
	}
	return out
}

// AwaitOK returns once m says cluster_state:ok: it knows every slot's
// master and each answers. (A loop on an event, the cluster's own
// gossip, not a rule's wait.)
func (c *Cluster) AwaitOK(tb testing.TB, m *Server) {
	tb.Helper()
	cli, _ := exec.LookPath("redis-cli")
	for {
		out, err := exec.Command(cli, "-p", strconv.Itoa(m.port), "cluster", "info").Output()
		if err == nil && strings.Contains(string(out), "cluster_state:ok") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Port is the server's port.
func (s *Server) Port() int { return s.port }
