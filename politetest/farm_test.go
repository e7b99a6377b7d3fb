package politetest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/clock"
)

// newFarm returns a farm that is closed when the test ends.
func newFarm(t *testing.T, clk clock.Clock) *Farm {
	t.Helper()
	f := New(clk)
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return f
}

func addSite(t *testing.T, f *Farm, s Site) *Site {
	t.Helper()
	got, err := f.AddSite(s)
	if err != nil {
		t.Fatalf("AddSite(%q): %v", s.Name, err)
	}
	return got
}

// client dials whatever the farm's resolver says, so URLs from f.URL work
// without DNS. A non-zero dialTo overrides the resolver (for 421 tests).
func client(t *testing.T, f *Farm, timeout time.Duration, dialTo netip.Addr) *http.Client {
	t.Helper()
	var d net.Dialer
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(address)
			if err != nil {
				return nil, err
			}
			ip := dialTo
			if !ip.IsValid() {
				ips, err := f.Resolver().LookupNetIP(ctx, "ip4", host)
				if err != nil {
					return nil, err
				}
				ip = ips[0]
			}
			return d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		},
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{
		Timeout:   timeout,
		Transport: tr,
		// Redirects are scripted responses to look at, not to follow.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// get fetches url and reads the whole body.
func get(t *testing.T, c *http.Client, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", url, err)
	}
	return resp, body
}

