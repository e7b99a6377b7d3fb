package redisshare_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
	"github.com/politecrawler/polite/redisshare"
	"github.com/redis/go-redis/v9"
)

// Processes for the tests that claim the rules hold across processes: the
// test binary again, as a farm (TestFarmChild) or as a fetcher
// (TestFetcherChild), told its part by the environment. The farm serves
// every host through one listener and keeps the audit over all the
// fetchers; a fetcher prints each Result as a JSON line.

const (
	roleEnv    = "REDISSHARE_TEST_ROLE"
	hostsEnv   = "REDISSHARE_TEST_HOSTS"
	redisEnv   = "REDISSHARE_TEST_REDIS"
	farmEnv    = "REDISSHARE_TEST_FARM"
	urlsEnv    = "REDISSHARE_TEST_URLS"
	timeoutEnv = "REDISSHARE_TEST_TIMEOUT"
	latencyEnv = "REDISSHARE_TEST_LATENCY"
	spreadEnv  = "REDISSHARE_TEST_SPREAD"  // host i waits the latency and i times this
	aloneEnv   = "REDISSHARE_TEST_ALONE"   // set: no Config.Shared, the process alone
	clusterEnv = "REDISSHARE_TEST_CLUSTER" // set: redisEnv is a Cluster's masters, comma-separated
	holdEnv    = "REDISSHARE_TEST_HOLD"    // Options.Hold
	nameEnv    = "REDISSHARE_TEST_NAME"    // the process's Config.Contact: its From header, kept by the farm
)

// Paths every farm host scripts besides its default pages.
const (
	hangPath   = "/hang"      // never finishes: a request held in flight
	refusePath = "/forbidden" // 403: the host stops (R3.1)
	busyPath   = "/busy"      // 503, Retry-After 2 h: beyond the horizon, a park (R2.4)
)

// farmHello is the farm child's first line: where its hosts are.
type farmHello struct {
	Port  int
	Names []string
	Addrs []netip.Addr
}

// TestFarmChild is the farm process. After its hello it answers each
// line on its standard input: "visits", with the visits so far as JSON;
// "entered", once a request to hangPath has begun, with "entered"; "seen
// N", once N requests have begun, with N; "ended N", once N requests
// have begun and none is in flight, with N.
func TestFarmChild(t *testing.T) {
	if os.Getenv(roleEnv) != "farm" {
		t.Skip("the farm process of the tests across processes")
	}
	fail := func(err error) { fmt.Fprintln(os.Stderr, "farm process:", err); os.Exit(1) }
	n, _ := strconv.Atoi(os.Getenv(hostsEnv))
	latency, _ := time.ParseDuration(os.Getenv(latencyEnv))
	spread, _ := time.ParseDuration(os.Getenv(spreadEnv))
	fm := politetest.New(nil)
	defer fm.Close()
	if err := fm.ShareOneListener(); err != nil {
		fail(err)
	}
	entered := make(chan string, 64)
	var hello farmHello
	for i := range n {
		s, err := fm.AddSite(politetest.Site{Name: fmt.Sprintf("h%04d.test", i), Latency: latency + time.Duration(i)*spread, Pages: map[string]politetest.Page{
			hangPath:   {Hang: true, Entered: entered},
			refusePath: {Status: 403},
			busyPath:   {Status: 503, Header: http.Header{"Retry-After": {"7200"}}},
		}})
		if err != nil {
			fail(err)
		}
		hello.Names, hello.Addrs, hello.Port = append(hello.Names, s.Name), append(hello.Addrs, s.Addr), fm.Port(s.Addr)
	}
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(hello); err != nil {
		fail(err)
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "visits":
			vs := fm.Audit().Visits()
			for i := range vs {
				// Only From: which fetcher process sent the request.
				vs[i].Header = http.Header{"From": vs[i].Header["From"]}
			}
			if err := out.Encode(vs); err != nil {
				fail(err)
			}
		case "entered":
			<-entered
			out.Encode("entered")
		default:
			var n int
			var ended bool
			if _, err := fmt.Sscanf(in.Text(), "seen %d", &n); err != nil {
				if _, err := fmt.Sscanf(in.Text(), "ended %d", &n); err != nil {
					fail(fmt.Errorf("unknown command %q", in.Text()))
				}
				ended = true
			}
			for count(fm.Audit().Visits(), ended) < n {
				time.Sleep(5 * time.Millisecond) // an event, not a rule: the run's progress
			}
			out.Encode(n)
		}
	}
}

