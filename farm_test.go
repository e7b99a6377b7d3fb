package polite_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/clock"
	"github.com/politecrawler/polite/politetest"
)

// farmRig is a loopback farm and a Fetcher on one fake clock, used as a
// user would use them: through the public API only. Time moves when a
// farm handler works for a while, or when the fetcher has nothing to do
// but wait for a rest to end.
type farmRig struct {
	t    *testing.T
	clk  *clock.Fake
	farm *politetest.Farm
	f    *polite.Fetcher
}

// quiet is a logger that drops everything, for tests that do not read logs.
var quiet = slog.New(slog.DiscardHandler)

// newFarmRig makes the farm; no goroutine of a Fetcher may outlive the
// test's cleanups (checkNoLeaks).
func newFarmRig(t *testing.T) *farmRig {
	t.Helper()
	checkNoLeaks(t)
	clk := clock.NewFake()
	fm := politetest.New(clk)
	t.Cleanup(func() { fm.Close() })
	return &farmRig{t: t, clk: clk, farm: fm}
}

// site adds a farm site and returns its name.
func (r *farmRig) site(s politetest.Site) string {
	r.t.Helper()
	if _, err := r.farm.AddSite(s); err != nil {
		r.t.Fatal(err)
	}
	return s.Name
}

// startSeams are the test seams of export_test.go a start may use.
type startSeams struct {
	jitter        func() float64
	lookupTimeout time.Duration
	held          func()
	guarded       bool
	idleConnLife  time.Duration
}

// count is how many of the seams that pick a constructor are set.
func (s *startSeams) count() int {
	n := 0
	for _, set := range []bool{s.lookupTimeout > 0, s.held != nil, s.idleConnLife > 0} {
		if set {
			n++
		}
	}
	return n
}

// startOption sets one of the seams of start.
type startOption func(*startSeams)

// jitter fixes the backoff's jitter at x, in [0, 1): 0.5 is its middle.
func jitter(x float64) startOption {
	return func(s *startSeams) { s.jitter = func() float64 { return x } }
}

// lookupTimeout bounds each host lookup by d of real time.
func lookupTimeout(d time.Duration) startOption {
	return func(s *startSeams) { s.lookupTimeout = d }
}

// onHeld is called each time Config.MaxUnread unread Results hold
// requests back.
func onHeld(held func()) startOption {
	return func(s *startSeams) { s.held = held }
}

// idleConnLife has the fetcher count a kept connection closed by its
// transport after d of real time.
func idleConnLife(d time.Duration) startOption {
	return func(s *startSeams) { s.idleConnLife = d }
}

// guarded leaves Config.AllowPrivateNetworks as the test set it (R10.1).
func guarded(s *startSeams) { s.guarded = true }

// start makes the Fetcher; cfg gets the farm's resolver, loopback access
// (unless guarded) and a quiet logger unless it sets its own.
func (r *farmRig) start(cfg polite.Config, opts ...startOption) *polite.Fetcher {
	r.t.Helper()
	var s startSeams
	for _, o := range opts {
		o(&s)
	}
	if cfg.Resolver == nil {
		cfg.Resolver = r.farm.Resolver()
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	if !s.guarded {
		cfg.AllowPrivateNetworks = true
	}
	var f *polite.Fetcher
	var err error
	switch {
	case s.count() > 1:
		r.t.Fatal("no seam takes more than one of a lookup timeout, onHeld and an idle connection's life")
	case s.idleConnLife > 0:
		f, err = polite.NewWithIdleConnLife(cfg, r.clk, s.jitter, s.idleConnLife)
	case s.lookupTimeout > 0:
		f, err = polite.NewWithLookupTimeout(cfg, r.clk, s.jitter, s.lookupTimeout)
	case s.held != nil:
		f, err = polite.NewWithOnHeld(cfg, r.clk, s.jitter, s.held)
	default:
		f, err = polite.NewOnFakeClock(cfg, r.clk, s.jitter)
	}
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { f.Close() })
	r.f = f
	return f
}

// add Adds every URL, failing the test on an error.
func (r *farmRig) add(urls ...string) {
	r.t.Helper()
	for _, u := range urls {
		if err := r.f.Add(context.Background(), u); err != nil {
			r.t.Fatalf("Add(%s): %v", u, err)
		}
	}
}

// results reads n Results, by URL. A hang is go test's -timeout to catch:
// no test here has a wall-clock limit of its own.
func (r *farmRig) results(n int) map[string]*polite.Result {
	r.t.Helper()
	ctx := context.Background()
	out := make(map[string]*polite.Result, n)
	for range n {
		res, err := r.f.Next(ctx)
		if err != nil {
			r.t.Fatalf("Next after %d of %d results: %v", len(out), n, err)
		}
		if _, dup := out[res.URL]; dup {
			r.t.Fatalf("two Results for %s", res.URL)
		}
		out[res.URL] = res
	}
	return out
}

// url is the farm URL of a site's path.
func (r *farmRig) url(name, path string) string { return r.farm.URL(name, path) }

// pages returns n URLs of one farm host.
func (r *farmRig) pages(host string, n int) []string {
	urls := make([]string, n)
	for i := range urls {
		urls[i] = r.farm.URL(host, fmt.Sprintf("/p%d", i))
	}
	return urls
}

// drain reads every remaining Result until io.EOF (after Close).
func drain(t *testing.T, f *polite.Fetcher) []*polite.Result {
	t.Helper()
	ctx := context.Background()
	var out []*polite.Result
	for {
		res, err := f.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, res)
	}
}

