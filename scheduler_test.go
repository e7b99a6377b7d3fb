package polite_test

import (
	"bufio"
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"net/netip"
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

// R1.2, R5.3, R3.1: a host idle for a robots period leaves memory, and
// its rules come back with it: robots.txt is asked again before its next
// page and still disallows, and a URL added before is fetched again
// rather than refused as a duplicate. A host stopped for the run stays
// stopped once forgotten: nothing more is asked of it.
func TestIdleHostIsForgottenWithoutWeakeningARule(t *testing.T) {
	r := newFarmRig(t)
	kept := r.site(politetest.Site{Name: "kept.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Body: []byte("User-agent: *\nDisallow: /private/\n")},
		"/p":                  {Body: []byte("<p>p</p>")},
		"/private/x":          {Body: []byte("<p>x</p>")},
	}})
	refusing := r.site(politetest.Site{Name: "refusing.test", Pages: map[string]politetest.Page{
		"/a": {Status: http.StatusForbidden}, "/b": {},
	}})
	other := r.site(politetest.Site{Name: "other.test", Pages: map[string]politetest.Page{"/1": {}, "/2": {}}})
	f := r.start(polite.Config{})
	p, x := r.url(kept, "/p"), r.url(kept, "/private/x")
	r.add(p, r.url(refusing, "/a"))
	r.results(2)

	r.clk.Advance(polite.RobotsMaxAge + time.Hour)
	r.add(r.url(other, "/1")) // any news wakes the fetcher, which forgets what is idle
	r.results(1)
	st, err := f.Stats(context.Background())
	if err != nil || st.Forgotten != 2 || st.Hosts != 2 {
		t.Fatalf("Stats after a day idle: Forgotten %d, Hosts %d (%v); want both hosts forgotten, other.test and refusing.test's stop held", st.Forgotten, st.Hosts, err)
	}

	if err := f.Add(context.Background(), p); err != nil {
		t.Fatalf("Add(%s) again after its host was forgotten: %v", p, err)
	}
	r.add(x, r.url(refusing, "/b"))
	got := r.results(3)
	if got[p].Err != nil || got[p].Status != http.StatusOK {
		t.Errorf("%s again: %v", p, got[p].Err)
	}
	if !isA[*polite.DisallowedError](got[x].Err) {
		t.Errorf("%s: %v, want disallowed by robots.txt relearned", x, got[x].Err)
	}
	var stopped *polite.StoppedError
	if !errors.As(got[r.url(refusing, "/b")].Err, &stopped) {
		t.Errorf("refusing.test/b: %v, want its host still stopped", got[r.url(refusing, "/b")].Err)
	}
	robots := 0
	for _, v := range r.farm.Audit().VisitsTo(kept) {
		if v.Path == politetest.RobotsPath {
			robots++
		}
	}
	if robots != 2 || r.farm.Audit().Count(kept) != 4 {
		t.Errorf("kept.test: %d robots.txt requests of %d; want robots.txt, /p, then robots.txt again and /p", robots, r.farm.Audit().Count(kept))
	}
	if n := r.farm.Audit().Count(refusing); n != 2 {
		t.Errorf("refusing.test saw %d requests, want robots.txt and /a only", n)
	}
}

// forgetKept crawls a host whose last connection is kept, as in
// TestMoveLeavesNoConnectionToTheOldAddress, lets a day pass on the
// fetcher's clock until it is forgotten, and reports whether the fetcher
// took a fresh transport meanwhile.
func forgetKept(t *testing.T, opts ...startOption) bool {
	r := newFarmRig(t)
	h := keptIdle(r, polite.Config{}, opts...)
	f := r.f
	third := r.site(politetest.Site{Name: "third.test"})
	before := polite.CurrentTransport(f)
	r.clk.Advance(25 * time.Hour)
	r.add(r.url(third, "/"))
	r.results(1)
	if _, known := polite.InspectHost(f, h); known {
		t.Fatalf("%s is not forgotten after a day idle", h)
	}
	return polite.CurrentTransport(f) != before
}

// R1.1, R10.2: forgetting a host whose connection was kept takes a fresh
// transport only while that connection may still be idle in it. The
// transport closes it after netguard.IdleConnTimeout of real time, and a
// fresh transport costs every host its idle connection: on the web, where
// a host is forgotten a day after its last request, none is taken. Here a
// day passes in a millisecond, and a nanosecond stands for the 90 s.
func TestForgetTakesAFreshTransportOnlyForAConnectionStillIdle(t *testing.T) {
	if !forgetKept(t) {
		t.Error("forgotten within its connection's idle life: no fresh transport")
	}
	if forgetKept(t, idleConnLife(time.Nanosecond)) {
		t.Error("forgotten after its connection's idle life: a fresh transport")
	}
}

// keepAliveVisits crawls five pages of one site after its robots.txt and
// says, of each request the site saw in order, whether it asked
// Connection: close. robots.txt is held until every page is added, so
// they are all queued when the first is asked.
func keepAliveVisits(t *testing.T, drop bool) []bool {
	return keepAliveVisitsWith(t, drop, polite.Config{}, nil)
}

