package politetest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"slices"
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

func TestHang(t *testing.T) {
	f := New(nil)
	defer f.Close()
	addSite(t, f, Site{Name: "hang.test", Pages: map[string]Page{"/": {Hang: true, Body: []byte("0123456789")}}})

	resp, err := client(t, f, 200*time.Millisecond, netip.Addr{}).Get(f.URL("hang.test", "/"))
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Fatal("client with a timeout read a hanging body to the end")
	}

	resp = startHang(t, client(t, f, 0, netip.Addr{}), f.URL("hang.test", "/"))
	half := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, half); err != nil || string(half) != "01234" {
		t.Fatalf("first half = %q, %v", half, err)
	}
	closed := make(chan error, 1)
	go func() { closed <- f.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked with a hanging handler in progress")
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := f.NewAddr(); !errors.Is(err, ErrClosed) {
		t.Errorf("NewAddr after Close: %v", err)
	}
	for _, v := range f.Audit().Visits() {
		if v.End.IsZero() {
			t.Errorf("visit %s still open after Close", v.Path)
		}
	}
}

func TestBodyDelayFakeClock(t *testing.T) {
	clk := clock.NewFake()
	f := newFarm(t, clk)
	want := bytes.Repeat([]byte("slow body "), 1000)
	addSite(t, f, Site{Name: "drip.test", Pages: map[string]Page{"/": {Body: want, BodyDelay: 4 * time.Second}}})

	_, got := get(t, client(t, f, 10*time.Second, netip.Addr{}), f.URL("drip.test", "/"))
	if !bytes.Equal(got, want) {
		t.Errorf("body: got %d bytes, want %d", len(got), len(want))
	}
	vs := f.Audit().Visits()
	if len(vs) != 1 || vs[0].End.Sub(vs[0].Start) != 4*time.Second {
		t.Errorf("visits = %+v, want one lasting 4s", vs)
	}
}

func TestMisdirected(t *testing.T) {
	f := newFarm(t, nil)
	a := addSite(t, f, Site{Name: "a.test"})
	addSite(t, f, Site{Name: "b.test"})
	c := client(t, f, 10*time.Second, a.Addr) // every name dials a.test's address

	for _, name := range []string{"b.test", "nobody.test"} {
		resp, _ := get(t, c, "http://"+name+":"+itoa(f.Port(a.Addr))+"/")
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("%s on a.test's address: status %d, want 421", name, resp.StatusCode)
		}
		if vs := f.Audit().VisitsTo(name); len(vs) != 1 || vs[0].Addr != a.Addr {
			t.Errorf("%s: visits %+v, want one audited on %v", name, vs, a.Addr)
		}
	}
	if resp, _ := get(t, c, f.URL("A.TEST", "/")); resp.StatusCode != http.StatusOK {
		t.Errorf("a.test: status %d", resp.StatusCode)
	}
}

