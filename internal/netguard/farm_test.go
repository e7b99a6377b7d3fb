package netguard

import (
	"context"
	"net/netip"
	"testing"

	"github.com/politecrawler/polite/internal/clock"
	"github.com/politecrawler/polite/politetest"
)

// farmSite starts a loopback farm with one site and returns the farm and
// the site's address, at the farm's HTTP port, closing the farm when the
// test ends.
func farmSite(t *testing.T, name string) (*politetest.Farm, netip.AddrPort) {
	t.Helper()
	farm := politetest.New(clock.NewFake())
	t.Cleanup(func() { farm.Close() })
	if _, err := farm.AddSite(politetest.Site{Name: name}); err != nil {
		t.Fatal(err)
	}
	addrs, err := farm.Resolver().LookupNetIP(context.Background(), "ip", name)
	if err != nil {
		t.Fatal(err)
	}
	return farm, netip.AddrPortFrom(addrs[0], uint16(farm.Port(addrs[0])))
}