func TestAddressesAndResolver(t *testing.T) {
	f := newFarm(t, nil)
	shared, err := f.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	if want := netip.MustParseAddr("127.20.0.1"); shared != want {
		t.Errorf("first address = %v, want %v", shared, want)
	}
	a := addSite(t, f, Site{Name: "A.test", Addr: shared})
	b := addSite(t, f, Site{Name: "b.test", Addr: shared})
	c := addSite(t, f, Site{Name: "c.test"})
	if a.Name != "a.test" || a.Addr != shared || b.Addr != shared {
		t.Errorf("shared sites: a=%+v b=%+v", a, b)
	}
	if c.Addr == shared || !c.Addr.IsValid() {
		t.Errorf("c.test got address %v, want a fresh one", c.Addr)
	}
	if f.Port(shared) == 0 || f.Port(c.Addr) == 0 {
		t.Errorf("ports: %d %d", f.Port(shared), f.Port(c.Addr))
	}
	if ua, ub := f.URL("a.test", "/x"), f.URL("b.test", "/x"); strings.TrimPrefix(ua, "http://a.test") != strings.TrimPrefix(ub, "http://b.test") {
		t.Errorf("shared address, different ports: %s %s", ua, ub)
	}
	if _, err := f.AddSite(Site{Name: "B.TEST"}); err == nil {
		t.Error("duplicate name accepted")
	}
	if _, err := f.AddSite(Site{Name: "d.test", Addr: netip.MustParseAddr("127.0.0.1")}); err == nil {
		t.Error("non-farm address accepted")
	}

	f.MapName("local.test", netip.MustParseAddr("127.0.0.1"))
	ctx := context.Background()
	for name, want := range map[string]netip.Addr{
		"a.test": shared, "B.Test": shared, "c.test.": c.Addr,
		"local.test": netip.MustParseAddr("127.0.0.1"),
		"10.0.0.1":   netip.MustParseAddr("10.0.0.1"),
	} {
		got, err := f.Resolver().LookupNetIP(ctx, "ip", name)
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("LookupNetIP(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if got := f.URL("local.test", "/"); got != "http://local.test/" {
		t.Errorf("URL of resolver-only name = %q", got)
	}
	_, err = f.Resolver().LookupNetIP(ctx, "ip", "nowhere.test")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound || dnsErr.Name != "nowhere.test" {
		t.Errorf("unknown name: err = %#v", err)
	}
	if _, err := f.Resolver().LookupNetIP(ctx, "ip6", "a.test"); err == nil {
		t.Error("ip6 lookup of an IPv4 host succeeded")
	}
}

func TestNextAddrSkipsZeroAndBroadcast(t *testing.T) {
	for in, want := range map[string]string{
		"127.20.0.1":     "127.20.0.2",
		"127.20.0.254":   "127.20.1.1",
		"127.20.255.254": "127.21.0.1",
	} {
		if got := nextAddr(netip.MustParseAddr(in)); got != netip.MustParseAddr(want) {
			t.Errorf("nextAddr(%s) = %v, want %s", in, got, want)
		}
	}
	if got := nextAddr(netip.MustParseAddr("127.255.255.254")); got.IsValid() {
		t.Errorf("nextAddr at the end of 127/8 = %v, want invalid", got)
	}
}

func TestLatencyAndGapsFakeClock(t *testing.T) {
	clk := clock.NewFake()
	f := newFarm(t, clk)
	addSite(t, f, Site{Name: "slow.test", Latency: 2 * time.Second})
	c := client(t, f, 10*time.Second, netip.Addr{})

	get(t, c, f.URL("slow.test", "/one"))
	clk.Advance(3 * time.Second)
	get(t, c, f.URL("slow.test", "/two?q=1"))

	vs := f.Audit().VisitsTo("SLOW.test")
	if len(vs) != 2 {
		t.Fatalf("got %d visits, want 2: %+v", len(vs), vs)
	}
	if d := vs[0].End.Sub(vs[0].Start); d != 2*time.Second {
		t.Errorf("visit lasted %v of fake time, want 2s", d)
	}
	if !vs[0].Start.Equal(clock.Epoch) {
		t.Errorf("first Start = %v, want the fake epoch", vs[0].Start)
	}
	if vs[1].Path != "/two?q=1" || vs[1].Method != "GET" || vs[1].Header.Get("User-Agent") == "" {
		t.Errorf("second visit = %+v", vs[1])
	}

	r := f.Audit().Report(func(Visit) time.Duration { return 5 * time.Second })
	if r.Requests != 2 || r.Addresses != 1 || r.Overlaps != 0 {
		t.Errorf("report: %v", r)
	}
	if got := r.MinGap[vs[0].Addr]; got != 3*time.Second {
		t.Errorf("MinGap = %v, want 3s", got)
	}
	if len(r.ShortGaps) != 1 || r.ShortGaps[0].Gap != 3*time.Second || r.ShortGaps[0].Want != 5*time.Second {
		t.Errorf("ShortGaps = %+v", r.ShortGaps)
	}
	if r := f.Audit().Report(nil); len(r.ShortGaps) != 0 {
		t.Errorf("nil minRest gave short gaps: %v", r)
	}
	t.Log(r)

	f.Audit().Reset()
	if n := f.Audit().Count("slow.test"); n != 0 {
		t.Errorf("Count after Reset = %d", n)
	}
}

// startHang issues a request to a Hang page and returns once the handler is
// hanging (the client has the headers). The body is closed at test end.
func startHang(t *testing.T, c *http.Client, url string) *http.Response {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestOverlapSameAddress(t *testing.T) {
	f := newFarm(t, clock.NewFake())
	addr, err := f.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	hang := map[string]Page{"/hang": {Hang: true}}
	addSite(t, f, Site{Name: "a.test", Addr: addr, Pages: hang})
	addSite(t, f, Site{Name: "b.test", Addr: addr, Pages: hang})
	c := client(t, f, 0, netip.Addr{})

	startHang(t, c, f.URL("a.test", "/hang"))
	startHang(t, c, f.URL("b.test", "/hang"))

	vs := f.Audit().Visits()
	if len(vs) != 2 || vs[0].Overlap || !vs[1].Overlap {
		t.Fatalf("visits = %+v, want the second flagged Overlap", vs)
	}
	if !vs[0].Start.Equal(vs[1].Start) {
		t.Errorf("fake time moved: %v %v", vs[0].Start, vs[1].Start)
	}
	if r := f.Audit().Report(nil); r.Overlaps != 1 {
		t.Errorf("report: %v", r)
	}
}

func TestNoOverlapDifferentAddresses(t *testing.T) {
	f := newFarm(t, clock.NewFake())
	hang := map[string]Page{"/hang": {Hang: true}}
	addSite(t, f, Site{Name: "a.test", Pages: hang})
	addSite(t, f, Site{Name: "b.test", Pages: hang})
	c := client(t, f, 0, netip.Addr{})

	startHang(t, c, f.URL("a.test", "/hang"))
	startHang(t, c, f.URL("b.test", "/hang"))

	r := f.Audit().Report(nil)
	if r.Requests != 2 || r.Addresses != 2 || r.Overlaps != 0 {
		t.Errorf("report: %v", r)
	}
	for _, v := range f.Audit().Visits() {
		if v.Overlap || !v.End.IsZero() {
			t.Errorf("visit %+v: want no overlap, still running", v)
		}
	}
}

// TestConcurrentUse runs many polite clients, one per address, against a
// real-clock farm while reading the audit, for the race detector.
func TestConcurrentUse(t *testing.T) {
	f := newFarm(t, nil)
	const hosts, each = 20, 5
	names := make([]string, hosts)
	for i := range names {
		names[i] = "h" + itoa(i) + ".test"
		addSite(t, f, Site{Name: names[i]})
	}
	c := client(t, f, 10*time.Second, netip.Addr{})
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Go(func() {
			// t.Fatal may not be called off the test goroutine.
			for j := range each {
				resp, err := c.Get(f.URL(name, "/page/"+itoa(j)))
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Go(func() {
		for range 10 {
			_ = f.Audit().Report(nil).String()
		}
	})
	wg.Wait()
	r := f.Audit().Report(nil)
	if r.Requests != hosts*each || r.Addresses != hosts || r.Overlaps != 0 || len(r.MinGap) != hosts {
		t.Errorf("report: %v", r)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestShortURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://a.test:41234/p?q=1": "a.test/p?q=1",
		"https://b.test/":           "b.test/",
		"http://c.test:80":          "c.test/",
		"http://[::1]/x":            "[::1]/x",
	} {
		if got := ShortURL(in); got != want {
			t.Errorf("ShortURL(%q) = %q, want %q", in, got, want)
		}
	}
}
