package polite_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R11.1, R11.2: Close in the middle of a run still yields exactly one
// Result per accepted URL: the finished ones, the ones in flight (held open
// by the farm until the client goes away), and the ones still queued; then
// io.EOF; and no goroutine of the fetcher is left (checked by the rig on
// cleanup).
func TestCloseMidRunLosesNothing(t *testing.T) {
	r := newFarmRig(t)
	entered := make(chan string)
	never := make(chan struct{}) // the gate stays shut: only Close ends these
	var urls []string
	for i := range 40 {
		s := politetest.Site{Name: fmt.Sprintf("c%02d.test", i)}
		if i%4 == 0 {
			s.Pages = map[string]politetest.Page{"/p1": {Entered: entered, Gate: never}}
		}
		h := r.site(s)
		urls = append(urls, r.pages(h, 5)...)
	}
	f := r.start(polite.Config{AllowPrivateNetworks: true, MaxInFlight: 8})
	r.add(urls...)
	<-entered // a request is in flight, others are done or queued
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Add(context.Background(), urls[0]); !errors.Is(err, polite.ErrClosed) {
		t.Errorf("Add after Close = %v, want ErrClosed", err)
	}
	all := drain(t, f)

	seen := make(map[string]int)
	closed, done := 0, 0
	for _, res := range all {
		seen[res.URL]++
		switch {
		case errors.Is(res.Err, polite.ErrClosed):
			closed++
		case res.Err == nil:
			done++
		default:
			t.Errorf("%s: %v", res.URL, res.Err)
		}
	}
	for _, u := range urls {
		if seen[u] != 1 {
			t.Errorf("%s: %d Results, want exactly 1", u, seen[u])
		}
	}
	if len(all) != len(urls) {
		t.Errorf("%d Results for %d URLs", len(all), len(urls))
	}
	if closed == 0 || done == 0 {
		t.Errorf("%d done and %d closed: Close did not come mid-run", done, closed)
	}
	if _, err := f.Next(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("Next after drain = %v, want io.EOF", err)
	}
	if f.Pending() != 0 {
		t.Errorf("Pending() = %d after drain", f.Pending())
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if rep := r.farm.Audit().Report(restRule(polite.MinRest)); rep.Overlaps != 0 || len(rep.ShortGaps) != 0 {
		t.Errorf("farm audit: %v", rep)
	}
}

// Close with nothing queued and nothing read returns at once and leaves
// no goroutine behind; Next then says io.EOF.
func TestCloseIdle(t *testing.T) {
	checkNoLeaks(t)
	f, err := polite.New(polite.Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if f.UserAgent() != "PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)" {
		t.Errorf("User-Agent %q", f.UserAgent())
	}
	f.Close()
	if _, err := f.Next(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("Next = %v, want io.EOF", err)
	}
}

// Next honours its context while nothing is ready.
func TestNextContext(t *testing.T) {
	checkNoLeaks(t)
	f, err := polite.New(polite.Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next = %v, want context.Canceled", err)
	}
	if err := f.Add(ctx, "https://example.org/"); !errors.Is(err, context.Canceled) ||
		!strings.HasPrefix(err.Error(), "polite: https://example.org/ not added") {
		t.Errorf("Add with a cancelled context = %v; want context.Canceled, the URL named", err)
	}
}

// Many readers and writers at once: every Result reaches exactly one
// reader (run under -race).
func TestConcurrentAddAndNext(t *testing.T) {
	r := newFarmRig(t)
	var hosts []string
	for i := range 20 {
		hosts = append(hosts, r.site(politetest.Site{Name: fmt.Sprintf("cc%02d.test", i)}))
	}
	f := r.start(polite.Config{AllowPrivateNetworks: true})
	const perHost = 3
	errs := make(chan error, len(hosts))
	for _, h := range hosts {
		go func() {
			for _, u := range r.pages(h, perHost) {
				if err := f.Add(context.Background(), u); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range hosts {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan string, len(hosts)*perHost)
	ctx := context.Background()
	for range 4 {
		go func() {
			for {
				res, err := f.Next(ctx)
				if err != nil {
					return
				}
				got <- res.URL
			}
		}()
	}
	seen := make(map[string]bool)
	for range len(hosts) * perHost {
		select {
		case u := <-got:
			if seen[u] {
				t.Errorf("%s delivered twice", u)
			}
			seen[u] = true
		case <-ctx.Done():
			t.Fatalf("only %d Results", len(seen))
		}
	}
	f.Close()
}

// R11.2: a URL whose try failed before Close comes, and that waits to be
// tried again or is being tried, gets ErrClosed with the failure of its
// last try, so the caller learns why it was not fetched as well as that
// the fetcher closed.
func TestCloseKeepsTheLastTrysFailure(t *testing.T) {
	if err := closedAfterA503(t); !errors.Is(err, polite.ErrClosed) || !strings.Contains(fmt.Sprint(err), "503") {
		t.Errorf("Result after Close: %v; want ErrClosed and the 503 before it", err)
	}
}

// closedAfterA503 closes a fetcher once a page's first try has failed
// with a 503, and returns the page's Result's error.
func closedAfterA503(t *testing.T) error {
	t.Helper()
	r := newFarmRig(t)
	name := r.site(politetest.Site{Name: "busy.test",
		Pages: map[string]politetest.Page{"/p": {Status: http.StatusServiceUnavailable}}})
	u := r.url(name, "/p")
	// OnRequest runs under the fetcher's lock: it never waits here, and
	// the first two requests, robots.txt and the page, always fit.
	ended := make(chan string, 2)
	// A lookup held for the whole test keeps the fetcher from idling, so
	// the fake clock moves only when the test moves it: the page's retry
	// cannot come before Close.
	held := &gateResolver{Resolver: r.farm.Resolver(), hold: "held.test", open: make(chan struct{})}
	f := r.start(polite.Config{Resolver: held, OnRequest: func(q polite.RequestEvent) {
		select {
		case ended <- q.URL:
		default:
		}
	}})
	r.add("http://held.test/", u)
	<-ended // robots.txt, then its rest
	r.clk.Advance(polite.MinRest)
	if got := <-ended; got != u {
		t.Fatalf("second request: %s, want %s", got, u)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return r.results(2)[u].Err
}

// Bad input never panics or hangs: each case is a clear error from Add or
// in the Result.
func TestAddRefusesBadURLs(t *testing.T) {
	checkNoLeaks(t)
	f, err := polite.New(polite.Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		url  string
		want error
	}{
		{"::not a url", polite.ErrInvalidURL},
		{"", polite.ErrInvalidURL},
		{"ftp://example.org/pub/file.txt", polite.ErrUnsupportedScheme},
		{"http://169.254.169.254/latest/meta-data/", polite.ErrPrivateAddress},
		{"http://10.0.0.1/", polite.ErrPrivateAddress},
		{"http://127.0.0.1:8080/", polite.ErrPrivateAddress},
	} {
		if err := f.Add(context.Background(), c.url); !errors.Is(err, c.want) {
			t.Errorf("Add(%q) = %v, want %v", c.url, err, c.want)
		}
	}
	if f.Pending() != 0 {
		t.Errorf("refused URLs were counted as accepted: Pending() = %d", f.Pending())
	}
}

// R10.1: a name that resolves to loopback is refused without the allow
// option: the Result says so, and no request reaches the farm.
func TestNameResolvingToLoopback(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "inside.test"})
	r.farm.MapName("sneaky.test", netip.MustParseAddr("127.0.0.1"))
	r.start(polite.Config{}, guarded) // AllowPrivateNetworks off
	u1, u2 := r.farm.URL(h, "/"), "http://sneaky.test/"
	r.add(u1, u2)
	for u, res := range r.results(2) {
		if !errors.Is(res.Err, polite.ErrPrivateAddress) {
			t.Errorf("%s: %v, want ErrPrivateAddress", u, res.Err)
		}
	}
	if n := len(r.farm.Audit().Visits()); n != 0 {
		t.Errorf("farm saw %d requests", n)
	}
}

// A host that does not resolve gets ErrUnresolved for each of its URLs.
func TestUnresolvedHost(t *testing.T) {
	r := newFarmRig(t)
	r.start(polite.Config{AllowPrivateNetworks: true})
	r.add("http://nowhere.test/a", "http://nowhere.test/b")
	for u, res := range r.results(2) {
		if !errors.Is(res.Err, polite.ErrUnresolved) {
			t.Errorf("%s: %v, want ErrUnresolved", u, res.Err)
		}
	}
}

// R10.2: a body over the cap is cut at the cap, flagged, and named.
func TestBodyOverCap(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "big.test", Pages: map[string]politetest.Page{"/big": {Size: 5000}}})
	r.start(polite.Config{AllowPrivateNetworks: true, MaxBodyBytes: 1000})
	u := r.farm.URL(h, "/big")
	r.add(u)
	res := r.results(1)[u]
	if !errors.Is(res.Err, polite.ErrBodyTooLarge) || !res.Truncated || len(res.Body) != 1000 {
		t.Errorf("err %v, truncated %v, %d bytes; want ErrBodyTooLarge, true, 1000", res.Err, res.Truncated, len(res.Body))
	}
}

// R10.2: a server that never finishes its answer cannot hold a worker
// past the request timeout: not with a body that never ends, nor with
// headers that never come (no header timeout of its own bounds that wait;
// Config.Timeout does). Real time, because it is net/http's deadline that
// is tested, not a politeness rule.
func TestServerThatNeverFinishes(t *testing.T) {
	never := make(chan struct{}) // a status line that waits for it never comes
	t.Cleanup(func() { close(never) })
	for _, c := range []struct {
		name   string
		page   politetest.Page
		status int // what came before the server went quiet
	}{
		{"body never ends", politetest.Page{Hang: true}, http.StatusOK},
		{"headers never come", politetest.Page{Gate: never}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newFarmRig(t)
			h := r.site(politetest.Site{Name: "tar.test", Pages: map[string]politetest.Page{"/pit": c.page}})
			r.start(polite.Config{AllowPrivateNetworks: true, Timeout: 200 * time.Millisecond})
			u := r.farm.URL(h, "/pit")
			r.add(u, r.farm.URL(h, "/after"))
			res := r.results(2)
			var ue *url.Error
			if err := res[u].Err; !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
				!errors.As(err, &ue) || !ue.Timeout() || ue.URL != u || res[u].Status != c.status {
				t.Errorf("status %d, %v; want %d and a timeout naming the URL", res[u].Status, err, c.status)
			}
			if after := res[r.farm.URL(h, "/after")]; after.Err != nil {
				t.Errorf("the host's next URL: %v", after.Err)
			}
		})
	}
}

// flakyResolver fails the first n lookups of every name for a moment (a
// DNS timeout), then answers as the farm's resolver does.
type flakyResolver struct {
	farm  *politetest.Resolver
	n     int
	mu    sync.Mutex
	tries map[string]int
}

func (r *flakyResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	r.tries[host]++
	try := r.tries[host]
	r.mu.Unlock()
	if try <= r.n {
		return nil, &net.DNSError{Err: "i/o timeout", Name: host, IsTimeout: true, IsTemporary: true}
	}
	return r.farm.LookupNetIP(ctx, network, host)
}

// R5.2: a lookup that fails for a moment leaves the URLs waiting; it is
// tried again after the backoff and the pages are then fetched. Five
// failures in a row stop the host.
func TestPassingDNSFailureIsRetried(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "wobbly.test"})
	res := &flakyResolver{farm: r.farm.Resolver(), n: 2, tries: map[string]int{}}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res}, jitter(0))
	start := r.clk.Now()
	r.add(r.pages(h, 2)...)
	for u, got := range r.results(2) {
		if got.Err != nil {
			t.Errorf("%s: %v", u, got.Err)
		}
	}
	if res.tries[h] != 3 {
		t.Errorf("%d lookups, want 3", res.tries[h])
	}
	// Backoffs of 5 s and 10 s (jitter at its low end) before the third try.
	if first := r.farm.Audit().VisitsTo(h)[0].Start.Sub(start); first != 15*time.Second {
		t.Errorf("first request at +%v, want +15s", first)
	}
}

