package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// The live page: its state and event stream tested directly, then the
// page itself in Debian's chromium, drawing a real crawl of a farm as it
// goes.

func TestLiveListen(t *testing.T) {
	for _, addr := range []string{":0", "0"} {
		ln, err := listenLive(addr)
		if err != nil {
			t.Fatalf("listenLive(%q): %v", addr, err)
		}
		if ip := ln.Addr().(*net.TCPAddr).IP; !ip.Equal(net.IPv4(127, 0, 0, 1)) {
			t.Errorf("listenLive(%q) bound %v, want 127.0.0.1 (no host named: loopback only)", addr, ln.Addr())
		}
		ln.Close()
	}
	ln, err := listenLive("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, addr := range []string{"127.0.0.1:" + port, ":" + port, port} {
		_, err := listenLive(addr)
		want := "-serve 127.0.0.1:" + port + ": address already in use"
		if err == nil || err.Error() != want {
			t.Errorf("listenLive(%q) on a port in use: %v, want %q", addr, err, want)
		}
	}
	if _, err := listenLive("127.0.0.1:x:y"); err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "-serve ") {
		t.Errorf("a bad address: %v, want one line starting -serve", err)
	}
}

// liveSSE is one server-sent event as read back.
type liveSSE struct{ event, id, data string }

// liveNext reads the next event of a stream, skipping field-less blocks.
func liveNext(t *testing.T, sc *bufio.Scanner) liveSSE {
	t.Helper()
	var e liveSSE
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ": ")
		switch k {
		case "":
			if e.event != "" {
				return e
			}
		case "event":
			e.event = v
		case "id":
			e.id = v
		case "data":
			e.data = v
		}
	}
	t.Fatalf("the stream ended: %v", sc.Err())
	return e
}

// liveStream connects to srv's /events, resuming after lastID if set.
func liveStream(t *testing.T, ctx context.Context, srv *httptest.Server, lastID string) *bufio.Scanner {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("/events Content-Type %q", ct)
	}
	return bufio.NewScanner(resp.Body)
}

func liveRequestEvent(i int) polite.RequestEvent {
	return polite.RequestEvent{URL: fmt.Sprintf("http://a.test/page/%d", i), Addr: netip.MustParseAddr("127.20.0.1"),
		Status: 200, Started: time.UnixMilli(1_800_000_000_000).Add(time.Duration(i) * 3 * time.Second),
		Duration: 20 * time.Millisecond, Rest: polite.Rest{Wait: 3 * time.Second, Term: polite.RestFloor}}
}

func TestLiveStream(t *testing.T) {
	l := newLive("polite crawl of <a.test>")
	srv := httptest.NewServer(l)
	defer srv.Close()
	for i := range 3 {
		l.observe(liveRequestEvent(i))
	}
	l.logRefusal("http://closed.test/", errors.New("polite: refused by closed.test"))
	l.setStats(polite.Stats{Requests: 3, Stopped: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc := liveStream(t, ctx, srv, "")

	var hello liveHello
	if e := liveNext(t, sc); e.event != "hello" || json.Unmarshal([]byte(e.data), &hello) != nil || hello.Kept != liveKept ||
		hello.First != 1_800_000_000_000 {
		t.Fatalf("first event %+v, want a hello with the first request's start", e)
	}
	var last string
	for i := range 3 {
		e := liveNext(t, sc)
		var q liveRequest
		if e.event != "request" || json.Unmarshal([]byte(e.data), &q) != nil || q.Seq != i || q.Host != "a.test" ||
			q.Addr != "127.20.0.1" || q.Wait != 3000 || q.Term != "floor" || q.Dur != 20 {
			t.Fatalf("replayed event %d: %+v", i, e)
		}
		last = e.id
	}
	if e := liveNext(t, sc); e.event != "refusal" || !strings.Contains(e.data, `"host":"closed.test"`) {
		t.Fatalf("want the refusal, got %+v", e)
	}
	if e := liveNext(t, sc); e.event != "stats" || !strings.Contains(e.data, `"requests":3`) {
		t.Fatalf("want the stats, got %+v", e)
	}
	l.observe(liveRequestEvent(3)) // streamed, not only replayed
	if e := liveNext(t, sc); e.event != "request" || !strings.Contains(e.data, `"seq":3`) {
		t.Fatalf("want request 3 streamed, got %+v", e)
	}
	l.finish("4 pages")
	if e := liveNext(t, sc); e.event != "summary" || e.data != `{"summary":"4 pages"}` {
		t.Fatalf("want the summary, got %+v", e)
	}

	// A reconnect after request 2 resumes at request 3, not at the start.
	sc = liveStream(t, ctx, srv, last)
	liveNext(t, sc) // hello
	if e := liveNext(t, sc); e.event != "request" || !strings.Contains(e.data, `"seq":3`) {
		t.Fatalf("resumed after %s: %+v, want request 3", last, e)
	}

	resp, err := srv.Client().Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "polite crawl of &lt;a.test&gt;") || strings.Contains(string(page), " src=") {
		t.Errorf("the page: title not escaped, or a script from elsewhere:\n%.400s", page)
	}
	if resp, err := srv.Client().Get(srv.URL + "/favicon.ico"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("/favicon.ico: %v %v, want 404", resp.Status, err)
	}
}

// The page keeps the last liveKept requests; a client that connects
// later gets those.
func TestLiveKeepsTheLastRequests(t *testing.T) {
	l := newLive("a long crawl")
	srv := httptest.NewServer(l)
	defer srv.Close()
	const extra = 7
	for i := range liveKept + extra {
		l.observe(liveRequestEvent(i))
	}
	if len(l.reqs) != liveKept {
		t.Fatalf("%d requests kept, want %d", len(l.reqs), liveKept)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc := liveStream(t, ctx, srv, "")
	liveNext(t, sc) // hello
	for i := extra; i < liveKept+extra; i++ {
		var q liveRequest
		if e := liveNext(t, sc); e.event != "request" || json.Unmarshal([]byte(e.data), &q) != nil || q.Seq != i {
			t.Fatalf("replay: %+v, want request %d", e, i)
		}
	}
}

// needChromium skips where chromium is missing, and fails in CI, where
// .ci/run installs it.
func needChromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium not found (CI=true: .ci/run installs the chromium package): %v", err)
		}
		t.Skip("chromium not found (apt-get install -y chromium)")
	}
	return path
}

