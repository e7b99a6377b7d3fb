package redisshare_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/redistest"
	"github.com/politecrawler/polite/politetest"
	"github.com/politecrawler/polite/redisshare"
	"github.com/redis/go-redis/v9"
)

// On a real Redis Cluster of three masters (no replicas), started by the
// test: three fetcher processes keep the rules over the farm as on one
// server. Then one master is killed mid-run and started again 10 s
// later with its data: the addresses in its slots are sent nothing
// meanwhile, the others go on, and every URL is answered in each
// process, with no overlap and no short gap over the whole run.
func TestClusterOfThreeMasters(t *testing.T) {
	const hosts, procs, pages = 30, 3, 6
	cl := redistest.StartCluster(t, 3)
	// A client of one server, given a node, is told to use a Cluster's.
	node := redis.NewClient(&redis.Options{Addr: cl.Masters[1].Addr()})
	if _, err := redisshare.New(node, redisshare.Options{}); !errors.Is(err, redisshare.ErrClusterNode) {
		t.Errorf("New with a client of one Cluster node: %v, want ErrClusterNode", err)
	}
	node.Close()
	fc := startFarm(t, hosts, 100*time.Millisecond)
	var urls []string
	for p := range pages {
		urls = append(urls, urlsOf(fc, hosts, fmt.Sprintf("/page%d", p))...)
	}
	addrs := strings.Join(cl.Addrs(), ",")
	var ps []*fetcherChild
	for range procs {
		ps = append(ps, startFetcher(t, addrs, fc, urls, faultTimeout, clusterEnv+"=1"))
	}
	fc.awaitSeen(t, hosts*4)
	dead := cl.Masters[0]
	vs, down, up := outage(t, fc, ps, urls, dead.Crash, dead.Restart, 10*time.Second)

	// Which farm addresses the killed master answers for.
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs()})
	defer rdb.Close()
	ctx := context.Background()
	cl.AwaitOK(t, dead)
	onDead := map[netip.Addr]bool{}
	for _, a := range fc.hello.Addrs {
		m, err := rdb.MasterForKey(ctx, "polite:a:{"+a.String()+"}")
		if err != nil {
			t.Fatal(err)
		}
		onDead[a] = m.Options().Addr == dead.Addr()
	}
	// robots.txt once a host (R5.3), but for a host whose copy the killed
	// master held: a process that needed it meanwhile could not load it,
	// and asked the site again, through the address's rests, at most
	// once a process.
	asked := map[string]int{}
	for _, v := range vs {
		if v.Path == politetest.RobotsPath {
			asked[v.Host]++
		}
	}
	for i, name := range fc.hello.Names {
		m, err := rdb.MasterForKey(ctx, "polite:r:{"+strings.TrimSuffix(fc.url(i, "/"), "/")+"}")
		if err != nil {
			t.Fatal(err)
		}
		most := 1
		if m.Options().Addr == dead.Addr() {
			most = procs
		}
		if n := asked[name]; n < 1 || n > most {
			t.Errorf("%s: robots.txt asked %d times, want once (%d at most with its copy on the killed master)", name, n, most)
		}
	}
	// A request granted as the master died may begin just after.
	quiet := down.Add(2 * time.Second)
	var deadSlots, others, deadAddrs int
	for _, on := range onDead {
		if on {
			deadAddrs++
		}
	}
	for _, v := range vs {
		if !v.Start.After(quiet) || !v.Start.Before(up) {
			continue
		}
		if onDead[v.Addr] {
			deadSlots++
			t.Errorf("%s %s (on the killed master's slots) began %v into its outage", v.Host, v.Path, v.Start.Sub(down))
		} else {
			others++
		}
	}
	if deadAddrs == 0 || deadAddrs == hosts {
		t.Fatalf("%d of %d addresses on the killed master: want some, not all", deadAddrs, hosts)
	}
	if others == 0 {
		t.Errorf("no request to the other masters' addresses during the outage: they must go on")
	}
	t.Logf("outage: %d requests to the other masters' %d addresses, %d to the killed one's %d",
		others, hosts-deadAddrs, deadSlots, deadAddrs)
	// One master down, the others answering, is one change of state of
	// each process, and its end another: each logged once (R12.2).
	const unreachable, again = "polite: coordinator unreachable", "polite: coordinator answers again"
	var downs int
	for i, p := range ps {
		d, a := p.final.logged(unreachable), p.final.logged(again)
		if d > 1 || a != d {
			t.Errorf("process %d logged %q %d times and %q %d times for one outage, want once each", i, unreachable, d, again, a)
		}
		downs += d
		t.Logf("process %d logged %q %d times, %q %d times", i, unreachable, d, again, a)
	}
	if downs == 0 {
		t.Errorf("no process logged %q during the outage", unreachable)
	}
}
