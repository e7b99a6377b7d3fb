package polite_test

import (
	"context"
	"errors"
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
		if !errors.Is(got[u].Err, polite.ErrHostStopped) {
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
	if got := r.results(1)[g]; !errors.Is(got.Err, polite.ErrHostStopped) {
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