// keepAliveVisitsWith is keepAliveVisits with the Fetcher started on cfg
// and handed to started before any page is added.
func keepAliveVisitsWith(t *testing.T, drop bool, cfg polite.Config, started func(*polite.Fetcher)) []bool {
	r := newFarmRig(t)
	page := politetest.Page{Drop: drop}
	gate := make(chan struct{})
	robots := politetest.Robots("User-agent: *\nAllow: /\n")
	robots.Drop, robots.Gate = drop, gate
	name := r.site(politetest.Site{Name: "keep.test",
		Pages:   map[string]politetest.Page{politetest.RobotsPath: robots},
		Default: func(string) politetest.Page { return page }})
	f := r.start(cfg)
	if started != nil {
		started(f)
	}
	paths := []string{"/1", "/2", "/3", "/4", "/5"}
	for _, p := range paths {
		r.add(r.url(name, p))
	}
	close(gate)
	for u, res := range r.results(len(paths)) {
		if res.Err != nil || res.Status != http.StatusOK {
			t.Fatalf("%s: status %d, %v; want 200", u, res.Status, res.Err)
		}
	}
	var closes []bool
	for _, v := range r.farm.Audit().Visits() {
		closes = append(closes, v.Header.Get("Connection") == "close")
	}
	return closes
}

// A server that lets a connection go while the fetcher rests is asked to
// close each connection at once, after the first request that found the
// last one gone: the fetcher does not hold connections it cannot use
// again (R10.2).
//
// /1 finds the connection gone one of two ways. On the fake clock it
// follows robots.txt at once, and net/http may not have seen the server's
// close yet: then /1 is written on the dead connection, is not sent again
// at once (netguard.ErrResent), and is asked again after its backoff,
// closing its own connection. Or net/http has seen it, and /1 dials a new
// one as it was. Either way the server sees each page once, and every
// page after /1 ask to close.
func TestKeepAliveDroppedAsksClose(t *testing.T) {
	got := keepAliveVisits(t, true)
	if len(got) != 6 {
		t.Fatalf("the server saw %d requests, want robots.txt and 5 pages once each", len(got))
	}
	// robots.txt keeps its connection (its pages are behind it).
	want := []bool{false, got[1], true, true, true, true}
	if !slices.Equal(got, want) {
		t.Errorf("Connection: close on each request: %v, want %v (/1 either)", got, want)
	}
}

// A server that keeps its connections is asked on them while its address
// has work to come, robots.txt's held pages included; the last page, with
// nothing behind it, asks to close.
func TestKeepAliveKeptWhileWorkIsQueued(t *testing.T) {
	got := keepAliveVisits(t, false)
	want := []bool{false, false, false, false, false, true}
	if !slices.Equal(got, want) {
		t.Errorf("Connection: close on each request: %v, want %v", got, want)
	}
}

// A connection the fetcher let go itself, taking a fresh transport (a
// host's move, or the renewal as hosts are forgotten), says nothing of the
// server: its next requests keep asking to keep their connections
// (R10.2). Counted as the server's doing, every host with a connection
// kept then closed each of its connections for the rest of the run.
func TestFreshTransportIsNotTheServersClose(t *testing.T) {
	var fp atomic.Pointer[polite.Fetcher]
	cfg := polite.Config{OnRequest: func(e polite.RequestEvent) {
		if strings.HasSuffix(e.URL, "/2") {
			polite.RenewTransport(fp.Load())
		}
	}}
	closes := keepAliveVisitsWith(t, false, cfg, fp.Store)
	// Only /5, with nothing queued behind it, asks to close.
	want := []bool{false, false, false, false, false, true}
	if !slices.Equal(closes, want) {
		t.Errorf("Connection: close on each request: %v, want %v", closes, want)
	}
}

// dropAfterRequestServer is a raw TCP server on a loopback address of its
// own: robots.txt (a 404) and paths under /keep (an empty 200) are answered
// on a connection kept open, and every other request is read and then its
// connection dropped with no answer, closed or, with reset, reset. It
// returns the paths it read, in order, and the paths whose request asked
// to close the connection.
func dropAfterRequestServer(t *testing.T, addr string, reset bool) (netip.AddrPort, func() (paths []string, closing map[string]bool)) {
	t.Helper()
	var mu sync.Mutex
	var paths []string
	closing := make(map[string]bool)
	ap := rawServer(t, addr, func(c net.Conn) {
		rd := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(rd)
			if err != nil {
				return
			}
			mu.Lock()
			paths = append(paths, req.URL.Path)
			closing[req.URL.Path] = req.Close
			mu.Unlock()
			answer := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 0\r\n\r\n"
			switch {
			case req.URL.Path == politetest.RobotsPath:
				answer = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
			case !strings.HasPrefix(req.URL.Path, "/keep"):
				if reset {
					c.(*net.TCPConn).SetLinger(0)
				}
				return
			}
			if _, err := c.Write([]byte(answer)); err != nil {
				return
			}
		}
	})
	return ap, func() ([]string, map[string]bool) {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), paths...), maps.Clone(closing)
	}
}

