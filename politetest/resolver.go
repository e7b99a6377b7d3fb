package politetest

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
)

// Resolver answers name lookups for the farm's hosts, so a crawler under
// test can be pointed at the farm without touching real DNS. It has the
// shape of net.Resolver.LookupNetIP, and so is a polite.Config.Resolver.
// It is safe for concurrent use.
type Resolver struct {
	mu    sync.RWMutex
	names map[string]netip.Addr // by canonical name
}

func newResolver() *Resolver {
	return &Resolver{names: make(map[string]netip.Addr)}
}

// NewResolver returns a resolver of the given names, for a farm that runs
// in another process.
func NewResolver(names map[string]netip.Addr) *Resolver {
	r := newResolver()
	for name, a := range names {
		r.names[canonHost(name)] = a.Unmap()
	}
	return r
}

// LookupNetIP returns the address of host, matched case-insensitively and
// ignoring a trailing dot. An IP literal resolves to itself, as with
// net.Resolver. network is "ip", "ip4" or "ip6" ("" means "ip"); an address
// of the other family counts as not found. An unknown host gives a
// *net.DNSError with IsNotFound set.
func (r *Resolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if ctx != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	switch network {
	case "", "ip", "ip4", "ip6":
	default:
		return nil, net.UnknownNetworkError(network)
	}
	addr, err := netip.ParseAddr(host)
	if err == nil {
		addr = addr.Unmap()
	} else {
		var ok bool
		if addr, ok = r.lookup(canonHost(host)); !ok {
			return nil, notFound(host)
		}
	}
	if (network == "ip4" && !addr.Is4()) || (network == "ip6" && !addr.Is6()) {
		return nil, notFound(host)
	}
	return []netip.Addr{addr}, nil
}

func notFound(host string) error {
	return &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (r *Resolver) lookup(name string) (netip.Addr, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a, ok := r.names[name]
	return a, ok
}

func (r *Resolver) set(name string, addr netip.Addr) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names[name] = addr
}

// canonHost is the form names are keyed by: lower-case, no trailing dot.
func canonHost(name string) string {
	return strings.ToLower(strings.TrimSuffix(name, "."))
}

// hostOnly strips a port from a Host header value ("a.test:8080",
// "[::1]:80"), leaving the name or literal address.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// DialContext dials address ("host:port") at the address the farm's
// resolver gives host, so any net/http client reaches the farm's sites:
// &http.Transport{DialContext: farm.DialContext}.
func (f *Farm) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	family := "ip"
	switch network {
	case "tcp4":
		family = "ip4"
	case "tcp6":
		family = "ip6"
	}
	ips, err := f.res.LookupNetIP(ctx, family, host)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	return d.DialContext(ctx, network, net.JoinHostPort(ips[0].String(), port))
}