// gateResolver holds each lookup of a name (every name when hold is
// empty) until open is closed or the lookup's context ends. A lookup held
// is a job in flight, so the fetcher is not idle and a fake clock moves
// only as the farm or the test moves it.
type gateResolver struct {
	polite.Resolver
	hold string
	open chan struct{}
}

func (g *gateResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if g.hold == "" || host == g.hold {
		select {
		case <-g.open:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Resolver.LookupNetIP(ctx, network, host)
}

// pageVisits leaves out the robots.txt requests.
func pageVisits(vs []politetest.Visit) []politetest.Visit {
	var out []politetest.Visit
	for _, v := range vs {
		if v.Path != politetest.RobotsPath {
			out = append(out, v)
		}
	}
	return out
}

// gaps returns the server-side gaps between consecutive visits of a host.
func gaps(vs []politetest.Visit) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(vs); i++ {
		out = append(out, vs[i].Start.Sub(vs[i-1].End))
	}
	return out
}

// wantGaps checks that the farm saw n visits, each exactly want after the
// previous one ended.
func wantGaps(t *testing.T, host string, vs []politetest.Visit, n int, want time.Duration) {
	t.Helper()
	if len(vs) != n {
		t.Fatalf("%s: farm saw %d requests, want %d", host, len(vs), n)
	}
	for i, g := range gaps(vs) {
		if g != want {
			t.Errorf("%s: gap %d = %v, want exactly %v", host, i, g, want)
		}
	}
}

// restRule is the audit's view of R2.1–R2.2: after a visit of length d the
// address must rest at least max(floor, 5d capped at 30 s). The server sees
// a visit no longer than the client does, so this bound is safe.
func restRule(floor time.Duration) func(politetest.Visit) time.Duration {
	return func(prev politetest.Visit) time.Duration {
		return max(floor, min(polite.MinDurationFactor*prev.End.Sub(prev.Start), polite.DurationRestCap))
	}
}

// leakChecked holds the tests whose leak check is registered: one check a
// test, made after all of its cleanups, so a test may make several rigs.
var leakChecked sync.Map

// checkNoLeaks fails the test if a goroutine of the fetcher or of its HTTP
// transport outlives the test's cleanups (Close must end them all).
func checkNoLeaks(t *testing.T) {
	if _, registered := leakChecked.LoadOrStore(t, true); registered {
		return
	}
	t.Cleanup(func() {
		defer leakChecked.Delete(t)
		deadline := time.Now().Add(5 * time.Second)
		for {
			leaked := fetcherGoroutines()
			if len(leaked) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines left after Close:\n%s", len(leaked), strings.Join(leaked, "\n\n"))
				return
			}
			runtime.Gosched()
			time.Sleep(10 * time.Millisecond) // goroutine exit is asynchronous; this waits for no rule
		}
	})
}

// fetcherGoroutines are the stacks of the running goroutines that belong
// to a Fetcher, its scheduler or its HTTP connections.
func fetcherGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var leaked []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "polite.(*Fetcher)") || strings.Contains(g, "schedule.(*Scheduler)") ||
			strings.Contains(g, "net/http.(*persistConn)") {
			leaked = append(leaked, g)
		}
	}
	return leaked
}

// logRecords captures the fetcher's slog records as decoded JSON.
type logRecords struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logRecords) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// records decodes every record written so far.
func (l *logRecords) records(t *testing.T) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(l.buf.Bytes()))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// verifierDir holds the pinned web-bot-auth verifier (npm ci there).
var verifierDir = filepath.Join("botauth", "testdata", "verifier")

// signedRequest is one request for the web-bot-auth verifier: the
// authority and path it was sent to, and its headers.
type signedRequest struct {
	Name      string            `json:"name"`
	Authority string            `json:"authority"`
	Path      string            `json:"path"`
	Headers   map[string]string `json:"headers"`
}

// webBotAuth runs Cloudflare's web-bot-auth verifier (npm, under node)
// on reqs, with the keys of the directory served at directory, and
// returns each check's error by name: "" when it verified. The checks
// are the directory's own (its media type, each key's thumbprint and
// proof) and one per request. Under CI a missing node or npm ci is a
// failure; elsewhere the test is skipped.
func webBotAuth(t *testing.T, directory string, reqs []signedRequest) map[string]string {
	t.Helper()
	unavailable := func(why string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("web-bot-auth verifier: %s", why)
		}
		t.Skipf("web-bot-auth verifier: %s", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("no node on PATH")
	}
	if _, err := os.Stat(filepath.Join(verifierDir, "node_modules", "web-bot-auth", "package.json")); err != nil {
		unavailable("not installed: run npm ci in " + verifierDir)
	}
	cases, err := json.Marshal(map[string]any{"directory": directory, "requests": reqs})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(file, cases, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, "verify.mjs", file)
	cmd.Dir = verifierDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node verify.mjs: %v\n%s", err, stderr.Bytes())
	}
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var line struct {
			Name  string `json:"name"`
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("verify.mjs said %q: %v", sc.Text(), err)
		}
		if !line.OK && line.Error == "" {
			line.Error = "rejected"
		}
		got[line.Name] = line.Error
	}
	if len(got) == 0 {
		t.Fatal(errors.New("verify.mjs checked nothing"), stderr.String())
	}
	return got
}

// isA reports whether err's tree holds an E.
func isA[E error](err error) bool {
	_, ok := errors.AsType[E](err)
	return ok
}