// R2.1, R2.5: a server that reads a request on a kept connection and drops
// the connection with no answer gets that request once. net/http would
// send it again at once on a new connection, a second request with no rest
// after a failure, unseen by the fetcher; it is a failure, backed off, and
// with Retries -1 not asked again.
func TestDroppedRequestIsNotSentAgainAtOnce(t *testing.T) {
	for i, reset := range []bool{false, true} {
		t.Run("reset="+strconv.FormatBool(reset), func(t *testing.T) {
			ap, seen := dropAfterRequestServer(t, "127.30.0."+strconv.Itoa(2+i)+":0", reset)
			r := newFarmRig(t)
			r.start(polite.Config{Retries: -1, Resolver: politetest.NewResolver(map[string]netip.Addr{"drop.test": ap.Addr()})})
			u := "http://drop.test:" + strconv.Itoa(int(ap.Port())) + "/page"
			r.add(u)
			res := r.results(1)[u]
			if res.Err == nil || res.Attempts != 1 || !strings.Contains(res.Err.Error(), "dropped the connection after the request, with no answer") {
				t.Errorf("Result: %d attempts, err %v; want 1, and the failure said", res.Attempts, res.Err)
			}
			if got, _ := seen(); len(got) != 2 || got[0] != politetest.RobotsPath || got[1] != "/page" {
				t.Errorf("server read %q, want robots.txt and the page once", got)
			}
		})
	}
}

// The same drop ends the budget's kept connections (R2.5): net/http's
// resend is refused only on a connection kept from an earlier request,
// and a server that closes one as the next request comes (a keep-alive
// timeout as long as the rest) would fail every other request so. The
// page after the dropped one asks to close its connection, though a third
// is queued behind it.
func TestDroppedRequestEndsKeptConnections(t *testing.T) {
	ap, seen := dropAfterRequestServer(t, "127.30.0.4:0", false)
	r := newFarmRig(t)
	r.start(polite.Config{Retries: -1, Resolver: politetest.NewResolver(map[string]netip.Addr{"drop.test": ap.Addr()})})
	base := "http://drop.test:" + strconv.Itoa(int(ap.Port()))
	r.add(base+"/dropped", base+"/keep1", base+"/keep2")
	r.results(3)
	paths, closing := seen()
	if want := []string{politetest.RobotsPath, "/dropped", "/keep1", "/keep2"}; !slices.Equal(paths, want) {
		t.Fatalf("server read %q, want %q", paths, want)
	}
	if closing[politetest.RobotsPath] || !closing["/keep1"] {
		t.Errorf("Connection: close asked by robots.txt %v, by the page after the drop %v; want false, true",
			closing[politetest.RobotsPath], closing["/keep1"])
	}
}

// R1.1: a host is looked up once per robots period. Within 24 h its
// pages go to the address found first; when its robots.txt is due again,
// the host is looked up again first, and the refresh and the pages after
// it go to the address the name has by then.
func TestHostResolvedOncePerRobotsPeriod(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "moving.test"})
	first := r.farm.Resolver()
	res := &flakyResolver{farm: first, tries: map[string]int{}}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res})
	lookups := func() int {
		res.mu.Lock()
		defer res.mu.Unlock()
		return res.tries[h]
	}
	fetch := func(path string) *polite.Result {
		u := r.farm.URL(h, path)
		r.add(u)
		return r.results(1)[u]
	}
	fetch("/a")
	r.clk.Advance(23 * time.Hour)
	fetch("/b")
	if n := lookups(); n != 1 {
		t.Fatalf("%d lookups within 24 h, want 1", n)
	}
	visits := r.farm.Audit().VisitsTo(h)
	if len(visits) != 3 {
		t.Fatalf("%d visits within 24 h, want robots.txt, /a, /b", len(visits))
	}
	oldAddr := visits[0].Addr

	// The name moves to another address, which serves no site: it answers
	// 421, and what matters here is only where the requests go.
	newAddr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	r.farm.MapName(h, newAddr)
	r.clk.Advance(2 * time.Hour)
	fetch("/c")
	if n := lookups(); n != 2 {
		t.Fatalf("%d lookups after 25 h, want 2", n)
	}
	var after []politetest.Visit
	for _, v := range r.farm.Audit().Visits() {
		if v.Addr == newAddr {
			after = append(after, v)
		}
	}
	if len(after) != 2 || after[0].Path != politetest.RobotsPath || after[1].Path != "/c" {
		t.Fatalf("at the new address %v: %v, want robots.txt then /c", newAddr, after)
	}
	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Addr == oldAddr && v.Start.After(visits[2].Start) {
			t.Errorf("%s asked at the old address %v after the name moved", v.Path, oldAddr)
		}
	}
}

// goneResolver answers as the farm's resolver until its name is gone.
type goneResolver struct {
	farm *politetest.Resolver
	gone atomic.Bool
	only string // when set, the one name that goes; others stay
}

func (r *goneResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if r.gone.Load() && (r.only == "" || host == r.only) {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return r.farm.LookupNetIP(ctx, network, host)
}

// R1.1, R11.1: a name that no longer exists when its host is looked up
// again answers the URLs that waited for the lookup, and nothing more is
// asked of the old address.
func TestHostGoneAtTheNextLookup(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "fading.test"})
	res := &goneResolver{farm: r.farm.Resolver()}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res})
	a, b := r.farm.URL(h, "/a"), r.farm.URL(h, "/b")
	r.add(a)
	if got := r.results(1)[a]; got.Err != nil {
		t.Fatalf("before: %v", got.Err)
	}
	before := len(r.farm.Audit().Visits())
	res.gone.Store(true)
	r.clk.Advance(25 * time.Hour)
	r.add(b)
	if got := r.results(1)[b]; !errors.Is(got.Err, polite.ErrUnresolved) {
		t.Errorf("after the name went: %v, want ErrUnresolved", got.Err)
	}
	if n := len(r.farm.Audit().Visits()); n != before {
		t.Errorf("%d requests after the name went", n-before)
	}
}