// count is how many visits began, or with ended, how many began and
// ended with nothing in flight after them.
func count(vs []politetest.Visit, ended bool) int {
	if !ended {
		return len(vs)
	}
	n := 0
	for _, v := range vs {
		if v.End.IsZero() {
			return 0
		}
		n++
	}
	return n
}

// farmChild is the parent's handle on the farm process.
type farmChild struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *json.Decoder
	hello farmHello
}

// startFarm starts a farm process of hosts sites, h0000.test on, each
// waiting latency before it answers; env is more of its environment.
func startFarm(t testing.TB, hosts int, latency time.Duration, env ...string) *farmChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFarmChild$")
	cmd.Env = append(os.Environ(), roleEnv+"=farm", hostsEnv+"="+strconv.Itoa(hosts), latencyEnv+"="+latency.String())
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fc := &farmChild{cmd: cmd, in: in, out: json.NewDecoder(stdout)}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	if err := fc.out.Decode(&fc.hello); err != nil {
		t.Fatalf("farm process: %v", err)
	}
	return fc
}

// url is a URL of the i-th host.
func (fc *farmChild) url(i int, path string) string {
	return fmt.Sprintf("http://%s:%d%s", fc.hello.Names[i], fc.hello.Port, path)
}

// visits are the requests the farm saw, over every fetcher.
func (fc *farmChild) visits(t testing.TB) []politetest.Visit {
	t.Helper()
	var vs []politetest.Visit
	if _, err := io.WriteString(fc.in, "visits\n"); err != nil {
		t.Fatal(err)
	}
	if err := fc.out.Decode(&vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

// awaitEntered returns once a request to hangPath is in the farm's handler.
func (fc *farmChild) awaitEntered(t *testing.T) {
	t.Helper()
	io.WriteString(fc.in, "entered\n")
	var s string
	if err := fc.out.Decode(&s); err != nil {
		t.Fatal(err)
	}
}

// awaitEnded returns once the farm has seen n requests, and none is in
// flight.
func (fc *farmChild) awaitEnded(t *testing.T, n int) {
	t.Helper()
	fmt.Fprintf(fc.in, "ended %d\n", n)
	var got int
	if err := fc.out.Decode(&got); err != nil {
		t.Fatal(err)
	}
}

// awaitSeen returns once the farm has seen n requests begin.
func (fc *farmChild) awaitSeen(t *testing.T, n int) {
	t.Helper()
	fmt.Fprintf(fc.in, "seen %d\n", n)
	var got int
	if err := fc.out.Decode(&got); err != nil {
		t.Fatal(err)
	}
}

// outcome is one Result as a fetcher process prints it; the last line
// is its Final count of Redis calls and requests instead.
type outcome struct {
	URL    string
	Status int
	Err    string
	Parked bool // errors.AsType[*polite.ParkedError](Err)

	Final    bool
	Calls    int64
	Requests int
	Withheld int // Takes not granted: the address was another's, or resting
	Commands int64
	// SharedErrors counts its calls to Redis that failed (Stats).
	SharedErrors int64
	// Logs counts the lines it logged, by message.
	Logs map[string]int
}

// logged is how many lines the process logged whose message begins with
// prefix.
func (o outcome) logged(prefix string) int {
	n := 0
	for m, c := range o.Logs {
		if strings.HasPrefix(m, prefix) {
			n += c
		}
	}
	return n
}

// logCounter is a slog.Handler that counts each message, by its text, and
// hands the record on.
type logCounter struct {
	next slog.Handler
	mu   *sync.Mutex
	n    map[string]int
}

func newLogCounter(next slog.Handler) *logCounter {
	return &logCounter{next: next, mu: &sync.Mutex{}, n: map[string]int{}}
}

func (c *logCounter) Enabled(ctx context.Context, l slog.Level) bool { return c.next.Enabled(ctx, l) }
func (c *logCounter) Handle(ctx context.Context, r slog.Record) error {
	c.mu.Lock()
	c.n[r.Message]++
	c.mu.Unlock()
	return c.next.Handle(ctx, r)
}
func (c *logCounter) WithAttrs(as []slog.Attr) slog.Handler {
	return &logCounter{next: c.next.WithAttrs(as), mu: c.mu, n: c.n}
}
func (c *logCounter) WithGroup(g string) slog.Handler {
	return &logCounter{next: c.next.WithGroup(g), mu: c.mu, n: c.n}
}

// counts is a copy of the counts so far.
func (c *logCounter) counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// TestFetcherChild is a fetcher process: a Fetcher whose Config.Shared is
// on the Redis of redisEnv, resolving the farm's names, given the URLs of
// the file urlsEnv names; it prints each Result as JSON.
func TestFetcherChild(t *testing.T) {
	if os.Getenv(roleEnv) != "fetcher" {
		t.Skip("a fetcher process of the tests across processes")
	}
	fail := func(err error) { fmt.Fprintln(os.Stderr, "fetcher process:", err); os.Exit(1) }
	var hello farmHello
	if err := json.Unmarshal([]byte(os.Getenv(farmEnv)), &hello); err != nil {
		fail(err)
	}
	names := make(map[string]netip.Addr, len(hello.Names))
	for i, n := range hello.Names {
		names[n] = hello.Addrs[i]
	}
	raw, err := os.ReadFile(os.Getenv(urlsEnv))
	if err != nil {
		fail(err)
	}
	timeout, _ := time.ParseDuration(os.Getenv(timeoutEnv))
	redis.SetLogger(quiet{}) // the outages the tests make are the point
	var rdb redis.UniversalClient = redis.NewClient(&redis.Options{Addr: os.Getenv(redisEnv)})
	if os.Getenv(clusterEnv) != "" {
		rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(os.Getenv(redisEnv), ",")})
	}
	hold, _ := time.ParseDuration(os.Getenv(holdEnv))
	var sh *redisshare.Shared
	logs := newLogCounter(slog.Default().Handler())
	cfg := polite.Config{Resolver: politetest.NewResolver(names), Logger: slog.New(logs),
		AllowPrivateNetworks: true, Timeout: timeout, Contact: os.Getenv(nameEnv)}
	if os.Getenv(aloneEnv) == "" {
		if sh, err = redisshare.New(rdb, redisshare.Options{Hold: hold, Logger: cfg.Logger}); err != nil {
			fail(err)
		}
		cfg.Shared = sh
	}
	f, err := polite.New(cfg)
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	for _, u := range strings.Fields(string(raw)) {
		if err := f.Add(ctx, u); err != nil {
			fail(err)
		}
	}
	out := json.NewEncoder(os.Stdout)
	for r, err := range f.Results(ctx) {
		if err != nil {
			fail(err)
		}
		o := outcome{URL: r.URL, Status: r.Status}
		if r.Err != nil {
			_, o.Parked = errors.AsType[*polite.ParkedError](r.Err)
			o.Err = r.Err.Error()
		}
		out.Encode(o)
	}
	st, err := f.Stats(ctx)
	if err != nil {
		fail(err)
	}
	f.Close()
	final := outcome{Final: true, Requests: st.Requests, Withheld: st.Withheld, SharedErrors: st.SharedErrors}
	if sh != nil {
		sh.Close()
		final.Calls, final.Commands = sh.Calls(), sh.Commands()
	}
	final.Logs = logs.counts()
	out.Encode(final)
}