func TestDNSFailingFiveTimesStopsTheHost(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "gone.test"})
	res := &flakyResolver{farm: r.farm.Resolver(), n: 100, tries: map[string]int{}}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res})
	r.add(r.pages(h, 2)...)
	for u, got := range r.results(2) {
		if !isA[*polite.StoppedError](got.Err) || !errors.Is(got.Err, polite.ErrFailuresInARow) {
			t.Errorf("%s: %v", u, got.Err)
		}
	}
	if res.tries[h] != polite.FailuresToStop {
		t.Errorf("%d lookups, want %d", res.tries[h], polite.FailuresToStop)
	}
	if n := len(r.farm.Audit().Visits()); n != 0 {
		t.Errorf("farm saw %d requests", n)
	}
}

// R10.2: a server's claim about its body's length is not trusted with
// memory: the largest Content-Length there is, on a five-byte body, gives
// a failed request, not a crash.
func TestAbsurdContentLength(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "liar.test", Pages: map[string]politetest.Page{
		"/claim": {Header: http.Header{"Content-Type": {"text/html"}, "Content-Length": {"9223372036854775807"}}, Body: []byte("hello")},
	}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	u := r.farm.URL(h, "/claim")
	r.add(u)
	if res := r.results(1); res[u].Err == nil {
		t.Errorf("a body cut %d bytes into a claimed 2^63-1: no error, %d bytes", 5, len(res[u].Body))
	}
}