// R1.1: after a move, no request goes out on a connection to the old
// address. The two addresses share one port, as hosts on the web do, so
// only the pinned address tells them apart; net/http keeps idle
// connections by name and port, and the fetcher takes a fresh transport.
// A second host at the old address is asked after /a, so /a's connection
// is kept: a request with nothing queued behind it asks to close.
func TestMoveLeavesNoConnectionToTheOldAddress(t *testing.T) {
	r := newFarmRig(t)
	h := keptIdle(r, polite.Config{AllowPrivateNetworks: true})
	c := r.farm.URL(h, "/c")
	newAddr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	r.farm.MapName(h, newAddr) // it serves no site: 421, enough to see where requests go
	r.clk.Advance(25 * time.Hour)
	r.add(c)
	if got := r.results(1)[c]; got.Addr != newAddr {
		t.Errorf("/c reported at %v, want %v", got.Addr, newAddr)
	}
	vs := r.farm.Audit().Visits()
	if len(vs) != 9 {
		t.Fatalf("%d visits, want 2 robots.txt and 2 pages, /y, /a, /x, then robots.txt and /c", len(vs))
	}
	for _, v := range vs[7:] {
		if v.Addr != newAddr {
			t.Errorf("%s after the move reached %v, want %v", v.Path, v.Addr, newAddr)
		}
	}
}

// keptIdle starts r's Fetcher on cfg (with opts) and crawls two hosts on
// one address and port, keepalive.test and other.test, so that
// keepalive.test's last connection is kept: /a goes while other.test's
// /x is queued at the address behind it, and net/http holds the
// connection idle by keepalive.test's name. It returns that name.
func keptIdle(r *farmRig, cfg polite.Config, opts ...startOption) string {
	t := r.t
	t.Helper()
	if err := r.farm.ShareOneListener(); err != nil {
		t.Fatal(err)
	}
	gate, entered := make(chan struct{}), make(chan string, 1)
	site, err := r.farm.AddSite(politetest.Site{Name: "keepalive.test"})
	if err != nil {
		t.Fatal(err)
	}
	h := site.Name
	other := r.site(politetest.Site{Name: "other.test", Addr: site.Addr, Pages: map[string]politetest.Page{
		"/y": {Gate: gate, Entered: entered},
	}})
	r.start(cfg, opts...)
	// Each host's robots.txt first, one at a time: no connection is kept.
	for _, name := range []string{h, other} {
		r.add(r.farm.URL(name, "/"))
		r.results(1)
	}
	// /a and /x are queued while /y holds the address, so /a goes with /x
	// behind it.
	r.add(r.farm.URL(other, "/y"))
	<-entered
	r.add(r.farm.URL(h, "/a"), r.farm.URL(other, "/x"))
	close(gate)
	r.results(3)
	return h
}

// R1.1, R3.1: a refusal from the old address, in flight when a lookup
// finds the host's new address, stops the host before it moves: nothing
// more is asked of it at either address.
func TestStopAfterMove(t *testing.T) {
	r := newFarmRig(t)
	if err := r.farm.ShareOneListener(); err != nil {
		t.Fatal(err)
	}
	gate, entered := make(chan struct{}), make(chan string, 1)
	h := r.site(politetest.Site{Name: "refuser.test", Pages: map[string]politetest.Page{
		"/p1": {Status: 403, Gate: gate, Entered: entered},
	}})
	newAddr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	r.start(polite.Config{AllowPrivateNetworks: true})
	r.add(r.farm.URL(h, "/a"))
	r.results(1)
	p1, p2, p3, nu := r.farm.URL(h, "/p1"), r.farm.URL(h, "/p2"), r.farm.URL(h, "/p3"), r.farm.URL(h, "/new")
	r.add(p1, p2, p3)
	<-entered // p1 is held in flight at the old address; p2 and p3 wait behind it
	r.farm.MapName(h, newAddr)
	r.clk.Advance(25 * time.Hour)
	r.add(nu) // robots.txt is due again: the host is looked up, to move when /p1 ends
	r.waitForPendingMove()
	close(gate)
	got := r.results(4)
	for _, u := range []string{p2, p3, nu} {
		if !isA[*polite.StoppedError](got[u].Err) {
			t.Errorf("%s: %v, want the host stopped", u, got[u].Err)
		}
	}
	var refused time.Time
	for _, v := range r.farm.Audit().Visits() {
		if v.Path == "/p1" {
			refused = v.End
		}
	}
	for _, v := range r.farm.Audit().Visits() {
		if v.Start.After(refused) {
			t.Errorf("%s asked at %v after the refusal", v.Path, v.Addr)
		}
	}
}

