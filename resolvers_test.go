package polite

import (
	"context"
	"net"
	"net/netip"
	"sync"

	"github.com/politecrawler/polite/politetest"
)

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
