package polite_test

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"testing"

	"github.com/politecrawler/polite"
)

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