// R3.2: a second lookup that answers does not forget the requests that
// failed before it: four failed pages and a failed robots.txt refresh are
// five failures in a row.
func TestLookupDoesNotResetRequestFailures(t *testing.T) {
	r := newFarmRig(t)
	fail := politetest.Page{Status: 500}
	h := r.site(politetest.Site{Name: "failing.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Sequence: []politetest.Page{{Body: []byte("User-agent: *\nAllow: /\n")}, {Status: 500}}},
		"/f1":                 fail, "/f2": fail, "/f3": fail, "/f4": fail,
	}})
	r.start(polite.Config{AllowPrivateNetworks: true}, jitter(0))
	r.add(r.farm.URL(h, "/a"))
	r.results(1)
	r.clk.Advance(24*time.Hour - 30*time.Second)
	r.add(r.farm.URL(h, "/f1"), r.farm.URL(h, "/f2"), r.farm.URL(h, "/f3"), r.farm.URL(h, "/f4"))
	r.results(4)
	g := r.farm.URL(h, "/g")
	r.add(g) // past 24 h: looked up again, then robots.txt fails: the fifth
	if got := r.results(1)[g]; !isA[*polite.StoppedError](got.Err) {
		t.Errorf("/g: %v, want the host stopped after five failures in a row", got.Err)
	}
}

// heldResolver answers a name's first lookup, and holds the later ones
// until release is closed or their context ends.
type heldResolver struct {
	farm    *politetest.Resolver
	n       atomic.Int32
	release chan struct{}
	held    chan struct{} // closed when a lookup is held
	once    sync.Once
}

func (r *heldResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if r.n.Add(1) > 1 {
		r.once.Do(func() { close(r.held) })
		select {
		case <-r.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return r.farm.LookupNetIP(ctx, network, host)
}

// Stats counts URLs, not the fetcher's robots.txt request held for the
// second lookup; and Close during that lookup still answers every URL
// once (R11).
func TestSecondLookupInStatsAndClose(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "waiting.test"})
	res := &heldResolver{farm: r.farm.Resolver(), release: make(chan struct{}), held: make(chan struct{})}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res})
	r.add(r.farm.URL(h, "/a"))
	r.results(1)
	r.clk.Advance(25 * time.Hour)
	r.add(r.farm.URL(h, "/b"))
	<-res.held
	r.add(r.farm.URL(h, "/c"))
	st, err := r.f.Stats(context.Background())
	if err != nil || st.Queued != 2 {
		t.Errorf("Queued = %d (%v) with two URLs waiting for the lookup", st.Queued, err)
	}
	r.f.Close()
	out := drain(t, r.f)
	if len(out) != 2 {
		t.Fatalf("%d Results after Close, want 2", len(out))
	}
	for _, x := range out {
		if !errors.Is(x.Err, polite.ErrClosed) {
			t.Errorf("%s: %v, want ErrClosed", x.URL, x.Err)
		}
	}
}

// R1.1, R11: a name gone at its next lookup also ends the URLs queued at
// its address: none of them is asked there.
func TestNameGoneWithURLsQueued(t *testing.T) {
	r := newFarmRig(t)
	gate, entered := make(chan struct{}), make(chan string, 1)
	h := r.site(politetest.Site{Name: "gone.test", Pages: map[string]politetest.Page{"/p0": {Gate: gate, Entered: entered}}})
	res := &goneResolver{farm: r.farm.Resolver()}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res})
	r.add(r.farm.URL(h, "/a"))
	r.results(1)
	r.clk.Advance(24*time.Hour - 10*time.Second) // robots.txt still fresh
	p0, p1, p2, q := r.farm.URL(h, "/p0"), r.farm.URL(h, "/p1"), r.farm.URL(h, "/p2"), r.farm.URL(h, "/q")
	r.add(p0, p1, p2)
	<-entered // p0 in flight; p1 and p2 queued behind it
	r.clk.Advance(10 * time.Second)
	res.gone.Store(true)
	r.add(q) // robots.txt is due again: the lookup finds no such host
	if got := r.results(1); got[q] == nil || !errors.Is(got[q].Err, polite.ErrUnresolved) {
		t.Fatalf("first Result %v, want /q with ErrUnresolved", got)
	}
	close(gate)
	got := r.results(3)
	if got[p0] == nil || got[p0].Err != nil {
		t.Errorf("/p0, in flight before the lookup: %v", got[p0])
	}
	for _, u := range []string{p1, p2} {
		if got[u] == nil || !errors.Is(got[u].Err, polite.ErrUnresolved) {
			t.Errorf("%s: %v, want ErrUnresolved", u, got[u])
		}
	}
	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Path == "/p1" || v.Path == "/p2" {
			t.Errorf("%s asked after its name was gone", v.Path)
		}
	}
}

// orderResolver answers with two addresses, in the order given.
type orderResolver struct {
	mu      sync.Mutex
	addrs   []netip.Addr
	lookups int
}

func (r *orderResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups++
	return slices.Clone(r.addrs), nil
}

// R1.1: a later lookup that lists the host's address in another order, as
// round-robin DNS does, is no move: the host stays on its budget.
func TestRoundRobinOrderIsNoMove(t *testing.T) {
	r := newFarmRig(t)
	if err := r.farm.ShareOneListener(); err != nil {
		t.Fatal(err)
	}
	h := r.site(politetest.Site{Name: "rr.test"})
	a, _ := r.farm.Resolver().LookupNetIP(context.Background(), "ip", h)
	other, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	res := &orderResolver{addrs: []netip.Addr{a[0], other}}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res})
	r.add(r.farm.URL(h, "/a"))
	r.results(1)
	before := polite.CurrentTransport(r.f)
	res.mu.Lock()
	res.addrs = []netip.Addr{other, a[0]}
	res.mu.Unlock()
	// A robots period after the lookup, but not yet after /a's Result:
	// robots.txt is due again, so the host is looked up again, and it is
	// not idle long enough to be forgotten (a forgotten host would be
	// new, its address the first listed).
	r.clk.Advance(polite.RobotsMaxAge - time.Second)
	r.add(r.farm.URL(h, "/b"))
	r.results(1)
	res.mu.Lock()
	lookups := res.lookups
	res.mu.Unlock()
	if lookups != 2 {
		t.Fatalf("%d lookups, want 2: the later one in the new order", lookups)
	}
	for _, v := range r.farm.Audit().Visits() {
		if v.Addr != a[0] {
			t.Errorf("%s asked at %v, not the host's %v", v.Path, v.Addr, a[0])
		}
	}
	if polite.CurrentTransport(r.f) != before {
		t.Error("a new transport for a host that did not move")
	}
}

