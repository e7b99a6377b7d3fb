package polite_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

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
		if !errors.Is(got.Err, polite.ErrHostStopped) || !errors.Is(got.Err, polite.ErrFailures) {
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
	if !errors.Is(err, polite.ErrHostStopped) || !errors.Is(err, polite.ErrUnresolved) || !errors.Is(err, context.DeadlineExceeded) ||
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