// R10.2: the longest URL the fetcher accepts (MaxURLLength, 2,048 bytes)
// goes out whole, though its request is longer than the connection's
// write buffer. One byte more, as given or once normalised, and Add
// refuses it: there is no length between the two that is accepted and
// then dropped as a trap.
func TestLongestURLIsSentWhole(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "long.test"})
	r.start(polite.Config{AllowPrivateNetworks: true})
	base := r.farm.URL(h, "/")
	u := base + strings.Repeat("a", polite.MaxURLLength-len(base))
	r.add(u)
	if res := r.results(1)[u]; res.Err != nil || res.Status != http.StatusOK {
		t.Fatalf("%d-byte URL: status %d, %v", len(u), res.Status, res.Err)
	}
	vs := r.farm.Audit().VisitsTo(h)
	if len(vs) != 2 || vs[1].Path != u[len(base)-1:] {
		t.Errorf("the farm saw %d visits; want robots.txt and the %d-byte path", len(vs), len(u)-len(base)+1)
	}
	// "é" is 2 bytes as given and 6 once percent-encoded.
	for _, longer := range []string{u + "a", u[:len(u)-2] + "é"} {
		if err := r.f.Add(context.Background(), longer); !errors.Is(err, polite.ErrInvalidURL) {
			t.Errorf("Add of a %d-byte URL: %v, want ErrInvalidURL", len(longer), err)
		}
	}
	if n := len(r.farm.Audit().VisitsTo(h)); n != 2 {
		t.Errorf("%d visits after the longer URLs, want 2", n)
	}
}

// stuckResolver never answers for stuck: it waits for the lookup's context
// to end, then says it was cancelled, or, with lateAnswer, that there is
// no such host. Other names it answers as the farm does.
type stuckResolver struct {
	farm       *politetest.Resolver
	stuck      string
	lateAnswer bool
	tries      atomic.Int32
}

func (r *stuckResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if host != r.stuck {
		return r.farm.LookupNetIP(ctx, network, host)
	}
	r.tries.Add(1)
	<-ctx.Done()
	if r.lateAnswer {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return nil, ctx.Err()
}

// R10.2: a lookup that never answers ends at the lookup timeout, says it
// timed out, and counts as a failed lookup: five stop the host. The
// worker's next lookups, on a fresh context, go on.
func TestLookupTimeout(t *testing.T) {
	r := newFarmRig(t)
	fine := r.site(politetest.Site{Name: "fine.test"})
	res := &stuckResolver{farm: r.farm.Resolver(), stuck: "stuck.test"}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res, MaxInFlight: 1},
		jitter(0), lookupTimeout(20*time.Millisecond))
	stuck := "http://stuck.test/page"
	r.add(stuck, r.farm.URL(fine, "/page"))
	got := r.results(2)
	err := got[stuck].Err
	if !isA[*polite.StoppedError](err) || !errors.Is(err, polite.ErrUnresolved) || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(err.Error(), "lookup took longer than 20ms") {
		t.Errorf("stuck host: %v; want the host stopped after lookups that timed out", err)
	}
	if n := res.tries.Load(); n != polite.FailuresToStop {
		t.Errorf("%d lookups of the stuck host, want %d", n, polite.FailuresToStop)
	}
	if err := got[r.farm.URL(fine, "/page")].Err; err != nil {
		t.Errorf("the other host, on the same worker: %v", err)
	}
}

