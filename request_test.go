package polite_test

import (
	"context"
	"net/http"
	"net/netip"
	"sync"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R4.1, R8.1, R8.2: what the server sees is an honest, minimal GET: the
// exact default User-Agent, no From without a contact, an Accept asking for
// HTML, and never a Cookie or Authorization, even after a Set-Cookie.
func TestRequestsAreHonestAndMinimal(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "cookie.test", Default: func(string) politetest.Page {
		return politetest.Page{Header: http.Header{"Set-Cookie": {"session=abc; Path=/"}}}
	}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	r.add(r.pages(h, 3)...)
	r.results(3)
	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Method != http.MethodGet {
			t.Errorf("%s: method %s", v.Path, v.Method)
		}
		if ua := v.Header.Get("User-Agent"); ua != "PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)" {
			t.Errorf("%s: User-Agent %q", v.Path, ua)
		}
		for _, k := range []string{"From", "Cookie", "Authorization", "Referer"} {
			if got := v.Header.Get(k); got != "" {
				t.Errorf("%s: %s: %q sent", v.Path, k, got)
			}
		}
		if a := v.Header.Get("Accept"); a != "text/html,application/xhtml+xml;q=0.9" && v.Path != politetest.RobotsPath {
			t.Errorf("%s: Accept %q", v.Path, a)
		}
	}
}

// R4.2: a contact goes in the User-Agent and in From; a custom name is
// the product token sent.
func TestContactIsSent(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "contact.test"})
	r.start(polite.Config{AllowPrivateNetworks: true, Name: "acme-indexer", Version: "2.0", InfoURL: "https://acme.example/bot", Contact: "bot@acme.example"})
	r.add(r.farm.URL(h, "/"))
	r.results(1)
	v := r.farm.Audit().VisitsTo(h)[0]
	if ua := v.Header.Get("User-Agent"); ua != "acme-indexer/2.0 (+https://acme.example/bot; bot@acme.example)" {
		t.Errorf("User-Agent %q", ua)
	}
	if from := v.Header.Get("From"); from != "bot@acme.example" {
		t.Errorf("From %q", from)
	}
}

// flipResolver answers the first lookup of a name with one address and
// every later one with another, counting lookups: a DNS answer that
// changes between the check and the connection.
type flipResolver struct {
	first, later netip.Addr
	mu           sync.Mutex
	lookups      map[string]int
}

func (f *flipResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups[host]++
	if f.lookups[host] == 1 {
		return []netip.Addr{f.first}, nil
	}
	return []netip.Addr{f.later}, nil
}

// R1.1: a host is resolved once, and every request to it is dialled to
// that address (pinned), whatever the resolver says later.
func TestAddressIsPinned(t *testing.T) {
	r := newFarmRig(t)
	good, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	other, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	h := r.site(politetest.Site{Name: "pinned.test", Addr: good})
	res := &flipResolver{first: good, later: other, lookups: map[string]int{}}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res})
	r.add(r.pages(h, 3)...)
	for u, got := range r.results(3) {
		if got.Err != nil || got.Addr != good {
			t.Errorf("%s: %v via %v", u, got.Err, got.Addr)
		}
	}
	if res.lookups[h] != 1 {
		t.Errorf("%d lookups of %s, want 1", res.lookups[h], h)
	}
	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Addr != good {
			t.Errorf("%s was dialled at %v, not the pinned %v", v.Path, v.Addr, good)
		}
	}
}