// holdingStore holds the worker loading the stored copy of one page,
// after the request was handed out and before it is sent.
type holdingStore struct {
	polite.Store
	suffix           string
	entered, release chan struct{}
}

func (s *holdingStore) LoadPage(u string) (polite.StoredPage, bool, error) {
	if strings.HasSuffix(u, s.suffix) {
		s.entered <- struct{}{}
		<-s.release
	}
	return s.Store.LoadPage(u)
}

// R1.1: a request handed out for the old address before the host moved,
// and sent after, goes through the transport of its time: its connection
// to the old address never serves the host's requests for the new one.
func TestRequestHandedOutBeforeAMove(t *testing.T) {
	r := newFarmRig(t)
	if err := r.farm.ShareOneListener(); err != nil {
		t.Fatal(err)
	}
	h, h2 := r.site(politetest.Site{Name: "mover.test"}), r.site(politetest.Site{Name: "other.test"})
	st := &holdingStore{Store: polite.NewMemoryStore(), suffix: "/slow", entered: make(chan struct{}), release: make(chan struct{})}
	robotsAtB := make(chan struct{}, 8)
	var addrB atomic.Value
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st, OnRequest: func(q polite.RequestEvent) {
		if b, ok := addrB.Load().(netip.Addr); ok && q.Addr == b && q.Robots {
			robotsAtB <- struct{}{}
		}
	}})
	r.add(r.farm.URL(h, "/a"), r.farm.URL(h2, "/x"))
	r.results(2)
	var addrA netip.Addr
	for _, v := range r.farm.Audit().Visits() {
		if v.Host == h {
			addrA = v.Addr
		} else {
			addrB.Store(v.Addr)
		}
	}
	r.clk.Advance(24*time.Hour - time.Minute)
	slow := r.farm.URL(h, "/slow")
	r.add(slow)
	<-st.entered // handed out at A; not yet sent
	r.clk.Advance(2 * time.Minute)
	r.add(r.farm.URL(h2, "/y"))
	<-robotsAtB // other.test's robots.txt answered at B, which now rests
	r.farm.MapName(h, addrB.Load().(netip.Addr))
	r.add(r.farm.URL(h, "/c")) // robots.txt due again: the lookup finds mover.test at B
	// The move waits for /slow, handed out at A (R1.1).
	r.waitForPendingMove()
	close(st.release)
	r.results(3)
	var slowEnd time.Time
	for _, v := range r.farm.Audit().Visits() {
		if v.Path == "/slow" {
			slowEnd = v.End
		}
	}
	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Addr == addrA && v.Path != "/slow" && !v.Start.Before(slowEnd) {
			t.Errorf("%s reached the old address %v after the move", v.Path, addrA)
		}
	}
}

// R2.4: a host whose address is parked is not moved out of the park by a
// later lookup: nothing is asked anywhere before the server's time, and no
// more lookups are made meanwhile. Once the park is over, the next
// robots.txt looks the host up again and it moves.
func TestParkedHostDoesNotMove(t *testing.T) {
	r := newFarmRig(t)
	if err := r.farm.ShareOneListener(); err != nil {
		t.Fatal(err)
	}
	h := r.site(politetest.Site{Name: "parked.test", Pages: map[string]politetest.Page{
		"/r": {Status: 503, Header: http.Header{"Retry-After": {"172800"}}}}}) // 48 h
	res := &flakyResolver{farm: r.farm.Resolver(), tries: map[string]int{}}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res})
	lookups := func() int {
		res.mu.Lock()
		defer res.mu.Unlock()
		return res.tries[h]
	}
	r.add(r.farm.URL(h, "/a"))
	r.results(1)
	r.add(r.farm.URL(h, "/r"))
	r.results(1)
	until := r.clk.Now().Add(48 * time.Hour)
	newAddr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	r.farm.MapName(h, newAddr)
	r.clk.Advance(25 * time.Hour)
	var parked *polite.ParkedError
	for _, p := range []string{"/c", "/d"} {
		u := r.farm.URL(h, p)
		r.add(u)
		if got := r.results(1)[u]; !errors.As(got.Err, &parked) {
			t.Errorf("%s: %v, want ParkedError", p, got.Err)
		}
	}
	if n := lookups(); n != 2 {
		t.Errorf("%d lookups by the end of the park, want 2 (the first, and one at 25 h)", n)
	}
	for _, v := range r.farm.Audit().Visits() {
		if v.Path != "/a" && v.Path != "/r" && v.Path != politetest.RobotsPath || v.Addr == newAddr {
			if v.Start.Before(until) {
				t.Errorf("%s asked at %v before the park ends", v.Path, v.Addr)
			}
		}
	}
	r.clk.Advance(until.Sub(r.clk.Now()) + time.Minute)
	e := r.farm.URL(h, "/e")
	r.add(e)
	if got := r.results(1)[e]; got.Addr != newAddr {
		t.Errorf("/e after the park: at %v (%v), want the new address %v", got.Addr, got.Err, newAddr)
	}
}