// R5.2: an answer of the resolver's own that comes as the lookup's time
// runs out is kept: a host that does not exist is not retried as if the
// lookup had timed out.
func TestLookupAnswerAtTheTimeout(t *testing.T) {
	r := newFarmRig(t)
	res := &stuckResolver{farm: r.farm.Resolver(), stuck: "gone.test", lateAnswer: true}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res},
		jitter(0), lookupTimeout(20*time.Millisecond))
	u := "http://gone.test/page"
	r.add(u)
	err := r.results(1)[u].Err
	var dns *net.DNSError
	if !errors.As(err, &dns) || !dns.IsNotFound || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v; want the resolver's own answer, no such host", err)
	}
	if n := res.tries.Load(); n != 1 {
		t.Errorf("%d lookups, want 1: no such host is final", n)
	}
}

// R9, R11.1: a URL already added, in any spelling, is refused by Add with
// ErrDuplicate: nothing more is accepted, no second Result comes, and the
// server is asked once.
func TestAddRefusesADuplicate(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "dup.test"})
	r.start(polite.Config{})
	u := r.url(host, "/a/b")
	r.add(u)
	for _, again := range []string{u, strings.Replace(u, "dup.test", "DUP.test", 1) + "#top", r.url(host, "/a/./b;jsessionid=0123456789ABCDEF")} {
		err := r.f.Add(t.Context(), again)
		if !errors.Is(err, polite.ErrDuplicate) {
			t.Errorf("Add(%s): %v, want ErrDuplicate", again, err)
			continue
		}
		// The normal form is named only when it is another spelling.
		if as := " (as " + u + ")"; strings.HasSuffix(err.Error(), as) == (again == u) {
			t.Errorf("Add(%s): %q; want %q at its end only for another spelling", again, err, as)
		}
	}
	if n := r.f.Pending(); n != 1 {
		t.Errorf("Pending() = %d, want 1", n)
	}
	if res := r.results(1)[u]; res.Err != nil {
		t.Errorf("%s: %v", u, res.Err)
	}
	if n := len(pageVisitsOf(r.farm, host)); n != 1 {
		t.Errorf("server saw the page %d times", n)
	}
}

// Fetch: one URL's Result to its caller alone, under every rule.

// A Fetched URL is asked after robots.txt and a rest from the request
// before, like any (R5.1, R2.1); its Result is the caller's, not the
// Results loop's, and it counts in no Pending.
func TestFetchReturnsItsResultAlone(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "a.test"})
	f := r.start(polite.Config{})
	ctx := context.Background()
	u, v := r.url(host, "/one"), r.url(host, "/two")
	res, err := f.Fetch(ctx, u)
	if err != nil || res.Err != nil || res.Status != 200 || res.URL != u {
		t.Fatalf("Fetch(%s) = %+v, %v", u, res, err)
	}
	if n := f.Pending(); n != 0 {
		t.Errorf("Pending after Fetch = %d, want 0", n)
	}
	r.add(v)
	got := drainResults(t, f)
	if len(got) != 1 || got[0].URL != v {
		t.Errorf("Results yielded %d: %v; want only the added %s", len(got), got, v)
	}
	vs := r.farm.Audit().Visits()
	if len(vs) != 3 || vs[0].Path != politetest.RobotsPath || vs[1].Path != "/one" || vs[2].Path != "/two" {
		t.Fatalf("visits %v: want robots.txt, /one, /two", vs)
	}
	if rep := r.farm.Audit().Report(politetest.AtLeast(polite.MinRest)); !rep.Polite() {
		t.Error(rep)
	}
	if _, err := f.Fetch(ctx, u); !errors.Is(err, polite.ErrDuplicate) {
		t.Errorf("Fetch of a URL fetched already: %v, want ErrDuplicate", err)
	}
	if err := f.Add(ctx, u); !errors.Is(err, polite.ErrDuplicate) {
		t.Errorf("Add of a URL fetched already: %v, want ErrDuplicate", err)
	}
}

// drainResults ranges over Results until nothing is pending.
func drainResults(t *testing.T, f *polite.Fetcher) []*polite.Result {
	t.Helper()
	var out []*polite.Result
	for res, err := range f.Results(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	return out
}

// A Fetch waiting when the fetcher closes gets its Result, with
// ErrClosed, as every accepted URL does (R11.2); a Fetch after Close is
// refused.
func TestFetchAnsweredOnClose(t *testing.T) {
	r, host, entered := heldRobots(t)
	f := r.start(polite.Config{})
	done := make(chan *polite.Result, 1)
	go func() {
		res, err := f.Fetch(context.Background(), r.url(host, "/p"))
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-entered // robots.txt in flight, the page held for it
	f.Close()
	if res := <-done; !errors.Is(res.Err, polite.ErrClosed) {
		t.Errorf("the Fetch waiting at Close: %v, want ErrClosed", res.Err)
	}
	if _, err := f.Fetch(context.Background(), r.url(host, "/q")); !errors.Is(err, polite.ErrClosed) {
		t.Errorf("Fetch after Close: %v, want ErrClosed", err)
	}
}

// A Fetch whose ctx ends while it waits returns ctx's error at once.
func TestFetchContextEnds(t *testing.T) {
	r, host, entered := heldRobots(t)
	f := r.start(polite.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.Fetch(ctx, r.url(host, "/p"))
		done <- err
	}()
	<-entered
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with its ctx ended: %v, want context.Canceled", err)
	}
}

// heldRobots is a farm host whose robots.txt is held in flight until the
// test ends; entered says when it is.
func heldRobots(t *testing.T) (r *farmRig, host string, entered chan string) {
	r = newFarmRig(t)
	gate := make(chan struct{})
	t.Cleanup(func() { close(gate) })
	entered = make(chan string, 1)
	host = r.site(politetest.Site{Name: "a.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Gate: gate, Entered: entered},
	}})
	return r, host, entered
}

