package polite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Bounds on one connection (R10.2).
const (
	dialTimeout           = 10 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	responseHeaderTimeout = 30 * time.Second
	maxResponseHeaderSize = 64 << 10
)

// pinKey carries, in a request's context, the address its budget is keyed
// on. The dialler connects to that address and no other (R1.1): a DNS
// answer cannot change between the check and the connection.
type pinKey struct{}

func withPin(ctx context.Context, a netip.Addr) context.Context {
	return context.WithValue(ctx, pinKey{}, a)
}

// newTransport builds the HTTP transport under the fetcher: no proxy, and
// a dialler that dials only the pinned address and refuses non-public
// ones at the socket (R10.1). The fetcher calls its RoundTrip itself, with
// no http.Client around it: no cookie jar, and no redirect followed inside
// net/http (each hop is scheduled on its own, R8.3).
func newTransport(allowPrivate bool) *http.Transport {
	d := &net.Dialer{
		Timeout: dialTimeout,
		// Control sees the address actually dialled, after every layer
		// above has had its say: the last word on R10.1.
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: cannot read dialled address %q", ErrPrivateAddress, address)
			}
			return checkAddress(ap.Addr(), allowPrivate)
		},
	}
	return &http.Transport{
		Proxy: nil, // never through a proxy: the address dialled is the budget's
		DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
			pin, ok := ctx.Value(pinKey{}).(netip.Addr)
			if !ok {
				return nil, errors.New("polite: refusing a dial without a pinned address")
			}
			_, port, err := net.SplitHostPort(address)
			if err != nil {
				return nil, err
			}
			return d.DialContext(ctx, network, net.JoinHostPort(pin.String(), port))
		},
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    tlsHandshakeTimeout,
		ResponseHeaderTimeout:  responseHeaderTimeout,
		MaxResponseHeaderBytes: maxResponseHeaderSize,
		MaxIdleConnsPerHost:    1, // one request in flight per budget needs one connection
		IdleConnTimeout:        90 * time.Second,
	}
}