// R1.3, R2.2: a host that moves right after a slow response at its old
// address rests before its first request at the new one, as if it had not
// moved (a 10 s response: the 30 s cap of R2.2): the two addresses may be
// one server.
func TestMovedHostKeepsItsRest(t *testing.T) {
	r := newFarmRig(t)
	if err := r.farm.ShareOneListener(); err != nil {
		t.Fatal(err)
	}
	h := r.site(politetest.Site{Name: "slowmove.test", Pages: map[string]politetest.Page{
		"/slow": {Latency: 10 * time.Second}}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	r.add(r.farm.URL(h, "/a"))
	r.results(1)
	// Asked while robots.txt is fresh; it ends after the robots period.
	r.clk.Advance(24*time.Hour - 10*time.Second)
	r.add(r.farm.URL(h, "/slow"))
	r.results(1)
	newAddr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	r.farm.MapName(h, newAddr)
	c := r.farm.URL(h, "/c")
	r.add(c) // robots.txt is due again: the host is looked up and moves
	r.results(1)
	var slow politetest.Visit
	var firstNew time.Time
	for _, v := range r.farm.Audit().Visits() {
		switch {
		case v.Path == "/slow":
			slow = v
		case v.Addr == newAddr && firstNew.IsZero():
			firstNew = v.Start
		}
	}
	want := restRule(polite.MinRest)(slow)
	if gap := firstNew.Sub(slow.End); gap < want || want <= polite.MinRest {
		t.Errorf("first request at the new address %v after the slow response at the old one, want at least %v", gap, want)
	}
}

// R1.1, R5.2: a robots.txt in flight when its host's name goes is not
// asked again when it fails. The host has two origins on one address
// (two ports); the second one's robots.txt is held at the server while
// the first one's refresh finds the name gone. Another host on the same
// address then checks the budget's queue: its page comes after anything
// queued there first, so a robots.txt asked again would reach the server
// before that page's Result.
func TestRobotsInFlightWhenTheNameGoes(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "fading.test"})
	addrs, err := r.farm.Resolver().LookupNetIP(context.Background(), "ip", h)
	if err != nil {
		t.Fatal(err)
	}
	other := r.site(politetest.Site{Name: "other.test", Addr: addrs[0]})

	// The second origin: the same address, another port, a robots.txt
	// that answers 503 once the test lets it.
	var asked atomic.Int32
	arrived, release := make(chan struct{}, 8), make(chan struct{})
	ln, err := net.Listen("tcp", netip.AddrPortFrom(addrs[0], 0).String())
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		asked.Add(1)
		select { // a request too many must fail the test, not hang it
		case arrived <- struct{}{}:
		default:
		}
		<-release
		w.WriteHeader(http.StatusServiceUnavailable)
	})}
	go srv.Serve(ln)
	var once sync.Once
	letGo := func() { once.Do(func() { close(release) }) }
	t.Cleanup(func() { letGo(); srv.Close() })
	second := "http://" + net.JoinHostPort(h, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))

	res := &goneResolver{farm: r.farm.Resolver(), only: h}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res})
	a, b, c := r.farm.URL(h, "/a"), second+"/b", r.farm.URL(h, "/c")
	r.add(a)
	if got := r.results(1)[a]; got.Err != nil {
		t.Fatalf("before: %v", got.Err)
	}
	// Within the robots period: the second origin's robots.txt goes out
	// with no lookup, and is held.
	r.clk.Advance(23 * time.Hour)
	r.add(b)
	<-arrived // a hang here is go test's -timeout to report
	// After it: the first origin's refresh looks the host up, and the
	// name is gone.
	res.gone.Store(true)
	r.clk.Advance(2 * time.Hour)
	r.add(c)
	got := r.results(2)
	for _, u := range []string{b, c} {
		if !errors.Is(got[u].Err, polite.ErrUnresolved) {
			t.Errorf("%s: %v, want ErrUnresolved", u, got[u].Err)
		}
	}
	letGo() // the held robots.txt fails: 503

	x := r.farm.URL(other, "/x")
	r.add(x)
	if got := r.results(1)[x]; got.Err != nil {
		t.Errorf("%s, on the same address: %v", x, got.Err)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("the second origin's robots.txt was asked %d times, want once", n)
	}
}