// shutdownRig is a declared API (no robots.txt) whose /slow holds its
// answer until gate is closed, with /next queued behind it. entered is
// closed when /slow's request has reached the server.
func shutdownRig(t *testing.T) (r *farmRig, slow, next string, entered, gate chan struct{}) {
	r = newFarmRig(t)
	entered, gate = make(chan struct{}), make(chan struct{})
	name := r.site(politetest.Site{Name: "slow.test", Default: func(path string) politetest.Page {
		if path == "/slow" {
			close(entered)
			return politetest.Page{Body: []byte("<p>slow</p>"), Gate: gate}
		}
		return politetest.Page{Body: []byte("<p>next</p>")}
	}})
	r.start(polite.Config{APIs: []polite.API{{Host: name, Terms: "https://slow.test/terms"}}})
	slow, next = r.url(name, "/slow"), r.url(name, "/next")
	r.add(slow, next)
	<-entered
	return r, slow, next, entered, gate
}

// R11.2: Shutdown lets the request in flight finish with its page, and
// answers what was not asked yet with ErrClosed at once; nothing more is
// asked. Close, by contrast, cancels the request in flight.
func TestShutdownLetsTheRequestInFlightFinish(t *testing.T) {
	r, slow, next, _, gate := shutdownRig(t)
	done := make(chan error, 1)
	go func() { done <- r.f.Shutdown(context.Background()) }()
	// The queued URL is answered first, while /slow is still held.
	first := r.results(1)
	if res := first[next]; res == nil || !errors.Is(res.Err, polite.ErrClosed) {
		t.Fatalf("first Result: %+v, want %s with ErrClosed", first, next)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	res := r.results(1)[slow]
	if res == nil || res.Err != nil || res.Status != http.StatusOK || string(res.Body) != "<p>slow</p>" {
		t.Errorf("%s after Shutdown: %+v, want its page", slow, res)
	}
	if _, err := r.f.Next(context.Background()); err == nil {
		t.Error("a Result after both URLs were answered")
	}
	vs := r.farm.Audit().VisitsTo("slow.test")
	if len(vs) != 1 || vs[0].Path != "/slow" || vs[0].Cut {
		t.Errorf("the server saw %+v; want /slow only, answered whole", vs)
	}
}

// R11.2: a Shutdown whose context ends cancels what is still in flight,
// and says so.
func TestShutdownWhoseContextEndsCancels(t *testing.T) {
	r, slow, next, _, gate := shutdownRig(t)
	defer close(gate)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.f.Shutdown(ctx) }()
	if res := r.results(1)[next]; res == nil || !errors.Is(res.Err, polite.ErrClosed) {
		t.Fatalf("queued URL: %+v, want ErrClosed", res)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown: %v, want context.Canceled", err)
	}
	if res := r.results(1)[slow]; res == nil || !errors.Is(res.Err, polite.ErrClosed) {
		t.Errorf("%s: %+v, want ErrClosed: its request was cancelled", slow, res)
	}
}

// One host, two spellings (R1.1): a host is compared, stopped and looked
// up in one normal form — lower case, IDNA A-label, no trailing dot,
// default port dropped — whether it comes through Add, a redirect or the
// Config.

// addr takes a fresh farm address and returns it with its port, for
// pages that must name the port of a site before the site is added.
func (r *farmRig) addr() (netip.Addr, string) {
	r.t.Helper()
	a, err := r.farm.NewAddr()
	if err != nil {
		r.t.Fatal(err)
	}
	return a, strconv.Itoa(r.farm.Port(a))
}

// outcome says what a Result was, briefly.
func outcome(res *polite.Result) string {
	if res == nil {
		return "no Result"
	}
	return fmt.Sprintf("status %d, err %v, final %s", res.Status, res.Err, res.FinalURL)
}

// paths lists the paths the farm was asked for on a host, in order.
func paths(vs []politetest.Visit) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Path)
	}
	return out
}

// refuser adds refuser.test, whose every page answers 403, and returns
// its port.
func refuser(r *farmRig) string {
	a, port := r.addr()
	r.site(politetest.Site{Name: "refuser.test", Addr: a, Default: func(string) politetest.Page {
		return politetest.Page{Status: 403}
	}})
	return port
}

// stopRefuser fetches refuser.test's first page, which stops the host
// (R3.1).
func stopRefuser(r *farmRig) {
	r.t.Helper()
	first := r.url("refuser.test", "/a")
	r.add(first)
	if res := r.results(1)[first]; res == nil || !isA[*polite.RefusalError](res.Err) {
		r.t.Fatalf("the 403 did not refuse: %s", outcome(res))
	}
}

// wantOnlyFirst checks refuser.test saw its robots.txt and /a, nothing
// after the 403.
func wantOnlyFirst(t *testing.T, r *farmRig) {
	t.Helper()
	if got := paths(r.farm.Audit().VisitsTo("refuser.test")); !slices.Equal(got, []string{politetest.RobotsPath, "/a"}) {
		t.Errorf("refuser.test saw %q, want robots.txt and /a only", got)
	}
}

