package polite

import (
	"context"
	"errors"
	"net"
	"net/netip"
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