// R1.1: a host whose address changes while one of its requests is in
// flight at the old address moves only when that request has ended, and
// rests there as it would have: it never has a request in flight at each
// address at once.
func TestMoveWaitsForTheRequestInFlight(t *testing.T) {
	r := newFarmRig(t)
	if err := r.farm.ShareOneListener(); err != nil {
		t.Fatal(err)
	}
	gate, entered := make(chan struct{}), make(chan string, 1)
	h := r.site(politetest.Site{Name: "busymove.test", Pages: map[string]politetest.Page{
		"/slow": {Gate: gate, Entered: entered}}})
	res := &flakyResolver{farm: r.farm.Resolver(), tries: map[string]int{}}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res})
	r.add(r.farm.URL(h, "/a"))
	r.results(1)
	r.clk.Advance(polite.RobotsMaxAge)
	r.add(r.farm.URL(h, "/slow")) // looked up again, robots.txt refreshed, then /slow held
	<-entered
	r.clk.Advance(polite.RobotsMaxAge)
	newAddr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	r.farm.MapName(h, newAddr)
	r.add(r.farm.URL(h, "/c")) // robots.txt due again: a lookup finds the new address
	for {
		res.mu.Lock()
		n := res.tries[h]
		res.mu.Unlock()
		host, _ := polite.InspectHost(r.f, h)
		done := n == 3 && !host.Resolving
		moved := host.Addr == newAddr
		if done {
			if moved || !host.Busy {
				t.Fatalf("moved %v with /slow in flight at the old address", moved)
			}
			break
		}
		time.Sleep(time.Millisecond) // the lookup runs on a worker: real time, no rule waited for
	}
	close(gate)
	r.results(2)
	var slowEnd, firstNew time.Time
	for _, v := range r.farm.Audit().Visits() {
		switch {
		case v.Path == "/slow":
			slowEnd = v.End
		case v.Addr == newAddr && firstNew.IsZero():
			firstNew = v.Start
		}
	}
	if gap := firstNew.Sub(slowEnd); gap < polite.MinRest {
		t.Errorf("first request at the new address %v after /slow ended at the old one, want ≥ %v", gap, polite.MinRest)
	}
}

// waitForPendingMove returns once a lookup has found a host's new address
// and the move waits for a request in flight at the old one.
func (r *farmRig) waitForPendingMove() {
	for {
		if polite.MovesPending(r.f) {
			return
		}
		time.Sleep(time.Millisecond) // the lookup runs on a worker: real time, no rule waited for
	}
}

// R3.2, R5.1, R5.2: an origin of a host that cannot be reached (a closed
// port, or a server that resets each connection once it has read the
// request) does not hold the host's other origin back. Its robots.txt is
// asked again behind the pages queued at the budget, so the other
// origin's answers come between its failures, and those failures are not
// five in a row until nothing else of the host is left. Its own page is
// never asked; every page of the origin that answers is fetched, at the
// budget's rests.
func TestUnreachableOriginHoldsNotItsHost(t *testing.T) {
	for _, reset := range []bool{false, true} {
		t.Run("reset="+strconv.FormatBool(reset), func(t *testing.T) {
			r := newFarmRig(t)
			a, _ := r.addr()
			host := r.site(politetest.Site{Name: "h.test", Addr: a})
			var mu sync.Mutex
			var asked []string
			var port int
			if reset {
				port = int(rawServer(t, a.String()+":0", func(c net.Conn) {
					req, err := http.ReadRequest(bufio.NewReader(c))
					if err != nil {
						return
					}
					mu.Lock()
					asked = append(asked, req.URL.Path)
					mu.Unlock()
					c.(*net.TCPConn).SetLinger(0)
				}).Port())
			} else {
				ln, err := net.Listen("tcp", a.String()+":0")
				if err != nil {
					t.Fatal(err)
				}
				port = ln.Addr().(*net.TCPAddr).Port
				ln.Close()
			}
			// The host's lookup waits until every URL is added: an idle
			// fetcher moves the fake clock on, and the unreachable origin
			// would fail five times in a row before the last pages came.
			gate := &gateResolver{Resolver: r.farm.Resolver(), open: make(chan struct{})}
			r.start(polite.Config{Resolver: gate})
			unreachable := "http://" + host + ":" + strconv.Itoa(port) + "/old"
			live := []string{r.url(host, "/"), r.url(host, "/1"), r.url(host, "/2"), r.url(host, "/3")}
			// The unreachable origin comes second, so its robots.txt is
			// first in the budget's queue.
			r.add(live[0], unreachable)
			r.add(live[1:]...)
			close(gate.open)
			res := r.results(len(live) + 1)
			for _, u := range live {
				if res[u].Err != nil || res[u].Status != http.StatusOK {
					t.Errorf("%s: %s; want it fetched", u, outcome(res[u]))
				}
			}
			if err := res[unreachable].Err; !errors.Is(err, polite.ErrFailuresInARow) || !isA[*polite.StoppedError](err) {
				t.Errorf("%s: %v; want the host stopped by five failures in a row", unreachable, err)
			}
			vs := r.farm.Audit().VisitsTo(host)
			if got, want := paths(vs), []string{politetest.RobotsPath, "/", "/1", "/2", "/3"}; !slices.Equal(got, want) {
				t.Errorf("the origin that answers was asked %q, want %q", got, want)
			}
			for i, g := range gaps(vs) {
				if g < polite.MinRest {
					t.Errorf("gap %d at the address: %v, want ≥ %v (R2.1)", i, g, polite.MinRest)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			// Its robots.txt: once at most before each request of the other
			// origin, then five in a row.
			if n := len(asked); reset && (n < polite.FailuresToStop || n > polite.FailuresToStop+len(vs) ||
				slices.ContainsFunc(asked, func(p string) bool { return p != politetest.RobotsPath })) {
				t.Errorf("the unreachable origin read %q; want robots.txt alone, %d to %d times",
					asked, polite.FailuresToStop, polite.FailuresToStop+len(vs))
			}
		})
	}
}