// R3.1, R1.1: once refuser.test is stopped by a 403, the same host
// written with a trailing dot or in upper case is stopped too, and no
// request reaches it.
func TestStoppedHostUnderAnotherSpelling(t *testing.T) {
	r := newFarmRig(t)
	port := refuser(r)
	r.start(polite.Config{})
	stopRefuser(r)
	dot := "http://refuser.test.:" + port + "/b"
	upper := "http://REFUSER.test:" + port + "/c"
	r.add(dot, upper)
	res := r.results(2)
	for _, u := range []string{dot, upper} {
		if res[u] == nil || !isA[*polite.StoppedError](res[u].Err) {
			t.Errorf("%s: %s, want a *StoppedError", u, outcome(res[u]))
		}
	}
	wantOnlyFirst(t, r)
}

// R3.1, R8.3, R1.1: a redirect hop is keyed as Add is: a redirect to a
// stopped host under another spelling of its name is not followed.
func TestRedirectToStoppedHostUnderAnotherSpelling(t *testing.T) {
	r := newFarmRig(t)
	port := refuser(r)
	hop := r.site(politetest.Site{Name: "hop.test", Pages: map[string]politetest.Page{
		"/go": {Redirect: "http://refuser.test.:" + port + "/x"},
	}})
	r.start(polite.Config{})
	stopRefuser(r)
	from := r.url(hop, "/go")
	r.add(from)
	res := r.results(1)[from]
	if res == nil || !isA[*polite.StoppedError](res.Err) || len(res.Redirects) != 1 {
		t.Errorf("redirect to the stopped host: %s, want a *StoppedError after one hop", outcome(res))
	}
	wantOnlyFirst(t, r)
}

// recordingResolver records the names the fetcher asks for.
type recordingResolver struct {
	polite.Resolver
	mu    sync.Mutex
	asked []string
}

func (r *recordingResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	r.asked = append(r.asked, host)
	r.mu.Unlock()
	return r.Resolver.LookupNetIP(ctx, network, host)
}

func (r *recordingResolver) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.asked)
}

// R1.1, R5.1: an IDN host in Unicode and in A-labels is one host: looked
// up once, by its A-label, asked once for robots.txt, requested under its
// A-label; a redirect to another spelling of it stays on it. Result.URL is
// the URL as given.
func TestIDNHostIsOneHost(t *testing.T) {
	r := newFarmRig(t)
	const alabel = "xn--bcher-kva.example" // bücher.example
	a, port := r.addr()
	r.site(politetest.Site{Name: alabel, Addr: a, Pages: map[string]politetest.Page{
		"/hop": {Redirect: "http://BÜCHER.example.:" + port + "/landed"},
	}})
	rec := &recordingResolver{Resolver: r.farm.Resolver()}
	r.start(polite.Config{Resolver: rec})
	unicode := "http://bücher.example:" + port + "/"
	ascii := "http://" + alabel + ":" + port + "/other"
	hop := "http://Bücher.Example:" + port + "/hop"
	r.add(unicode, ascii, hop)
	res := r.results(3)
	for _, u := range []string{unicode, ascii, hop} {
		if res[u] == nil || res[u].Err != nil {
			t.Errorf("%s: %s", u, outcome(res[u]))
		}
	}
	if res[unicode] != nil {
		if got, want := res[unicode].FinalURL, "http://"+alabel+":"+port+"/"; got != want {
			t.Errorf("FinalURL %q, want the A-label host %q", got, want)
		}
	}
	got := paths(r.farm.Audit().VisitsTo(alabel))
	slices.Sort(got)
	if want := []string{"/", "/hop", "/landed", "/other", politetest.RobotsPath}; !slices.Equal(got, want) {
		t.Errorf("%s saw %q, want %q: one robots.txt", alabel, got, want)
	}
	if asked := rec.names(); !slices.Equal(asked, []string{alabel}) {
		t.Errorf("resolver asked for %q, want the A-label once", asked)
	}
}

// R5.5, R5.6, R1.1: the hosts named in Config.APIs and Config.Unrestricted
// are read in the same normal form: upper case, a trailing dot or Unicode
// name the host they mean, which is then not asked for robots.txt.
func TestConfigHostsInNormalForm(t *testing.T) {
	r := newFarmRig(t)
	api := r.site(politetest.Site{Name: "api.example"})
	idnAPI := r.site(politetest.Site{Name: "xn--mnchen-3ya.example"}) // münchen.example
	mine := r.site(politetest.Site{Name: "xn--bcher-kva.example"})    // bücher.example
	r.start(polite.Config{
		APIs: []polite.API{
			{Host: "API.Example.", Terms: "https://api.example/terms"},
			{Host: "MÜNCHEN.example", Terms: "https://xn--mnchen-3ya.example/terms"},
		},
		Unrestricted: polite.Unrestricted{Hosts: []string{"Bücher.Example."}, Reason: "my own site, checked before launch"},
	})
	urls := []string{r.url(api, "/a"), r.url(idnAPI, "/a"), r.url(mine, "/a")}
	r.add(urls...)
	res := r.results(len(urls))
	for _, u := range urls {
		if res[u] == nil || res[u].Err != nil {
			t.Errorf("%s: %s", u, outcome(res[u]))
		}
	}
	for _, h := range []string{api, idnAPI, mine} {
		if got := paths(r.farm.Audit().VisitsTo(h)); !slices.Equal(got, []string{"/a"}) {
			t.Errorf("%s saw %q, want /a only: robots.txt asked", h, got)
		}
	}
	for _, v := range r.farm.Audit().VisitsTo(mine) {
		if ua := v.Header.Get("User-Agent"); ua != "PoliteCrawler-unrestricted/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)" {
			t.Errorf("%s saw User-Agent %q", mine, ua)
		}
	}
}

