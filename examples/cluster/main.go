// Command cluster shows polite's rules kept by several processes at once:
// it starts a Redis server (or uses -redis ADDR), a farm of loopback
// hosts in a process of its own, and three fetcher processes given the
// same URLs, each a polite.Fetcher whose Config.Shared is a
// redisshare.Shared on that Redis. Then it prints what the hosts saw:
// over the three processes, one request at a time per address, the 3 s
// rest between any two, and each robots.txt asked once; and what it cost
// in calls to Redis: each process owns an address while it has work
// there, so the calls are a few an address, not one a request.
//
//	go run ./examples/cluster
//	go run ./examples/cluster -redis 127.0.0.1:6379 -hosts 50 -pages 10
//
// It runs redis-server from PATH (Debian: apt-get install redis-server)
// in a temp dir unless -redis is given, needs no internet, and takes
// about 15 s: the rests are real, kept by Redis's clock.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
	"github.com/politecrawler/polite/redisshare"
	"github.com/redis/go-redis/v9"
)

// roleEnv tells a process started by the cluster what it is: "farm" or
// "fetcher"; unset, it is the cluster itself.
const roleEnv = "POLITE_CLUSTER_ROLE"

func main() {
	if role := os.Getenv(roleEnv); role != "" {
		if err := child(role, os.Args[1:]); err != nil {
			fmt.Fprintf(os.Stderr, "cluster %s: %v\n", role, err)
			os.Exit(1)
		}
		return
	}
	redisAddr := flag.String("redis", "", "the Redis server's host:port; empty: start redis-server for the run")
	hosts := flag.Int("hosts", 20, "how many farm hosts")
	fetchers := flag.Int("fetchers", 3, "how many fetcher processes")
	pages := flag.Int("pages", 1, "how many pages of each host every fetcher is given")
	flag.Parse()
	if err := run(os.Stdout, *redisAddr, *hosts, *fetchers, *pages); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

// child is a process the cluster started: the farm, or a fetcher.
func child(role string, args []string) error {
	fs := flag.NewFlagSet(role, flag.ContinueOnError)
	redisAddr := fs.String("redis", "", "")
	hosts := fs.Int("hosts", 0, "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch role {
	case "farm":
		return serveFarm(os.Stdin, os.Stdout, *hosts)
	case "fetcher":
		return fetch(*redisAddr, os.Stdin, os.Stdout)
	}
	return fmt.Errorf("unknown role %q", role)
}

// hello is the farm's first line: its hosts' names, addresses and port.
type hello struct {
	Port  int
	Names []string
	Addrs []netip.Addr
}

// run is the cluster: Redis, the farm, the fetchers, and the audit.
func run(w io.Writer, redisAddr string, hosts, fetchers, pages int) error {
	if redisAddr == "" {
		addr, stop, err := startRedis()
		if err != nil {
			return err
		}
		defer stop()
		redisAddr = addr
	}
	farm := exec.Command(os.Args[0], "-hosts", strconv.Itoa(hosts))
	farm.Env = append(os.Environ(), roleEnv+"=farm")
	farm.Stderr = os.Stderr
	farmIn, _ := farm.StdinPipe()
	farmOut, _ := farm.StdoutPipe()
	if err := farm.Start(); err != nil {
		return err
	}
	defer farm.Wait()
	defer farmIn.Close()
	dec := json.NewDecoder(farmOut)
	var h hello
	if err := dec.Decode(&h); err != nil {
		return fmt.Errorf("farm: %w", err)
	}
	var urls []string
	for p := range pages {
		for _, name := range h.Names {
			urls = append(urls, fmt.Sprintf("http://%s:%d/page%d", name, h.Port, p))
		}
	}
	fmt.Fprintf(w, "redis %s; %d hosts; %d fetcher processes, each given the same %d URLs\n", redisAddr, hosts, fetchers, len(urls))
	start := time.Now()
	var procs []*exec.Cmd
	outs := make([]bytes.Buffer, fetchers) // each its own: the processes end in any order
	for i := range fetchers {
		p := exec.Command(os.Args[0], "-redis", redisAddr)
		p.Env = append(os.Environ(), roleEnv+"=fetcher")
		p.Stderr = os.Stderr
		in, _ := p.StdinPipe()
		p.Stdout = &outs[i]
		if err := p.Start(); err != nil {
			return err
		}
		procs = append(procs, p)
		// The farm's hosts, then the URLs, one a line.
		json.NewEncoder(in).Encode(h)
		io.WriteString(in, strings.Join(urls, "\n")+"\n")
		in.Close()
	}
	var errs []error
	var calls, commands int64
	for i, p := range procs {
		errs = append(errs, p.Wait())
		// Its last line is its count of calls to Redis, for the audit.
		report, last, _ := strings.Cut(outs[i].String(), costLine)
		var c, n int64
		fmt.Sscan(last, &c, &n)
		calls, commands = calls+c, commands+n
		io.WriteString(w, report)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("fetcher: %w", err)
	}
	io.WriteString(farmIn, "visits\n")
	var visits []politetest.Visit
	if err := dec.Decode(&visits); err != nil {
		return fmt.Errorf("farm: %w", err)
	}
	audit(w, visits, time.Since(start))
	fmt.Fprintf(w, "  %d calls to Redis (round trips), %d commands: %.3f calls and %.3f commands a request\n",
		calls, commands, float64(calls)/float64(len(visits)), float64(commands)/float64(len(visits)))
	return nil
}

// costLine begins a fetcher's last line: its calls to Redis and the
// commands they carried.
const costLine = "cost "

// audit prints what the hosts saw, over every fetcher process.
func audit(w io.Writer, visits []politetest.Visit, took time.Duration) {
	rep := politetest.ReportOn(visits, politetest.AtLeast(polite.MinRest))
	robots := map[string]int{}
	for _, v := range visits {
		if v.Path == politetest.RobotsPath {
			robots[v.Host]++
		}
	}
	once := 0
	for _, n := range robots {
		if n == 1 {
			once++
		}
	}
	least := time.Duration(-1)
	for _, g := range rep.MinGap {
		if least < 0 || g < least {
			least = g
		}
	}
	fmt.Fprintf(w, "\nthe farm saw, over every process, in %.1f s:\n", took.Seconds())
	fmt.Fprintf(w, "  %d requests to %d addresses\n", rep.Requests, rep.Addresses)
	fmt.Fprintf(w, "  %d overlaps (two requests at once to one address)\n", rep.Overlaps)
	fmt.Fprintf(w, "  %d gaps shorter than %v; the shortest gap %v\n", len(rep.ShortGaps), polite.MinRest, least.Round(time.Millisecond))
	fmt.Fprintf(w, "  robots.txt asked once at %d of %d hosts\n", once, len(robots))
}

// startRedis runs redis-server on a free loopback port in a temp dir.
func startRedis() (addr string, stop func(), err error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", nil, fmt.Errorf("%w (Debian: apt-get install redis-server, or give -redis ADDR)", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir, err := os.MkdirTemp("", "polite-cluster-redis-")
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--logfile", "")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	stop = func() { cmd.Process.Kill(); cmd.Wait(); os.RemoveAll(dir) }
	// It says when it accepts connections.
	r := bufio.NewReader(out)
	for {
		line, err := r.ReadString('\n')
		if strings.Contains(line, "Ready to accept connections") {
			go io.Copy(io.Discard, r)
			return "127.0.0.1:" + strconv.Itoa(port), stop, nil
		}
		if err != nil {
			stop()
			return "", nil, fmt.Errorf("redis-server ended before it was ready: %v", err)
		}
	}
}

// serveFarm is the farm process: it serves hosts sites and prints its
// hello, then its visits so far for each line it reads.
func serveFarm(in io.Reader, out io.Writer, hosts int) error {
	farm := politetest.New(nil)
	defer farm.Close()
	if err := farm.ShareOneListener(); err != nil {
		return err
	}
	var h hello
	for i := range hosts {
		s, err := farm.AddSite(politetest.Site{Name: fmt.Sprintf("site%02d.test", i)})
		if err != nil {
			return err
		}
		h.Names, h.Addrs, h.Port = append(h.Names, s.Name), append(h.Addrs, s.Addr), farm.Port(s.Addr)
	}
	enc := json.NewEncoder(out)
	if err := enc.Encode(h); err != nil {
		return err
	}
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		visits := farm.Audit().Visits()
		for i := range visits {
			visits[i].Header = nil
		}
		if err := enc.Encode(visits); err != nil {
			return err
		}
	}
	return nil
}