func TestPages(t *testing.T) {
	f := newFarm(t, nil)
	addSite(t, f, Site{
		Name: "p.test",
		Pages: map[string]Page{
			"/missing": {Status: 404, Body: []byte("gone")},
			"/moved":   {Redirect: "/new"},
			"/big":     {Size: 5000},
			"/robots.txt": {
				Header: http.Header{"Content-Type": {"text/plain"}},
				Body:   []byte("User-agent: *\nDisallow: /private\n"),
			},
		},
		Default: func(path string) Page {
			if strings.HasPrefix(path, "/teapot") {
				return Page{Status: 418}
			}
			return Page{}
		},
	})
	c := client(t, f, 10*time.Second, netip.Addr{})

	if resp, body := get(t, c, f.URL("p.test", "/missing")); resp.StatusCode != 404 || string(body) != "gone" {
		t.Errorf("/missing: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, c, f.URL("p.test", "/moved")); resp.StatusCode != 302 || resp.Header.Get("Location") != "/new" {
		t.Errorf("/moved: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, body := get(t, c, f.URL("p.test", "/big")); len(body) != 5000 || resp.ContentLength != 5000 {
		t.Errorf("/big: %d bytes, Content-Length %d", len(body), resp.ContentLength)
	}
	if resp, body := get(t, c, f.URL("p.test", "/robots.txt")); resp.Header.Get("Content-Type") != "text/plain" || !strings.HasPrefix(string(body), "User-agent") {
		t.Errorf("/robots.txt: %q %q", resp.Header.Get("Content-Type"), body)
	}
	if resp, _ := get(t, c, f.URL("p.test", "/teapot/1")); resp.StatusCode != 418 {
		t.Errorf("/teapot/1: %d", resp.StatusCode)
	}
	resp, body := get(t, c, f.URL("p.test", "/page/1"))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != htmlType ||
		!strings.Contains(string(body), "p.test/page/1") || !strings.Contains(string(body), `<a href="/page/2">`) ||
		strings.Contains(string(body), `<a href="/page/1">`) {
		t.Errorf("default page: %d %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
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

func TestSequence(t *testing.T) {
	f := newFarm(t, clock.NewFake())
	addSite(t, f, Site{Name: "seq.test", Pages: map[string]Page{
		"/s": {Sequence: []Page{{Status: 500}, {Status: 503}, {Status: 200}}},
	}})
	c := client(t, f, 5*time.Second, netip.Addr{})
	var got []int
	for range 4 {
		resp, _ := get(t, c, f.URL("seq.test", "/s"))
		got = append(got, resp.StatusCode)
	}
	if want := []int{500, 503, 200, 200}; !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if resp, _ := get(t, c, f.URL("seq.test", RobotsPath)); resp.StatusCode != 404 {
		t.Errorf("robots.txt of a site without one: %d, want 404", resp.StatusCode)
	}
}

func TestETag(t *testing.T) {
	f := newFarm(t, clock.NewFake())
	addSite(t, f, Site{Name: "etag.test", Pages: map[string]Page{"/p": {ETag: `"v1"`, Body: []byte("hello")}}})
	c := client(t, f, 5*time.Second, netip.Addr{})
	resp, body := get(t, c, f.URL("etag.test", "/p"))
	if resp.StatusCode != 200 || string(body) != "hello" || resp.Header.Get("ETag") != `"v1"` {
		t.Fatalf("first: %d %q %q", resp.StatusCode, body, resp.Header.Get("ETag"))
	}
	req, _ := http.NewRequest("GET", f.URL("etag.test", "/p"), nil)
	req.Header.Set("If-None-Match", `"v1"`)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional: %d, want 304", resp.StatusCode)
	}
	if n := len(f.Audit().VisitsTo("etag.test")); n != 2 {
		t.Errorf("%d visits audited", n)
	}
}

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

func TestCut(t *testing.T) {
	f := New(nil)
	defer f.Close()
	body := []byte("0123456789")
	addSite(t, f, Site{Name: "cut.test", Pages: map[string]Page{
		"/length":  {Cut: true, Body: body},
		"/chunked": {Cut: true, Chunked: true, Body: body},
	}})
	c := client(t, f, 0, netip.Addr{})
	for path, wantLength := range map[string]int64{"/length": 10, "/chunked": -1} {
		resp, err := c.Get(f.URL("cut.test", path))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.ContentLength != wantLength || err == nil || string(got) != "01234" {
			t.Errorf("%s: length %d, read %q, %v; want length %d, %q and an error", path, resp.ContentLength, got, err, wantLength, "01234")
		}
	}
}

func TestDrop(t *testing.T) {
	f := New(nil)
	defer f.Close()
	addSite(t, f, Site{Name: "drop.test", Pages: map[string]Page{
		"/drop": {Drop: true, Body: []byte("0123456789")},
		"/keep": {Body: []byte("0123456789")},
	}})
	c := client(t, f, 0, netip.Addr{})
	// The second request of each path says whether the first's connection
	// was there to use again.
	for path, wantReused := range map[string]bool{"/drop": false, "/keep": true} {
		for i := range 2 {
			var reused bool
			ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused },
			})
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL("drop.test", path), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatalf("%s, request %d: %v", path, i+1, err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(got) != "0123456789" || resp.Close {
				t.Errorf("%s, request %d: read %q, %v, Close %v; want the whole body, no error, and no Connection: close", path, i+1, got, err, resp.Close)
			}
			if i == 1 && reused != wantReused {
				t.Errorf("%s: second request reused the first's connection: %v, want %v", path, reused, wantReused)
			}
		}
	}
}