// R8.3, R1.1: a redirect to the same URL under another spelling of its
// host is a loop, caught without asking again.
func TestRedirectLoopUnderAnotherSpelling(t *testing.T) {
	r := newFarmRig(t)
	a, port := r.addr()
	name := r.site(politetest.Site{Name: "loop.test", Addr: a, Pages: map[string]politetest.Page{
		"/x": {Redirect: "http://LOOP.test.:" + port + "/x"},
	}})
	r.start(polite.Config{})
	from := r.url(name, "/x")
	r.add(from)
	res := r.results(1)[from]
	if res == nil || !errors.Is(res.Err, polite.ErrRedirectLoop) || len(res.Redirects) != 0 {
		t.Errorf("%s: %s, want ErrRedirectLoop with no hop followed", from, outcome(res))
	}
	if got := paths(r.farm.Audit().VisitsTo(name)); !slices.Equal(got, []string{politetest.RobotsPath, "/x"}) {
		t.Errorf("loop.test saw %q, want robots.txt and /x once", got)
	}
}

// R1.1, R10.1: a host that ends in a number is the IPv4 address a browser
// reads in it. A farm address written as one decimal number, in hex parts
// or with octal zeros is one host with its dotted spelling: a duplicate of
// it, asked at that address, under one robots.txt. Without
// AllowPrivateNetworks such a spelling of a private address is refused at
// Add, as its dotted form is, and the Resolver is never asked for it.
func TestNumericIPv4SpellingsAreTheAddress(t *testing.T) {
	r := newFarmRig(t)
	a, port := r.addr()
	r.site(politetest.Site{Name: a.String(), Addr: a})
	b := a.As4()
	number := strconv.FormatUint(uint64(b[0])<<24|uint64(b[1])<<16|uint64(b[2])<<8|uint64(b[3]), 10)
	hex := fmt.Sprintf("0x%x.0x%x.%d.0%o", b[0], b[1], b[2], b[3])
	asked := &recordingResolver{Resolver: r.farm.Resolver()}
	r.start(polite.Config{Resolver: asked})
	dotted := "http://" + a.String() + ":" + port + "/p"
	r.add("http://" + number + ":" + port + "/p")
	for _, again := range []string{dotted, "http://" + hex + ":" + port + "/p"} {
		if err := r.f.Add(t.Context(), again); !errors.Is(err, polite.ErrDuplicate) {
			t.Errorf("Add(%s) = %v, want ErrDuplicate: the same address", again, err)
		}
	}
	res := r.results(1)["http://"+number+":"+port+"/p"]
	if res == nil || res.Err != nil || res.FinalURL != dotted || res.Addr != a {
		t.Fatalf("%s: %s, from %v; want %s fetched from %v", number, outcome(res), res.Addr, dotted, a)
	}
	if got := paths(r.farm.Audit().VisitsTo(a.String())); !slices.Equal(got, []string{politetest.RobotsPath, "/p"}) {
		t.Errorf("farm saw %q, want robots.txt then /p", got)
	}
	if names := asked.names(); len(names) != 0 {
		t.Errorf("the Resolver was asked for %q: an address is no name", names)
	}

	f, err := polite.NewOnFakeClock(polite.Config{Logger: quiet, Resolver: asked}, r.clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, u := range []string{"http://2130706433/", "http://0x7f.1/", "http://0177.0.0.01/", "http://10.258/", "http://" + number + "/"} {
		if err := f.Add(t.Context(), u); !errors.Is(err, polite.ErrPrivateAddress) {
			t.Errorf("Add(%s) without AllowPrivateNetworks = %v, want ErrPrivateAddress", u, err)
		}
	}
	if names := asked.names(); len(names) != 0 {
		t.Errorf("the Resolver was asked for %q", names)
	}
}

// checkErrorText fails unless err reads as one sentence of the package's:
// "polite: " once, at its start, however many of its errors it wraps, and
// errors.Is still finds each of kinds in it (errors.As, for a typed error
// named by its nil pointer).
func checkErrorText(t *testing.T, what string, err error, kinds ...error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	text := err.Error()
	if !strings.HasPrefix(text, "polite: ") || strings.Count(text, "polite:") != 1 {
		t.Errorf("%s: %q; want \"polite: \" once, at the start", what, text)
	}
	for _, k := range kinds {
		if v := reflect.ValueOf(k); v.Kind() == reflect.Pointer && v.IsNil() {
			// a typed error, named by its nil pointer: errors.As finds one
			if !errors.As(err, reflect.New(v.Type()).Interface()) {
				t.Errorf("%s: %q holds no %T", what, text, k)
			}
		} else if !errors.Is(err, k) {
			t.Errorf("%s: %q is not %v", what, text, k)
		}
	}
}

// R3.2, R5.2, R11.1: when servers misbehave, the errors that stop a host
// wrap the failure that stopped it, and the Result of each URL held back
// wraps that again; the text names the package once.
func TestErrorTextNamesThePackageOnce(t *testing.T) {
	t.Run("robots.txt cut five times", func(t *testing.T) {
		r := newFarmRig(t)
		host := r.site(politetest.Site{Name: "cut.test", Pages: map[string]politetest.Page{
			politetest.RobotsPath: {Cut: true, Body: []byte("User-agent: *\nDisallow: /private\n")}}})
		r.start(polite.Config{})
		u := r.url(host, "/a")
		r.add(u)
		checkErrorText(t, u, r.results(1)[u].Err, (*polite.StoppedError)(nil), polite.ErrFailuresInARow, polite.ErrIncompleteBody)
	})
	t.Run("pages cut until the host stops", func(t *testing.T) {
		r := newFarmRig(t)
		cut := politetest.Page{Cut: true, Body: []byte(strings.Repeat("<p>half a page</p>", 50))}
		host := r.site(politetest.Site{Name: "cut.test", Pages: map[string]politetest.Page{"/1": cut, "/2": cut, "/3": cut}})
		r.start(polite.Config{})
		urls := []string{r.url(host, "/1"), r.url(host, "/2"), r.url(host, "/3")}
		r.add(urls...)
		res := r.results(len(urls))
		stopped := 0
		for _, u := range urls {
			checkErrorText(t, u, res[u].Err, polite.ErrIncompleteBody)
			if isA[*polite.StoppedError](res[u].Err) {
				stopped++
				checkErrorText(t, u, res[u].Err, polite.ErrFailuresInARow)
			}
		}
		if stopped == 0 {
			t.Errorf("no URL's Result says the host stopped after %d failures", polite.FailuresToStop)
		}
	})
	t.Run("certificate for another name", func(t *testing.T) {
		r := newFarmRig(t)
		r.site(politetest.Site{Name: "bad.test", TLS: politetest.WrongNameCert})
		r.start(polite.Config{RootCAs: r.farm.CertPool()})
		urls := []string{r.httpsURL("bad.test", "/1"), r.httpsURL("bad.test", "/2")}
		r.add(urls...)
		res := r.results(len(urls))
		for _, u := range urls {
			checkErrorText(t, u, res[u].Err, (*polite.StoppedError)(nil), polite.ErrCertificate)
		}
	})
	t.Run("lookups that time out", func(t *testing.T) {
		r := newFarmRig(t)
		res := &stuckResolver{farm: r.farm.Resolver(), stuck: "stuck.test"}
		r.start(polite.Config{Resolver: res}, lookupTimeout(20*time.Millisecond))
		urls := []string{"http://stuck.test/1", "http://stuck.test/2"}
		r.add(urls...)
		got := r.results(len(urls))
		for _, u := range urls {
			checkErrorText(t, u, got[u].Err, (*polite.StoppedError)(nil), polite.ErrFailuresInARow, polite.ErrUnresolved)
		}
	})
	t.Run("cooling off after a 403 in an earlier run", func(t *testing.T) {
		r := newFarmRig(t)
		host := r.site(politetest.Site{Name: "moody.test", Pages: map[string]politetest.Page{"/no": {Status: http.StatusForbidden}}})
		store := polite.NewMemoryStore()
		r.start(polite.Config{Store: store})
		no := r.url(host, "/no")
		r.add(no)
		checkErrorText(t, "run 1, "+no, r.results(1)[no].Err, (*polite.RefusalError)(nil))
		r.f.Close()
		r.clk.Advance(time.Hour)
		r.start(polite.Config{Store: store})
		u := r.url(host, "/later")
		r.add(u)
		checkErrorText(t, "run 2, "+u, r.results(1)[u].Err, (*polite.StoppedError)(nil), polite.ErrCoolingOff)
	})
	t.Run("request dropped on a kept connection", func(t *testing.T) {
		ap, _ := dropAfterRequestServer(t, "127.30.0.9:0", false)
		r := newFarmRig(t)
		r.start(polite.Config{Retries: -1, Resolver: politetest.NewResolver(map[string]netip.Addr{"drop.test": ap.Addr()})})
		u := "http://drop.test:" + strconv.Itoa(int(ap.Port())) + "/page"
		r.add(u)
		checkErrorText(t, u, r.results(1)[u].Err)
	})
	t.Run("closed after a failed try", func(t *testing.T) {
		checkErrorText(t, "the page", closedAfterA503(t), polite.ErrClosed, polite.ErrServerFailure)
	})
}

// oneAnswer is a Resolver that answers every name with the same address,
// as a hostile DNS zone can.
type oneAnswer netip.Addr

func (a oneAnswer) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	return []netip.Addr{netip.Addr(a)}, nil
}