// fetch is a fetcher process: the farm's hosts and the URLs come on its
// input; it fetches them with a Fetcher sharing the rules on Redis and
// prints how it went.
func fetch(redisAddr string, in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(in)
	var h hello
	if err := dec.Decode(&h); err != nil {
		return err
	}
	names := make(map[string]netip.Addr)
	for i, n := range h.Names {
		names[n] = h.Addrs[i]
	}
	rest, _ := io.ReadAll(dec.Buffered())
	more, _ := io.ReadAll(in)
	urls := strings.Fields(string(rest) + string(more))

	rdb := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer rdb.Close()
	// Keys of their own, apart from a real crawl's on the same server.
	shared, err := redisshare.New(rdb, redisshare.Options{Prefix: "polite-cluster:"})
	if err != nil {
		return err
	}
	defer shared.Close()
	f, err := polite.New(polite.Config{
		Shared:               shared,                        // the rules, kept with the other processes
		Resolver:             politetest.NewResolver(names), // the farm's names, not DNS
		AllowPrivateNetworks: true,                          // the farm is on loopback
	})
	if err != nil {
		return err
	}
	defer f.Close()
	ctx := context.Background()
	for _, u := range urls {
		if err := f.Add(ctx, u); err != nil {
			return err
		}
	}
	ok, failed := 0, 0
	for r, err := range f.Results(ctx) {
		if err != nil {
			return err
		}
		if r.Err != nil {
			failed++
			continue
		}
		ok++
	}
	st, err := f.Stats(ctx)
	if err != nil {
		return err
	}
	f.Close()
	shared.Close() // gives up what it owns: counted too
	fmt.Fprintf(out, "fetcher %d: %d pages, %d failed; %d requests of its own, %d withheld (another process had the address, or it rested)\n",
		os.Getpid(), ok, failed, st.Requests, st.Withheld)
	fmt.Fprintf(out, "%s%d %d\n", costLine, shared.Calls(), shared.Commands())
	return nil
}