// fetcherChild is the parent's handle on a fetcher process.
type fetcherChild struct {
	cmd   *exec.Cmd
	out   *json.Decoder
	done  chan []outcome
	final outcome // its last line, once wait returned
}

// startFetcher starts a fetcher process given urls, with Config.Timeout
// timeout (zero: the default).
func startFetcher(t testing.TB, redisAddr string, fc *farmChild, urls []string, timeout time.Duration, env ...string) *fetcherChild {
	t.Helper()
	file := filepath.Join(t.TempDir(), "urls")
	if err := os.WriteFile(file, []byte(strings.Join(urls, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	hello, _ := json.Marshal(fc.hello)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFetcherChild$")
	cmd.Env = append(os.Environ(), roleEnv+"=fetcher", redisEnv+"="+redisAddr, farmEnv+"="+string(hello),
		urlsEnv+"="+file, timeoutEnv+"="+timeout.String())
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &fetcherChild{cmd: cmd, out: json.NewDecoder(stdout), done: make(chan []outcome, 1)}
	go func() {
		var os []outcome
		for {
			var o outcome
			if err := p.out.Decode(&o); err != nil {
				break
			}
			if o.Final {
				p.final = o
				continue
			}
			os = append(os, o)
		}
		p.done <- os
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return p
}

// wait returns the process's outcomes once it has ended, failing the test
// if it did not end well.
func (p *fetcherChild) wait(t testing.TB) []outcome {
	t.Helper()
	os := <-p.done
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("fetcher process: %v", err)
	}
	return os
}

// quiet is a go-redis logger that says nothing.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}