// R10.1: a name that resolves to a NAT64 address embedding 10.0.0.1, which
// on a NAT64 network reaches 10.0.0.1, is refused as the private address
// it embeds, without AllowPrivateNetworks; and so are URLs whose host is a
// NAT64 or 6to4 literal of 10.0.0.1.
func TestEmbeddedPrivateIPv4IsRefused(t *testing.T) {
	r := newFarmRig(t)
	// Built here rather than by r.start, which allows private networks.
	f, err := polite.NewOnFakeClock(polite.Config{
		Resolver: oneAnswer(netip.MustParseAddr("64:ff9b::a00:1")),
		Logger:   slog.New(slog.DiscardHandler),
	}, r.clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r.f = f

	const u = "http://nat64.test/"
	r.add(u)
	res := r.results(1)[u]
	if !errors.Is(res.Err, polite.ErrPrivateAddress) {
		t.Errorf("%s resolving to 64:ff9b::a00:1: %v, want ErrPrivateAddress", u, res.Err)
	}
	for _, lit := range []string{"http://[64:ff9b::a00:1]/", "http://[2002:a00:1::]/"} {
		if err := f.Add(context.Background(), lit); !errors.Is(err, polite.ErrPrivateAddress) {
			t.Errorf("Add(%s) = %v, want ErrPrivateAddress", lit, err)
		}
	}
	if f.Pending() != 0 {
		t.Errorf("Pending() = %d after the refusals", f.Pending())
	}
	// Nothing was asked of any server the fetcher can reach.
	if n := len(r.farm.Audit().Visits()); n != 0 {
		t.Errorf("farm saw %d requests", n)
	}
}