// liveBrowser starts headless chromium for the test's duration.
func liveBrowser(t *testing.T) context.Context {
	t.Helper()
	flags := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(needChromium(t)),
		chromedp.NoSandbox, // as root in a container the sandbox cannot start
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"), // the page only: no name to look up
		chromedp.WindowSize(1440, 900),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), flags...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() }) // ends chromium and waits for it
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return browser
}

// liveEval evaluates js in the page until done says yes, polling, and
// returns the value; it gives up just before go test's -timeout would.
func liveEval[T any](t *testing.T, tab context.Context, js string, done func(T) bool) T {
	t.Helper()
	deadline, limited := t.Deadline()
	for {
		v, err := chromedp.Run(tab, chromedp.Evaluate[T](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		if done(v) {
			return v
		}
		if limited && time.Until(deadline) < 5*time.Second {
			t.Fatalf("%s: still %v near the test's -timeout", js, v)
		}
		time.Sleep(10 * time.Millisecond) // the poll's interval, not a wait for a rest
	}
}

// The page draws a real crawl as it goes: a bar for every request the
// farm saw, rests hatched with their terms, the stats, the refusal log,
// the summary. It takes as long as the crawl's rests (about 16 s).
//
// To refresh README's picture, docs/live.png:
//
//	POLITE_SCREENSHOT=1 go test ./cmd/polite -run TestLivePageInBrowser -count=1
func TestLivePageInBrowser(t *testing.T) {
	tab := liveBrowser(t)
	farm := politetest.Start(t)
	shared, err := farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	retryAfter := http.Header{"Retry-After": {"5"}}
	for _, s := range []politetest.Site{
		{Name: "a.test", Addr: shared},
		{Name: "www.a.test", Addr: shared}, // one server, one row, one budget (R1.1)
		{Name: "b.test", Pages: map[string]politetest.Page{
			politetest.RobotsPath: politetest.Robots("User-agent: *\nCrawl-delay: 4\n")}},
		{Name: "c.test", Pages: map[string]politetest.Page{
			"/":       {Latency: 700 * time.Millisecond}, // 5 × 0.7 s beats the 3 s floor (R2.2)
			"/page/1": {Sequence: []politetest.Page{{Status: http.StatusServiceUnavailable, Header: retryAfter}, {}}}}},
		{Name: "closed.test", Pages: map[string]politetest.Page{"/": {Status: http.StatusForbidden}}},
	} {
		if _, err := farm.AddSite(s); err != nil {
			t.Fatal(err)
		}
	}

	l := newLive("polite crawl of a.test, www.a.test, b.test, c.test, closed.test")
	f, err := polite.New(polite.Config{Resolver: farm.Resolver(), AllowPrivateNetworks: true,
		Logger: slog.New(slog.DiscardHandler), OnRequest: l.observe})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ln, err := listenLive("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: l}
	go srv.Serve(ln)
	defer srv.Close()

	if err := chromedp.Do(tab, chromedp.Navigate("http://"+ln.Addr().String()+"/")); err != nil {
		t.Fatal(err)
	}
	liveEval(t, tab, `document.getElementById("state").textContent`, func(s string) bool { return s == "live" })

	ctx := context.Background()
	for host, paths := range map[string][]string{
		"a.test": {"/", "/page/1", "/page/2"}, "www.a.test": {"/"}, "b.test": {"/", "/page/1", "/page/2"},
		"c.test": {"/", "/page/1", "/page/2"}, "closed.test": {"/", "/page/1"},
	} {
		for _, p := range paths {
			if err := f.Add(ctx, farm.URL(host, p)); err != nil {
				t.Fatal(err)
			}
		}
	}
	statsDone := make(chan struct{})
	statsEnded := make(chan struct{})
	go func() { // as the crawl's progress line does
		defer close(statsEnded)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				if st, err := f.Stats(ctx); err == nil {
					l.setStats(st)
				}
			case <-statsDone:
				return
			}
		}
	}()

	const bars = `document.querySelectorAll("rect.req").length`
	var drawn []int // bars on the page after each Result
	pages, refused := 0, 0
	for r, err := range f.Results(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if isA[*polite.RefusalError](r.Err) || isA[*polite.StoppedError](r.Err) {
			l.logRefusal(r.URL, r.Err)
			refused++
		} else if r.Err == nil {
			pages++
		}
		l.mu.Lock()
		observed := l.n
		l.mu.Unlock()
		drawn = append(drawn, liveEval(t, tab, bars, func(n int) bool { return n >= observed }))
	}
	close(statsDone)
	<-statsEnded

	visits := len(farm.Audit().Visits())
	final := liveEval(t, tab, bars, func(n int) bool { return n == visits })
	if !slices.IsSorted(drawn) || drawn[0] >= final {
		t.Errorf("bars after each result %v, then %d: want them growing as the requests happen", drawn, final)
	}
	t.Logf("bars after each result: %v; the farm saw %d requests", drawn, visits)

	st, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Requests != visits {
		t.Errorf("Stats.Requests %d, the farm saw %d", st.Requests, visits)
	}
	l.setStats(st)
	liveEval(t, tab, `document.querySelector('#stats [data-stat="requests"]').textContent`,
		func(s string) bool { return s == strconv.Itoa(visits) })
	liveEval(t, tab, `document.querySelector('#stats [data-stat="stopped"]').textContent`,
		func(s string) bool { return s == "1" })

	if refused != 2 {
		t.Errorf("%d results refused or stopped, want closed.test's 2", refused)
	}
	liveEval(t, tab, `document.querySelectorAll("#refusals li").length`, func(n int) bool { return n == refused })
	if log := liveEval(t, tab, `document.getElementById("refusals").textContent`, func(string) bool { return true }); !strings.Contains(log, "closed.test") {
		t.Errorf("the refusal log %q does not name closed.test", log)
	}

	// Every bar placed on the axis; rests hatched after them with the terms
	// this farm makes (R2.1–R2.4).
	liveEval(t, tab, `[...document.querySelectorAll("rect.req, rect.rest")].every(r => r.hasAttribute("x"))`,
		func(ok bool) bool { return ok })
	terms := liveEval(t, tab, `[...new Set([...document.querySelectorAll("text.term")].map(e => e.textContent))]`,
		func([]string) bool { return true })
	for _, want := range []string{"floor", "duration", "crawl-delay", "retry-after"} {
		if !slices.Contains(terms, want) {
			t.Errorf("rest terms drawn %v, want %s among them", terms, want)
		}
	}
	if n := liveEval(t, tab, `document.querySelectorAll("rect.rest").length`, func(int) bool { return true }); n < visits-refused {
		t.Errorf("%d rests drawn for %d requests", n, visits)
	}
	rows := liveEval(t, tab, `document.getElementById("labels").textContent`, func(string) bool { return true })
	if !strings.Contains(rows, "a.test, www.a.test") && !strings.Contains(rows, "www.a.test, a.test") {
		t.Errorf("row labels %q: want a.test and www.a.test on one row", rows)
	}

	sum := fmt.Sprintf("%d pages fetched, %d URLs refused (closed.test: 403), %d requests", pages, refused, visits)
	l.finish(sum)
	liveEval(t, tab, `document.getElementById("summary").hidden ? "" : document.getElementById("summary-text").textContent`,
		func(s string) bool { return s == sum })

	if rep := farm.Audit().Report(politetest.AtLeast(3 * time.Second)); !rep.Polite() {
		t.Errorf("the crawl drawn was not polite: %v", rep)
	}

	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shots := []string{filepath.Join(t.TempDir(), "live.png")}
	if os.Getenv("POLITE_SCREENSHOT") == "1" {
		shots = append(shots, filepath.Join("..", "..", "docs", "live.png"))
	}
	for _, shot := range shots {
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", shot)
	}
}
