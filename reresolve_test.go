package polite

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/farm"
)

// R1.1: a host is looked up once per robots period. Within 24 h its
// pages go to the address found first; when its robots.txt is due again,
// the host is looked up again first, and the refresh and the pages after
// it go to the address the name has by then.
func TestHostResolvedOncePerRobotsPeriod(t *testing.T) {
	r := newRig(t)
	h := r.site(farm.Site{Name: "moving.test"})
	first := r.farm.Resolver()
	res := &flakyResolver{farm: first, tries: map[string]int{}}
	r.start(Config{AllowPrivateNetworks: true, Resolver: res}, hooks{})
	lookups := func() int {
		res.mu.Lock()
		defer res.mu.Unlock()
		return res.tries[h]
	}
	fetch := func(path string) *Result {
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
	var after []farm.Visit
	for _, v := range r.farm.Audit().Visits() {
		if v.Addr == newAddr {
			after = append(after, v)
		}
	}
	if len(after) != 2 || after[0].Path != farm.RobotsPath || after[1].Path != "/c" {
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
	farm *farm.Resolver
	gone atomic.Bool
}

func (r *goneResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if r.gone.Load() {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return r.farm.LookupNetIP(ctx, network, host)
}

// R1.1, R11.1: a name that no longer exists when its host is looked up
// again answers the URLs that waited for the lookup, and nothing more is
// asked of the old address.
func TestHostGoneAtTheNextLookup(t *testing.T) {
	r := newRig(t)
	h := r.site(farm.Site{Name: "fading.test"})
	res := &goneResolver{farm: r.farm.Resolver()}
	r.start(Config{AllowPrivateNetworks: true, Resolver: res}, hooks{})
	a, b := r.farm.URL(h, "/a"), r.farm.URL(h, "/b")
	r.add(a)
	if got := r.results(1)[a]; got.Err != nil {
		t.Fatalf("before: %v", got.Err)
	}
	before := len(r.farm.Audit().Visits())
	res.gone.Store(true)
	r.clk.Advance(25 * time.Hour)
	r.add(b)
	if got := r.results(1)[b]; !errors.Is(got.Err, ErrUnresolved) {
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
func TestMoveLeavesNoConnectionToTheOldAddress(t *testing.T) {
	r := newRig(t)
	if err := r.farm.ShareOneListener(); err != nil {
		t.Fatal(err)
	}
	h := r.site(farm.Site{Name: "keepalive.test"})
	r.start(Config{AllowPrivateNetworks: true}, hooks{})
	a, c := r.farm.URL(h, "/a"), r.farm.URL(h, "/c")
	r.add(a)
	r.results(1)
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
	if len(vs) != 4 {
		t.Fatalf("%d visits, want robots.txt and /a, then robots.txt and /c", len(vs))
	}
	for _, v := range vs[2:] {
		if v.Addr != newAddr {
			t.Errorf("%s after the move reached %v, want %v", v.Path, v.Addr, newAddr)
		}
	}
}

// R1.1, R3.1: a refusal from the old address, in flight while the host
// moved, stops the host's URLs that moved to the new address with it.
func TestStopAfterMove(t *testing.T) {
	r := newRig(t)
	if err := r.farm.ShareOneListener(); err != nil {
		t.Fatal(err)
	}
	gate, entered := make(chan struct{}), make(chan string, 1)
	h := r.site(farm.Site{Name: "refuser.test", Pages: map[string]farm.Page{
		"/p1": {Status: 403, Gate: gate, Entered: entered},
	}})
	newAddr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	atNew := make(chan struct{}, 8)
	r.start(Config{AllowPrivateNetworks: true, OnRequest: func(q Request) {
		if q.Addr == newAddr {
			atNew <- struct{}{}
		}
	}}, hooks{})
	r.add(r.farm.URL(h, "/a"))
	r.results(1)
	p1, p2, p3, nu := r.farm.URL(h, "/p1"), r.farm.URL(h, "/p2"), r.farm.URL(h, "/p3"), r.farm.URL(h, "/new")
	r.add(p1, p2, p3)
	<-entered // p1 is held in flight at the old address; p2 and p3 wait behind it
	r.farm.MapName(h, newAddr)
	r.clk.Advance(25 * time.Hour)
	r.add(nu) // robots.txt is due again: the host is looked up and moves
	<-atNew   // robots.txt answered at the new address
	close(gate)
	got := r.results(4)
	for _, u := range []string{p2, p3, nu} {
		if !errors.Is(got[u].Err, ErrHostStopped) {
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
	r := newRig(t)
	fail := farm.Page{Status: 500}
	h := r.site(farm.Site{Name: "failing.test", Pages: map[string]farm.Page{
		farm.RobotsPath: {Sequence: []farm.Page{{Body: []byte("User-agent: *\nAllow: /\n")}, {Status: 500}}},
		"/f1":           fail, "/f2": fail, "/f3": fail, "/f4": fail,
	}})
	r.start(Config{AllowPrivateNetworks: true}, hooks{rand: func() float64 { return 0 }})
	r.add(r.farm.URL(h, "/a"))
	r.results(1)
	r.clk.Advance(24*time.Hour - 30*time.Second)
	r.add(r.farm.URL(h, "/f1"), r.farm.URL(h, "/f2"), r.farm.URL(h, "/f3"), r.farm.URL(h, "/f4"))
	r.results(4)
	g := r.farm.URL(h, "/g")
	r.add(g) // past 24 h: looked up again, then robots.txt fails: the fifth
	if got := r.results(1)[g]; !errors.Is(got.Err, ErrHostStopped) {
		t.Errorf("/g: %v, want the host stopped after five failures in a row", got.Err)
	}
}

// heldResolver answers a name's first lookup, and holds the later ones
// until release is closed or their context ends.
type heldResolver struct {
	farm    *farm.Resolver
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
	r := newRig(t)
	h := r.site(farm.Site{Name: "waiting.test"})
	res := &heldResolver{farm: r.farm.Resolver(), release: make(chan struct{}), held: make(chan struct{})}
	r.start(Config{AllowPrivateNetworks: true, Resolver: res}, hooks{})
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
		if !errors.Is(x.Err, ErrClosed) {
			t.Errorf("%s: %v, want ErrClosed", x.URL, x.Err)
		}
	}
}
