// Package netguard is the network under the fetcher: an HTTP transport
// that dials only the address it is told in the request's context, refuses
// non-public addresses at the socket (R10.1), bounds each connection
// (R10.2) and always verifies TLS. It knows nothing of the scheduler.
package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// Bounds on one connection (R10.2). The wait for the response headers has
// no bound of its own: the caller's request context bounds the whole
// request, headers included, where a header timeout would start a second
// timer on every request. A connect has a bound of its own (see
// connectBound): net/http goes on dialling after the request that started
// the dial has ended.
const (
	// connectTimeout bounds a connect where the socket cannot.
	connectTimeout        = 10 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	maxResponseHeaderSize = 64 << 10
	// writeBufferSize holds most requests: a GET with the few headers
	// the fetcher sends. A longer one (a long URL, long validators) is
	// written in parts. The 4 KiB net/http would give each connection is
	// mostly unused, on every idle connection kept.
	writeBufferSize = 1 << 10
	// ReadBufferSize is each connection's read buffer, held for the
	// connection's life: 4 KiB by default came to 17 MiB of live heap at
	// BenchmarkRSS's ~4,400 connections. A longer status line or header
	// is read in parts, within maxResponseHeaderSize; only a chunk-size
	// line must fit it (a longer one fails the body, ErrLineTooLong).
	ReadBufferSize = 1 << 10
	// IdleConnTimeout closes a connection left idle that long.
	IdleConnTimeout = 90 * time.Second
)

// errNotPinned refuses a dial whose request carries no address: no DNS
// answer of net/http's own is ever dialled (R1.1).
var errNotPinned = errors.New("polite: refusing a dial without a pinned address")

// addrKey carries, in a request's context, the address the request must be
// sent to (WithAddr).
type addrKey struct{}

// WithAddr returns ctx telling the transport to dial ap and no other for
// the request (R1.1): the address checked is the address connected to.
func WithAddr(ctx context.Context, ap netip.AddrPort) context.Context {
	return context.WithValue(ctx, addrKey{}, ap)
}

// NewTransport builds the HTTP transport under the fetcher: no proxy, and
// a dialler that dials only the address given by WithAddr and refuses
// non-public ones at the socket unless allowPrivate (R10.1). The caller
// calls its RoundTrip itself, with no http.Client around it: no cookie
// jar, and no redirect followed inside net/http (R8.3).
//
// TLS trusts rootCAs, or the system's roots when it is nil, and nothing
// else of it is set: the certificate is always verified against the URL's
// host name, sent as SNI while the dial goes to the pinned address
// (R10.2). A TLSClientConfig turns off net/http's automatic HTTP/2;
// ForceAttemptHTTP2 turns it back on, and offers h2 by ALPN.
func NewTransport(allowPrivate bool, rootCAs *x509.CertPool) *http.Transport {
	timeout, bound := connectBound()
	d := &net.Dialer{
		Timeout: timeout,
		// Control sees the address actually dialled, after every layer
		// above has had its say: the last word on R10.1.
		Control: func(network, address string, c syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: cannot read dialled address %q", ErrPrivateAddress, address)
			}
			if err := CheckAddress(ap.Addr(), allowPrivate); err != nil {
				return err
			}
			if bound != nil {
				return bound(c)
			}
			return nil
		},
	}
	return &http.Transport{
		Proxy: nil, // never through a proxy: the address dialled is the one pinned
		DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
			ap, ok := ctx.Value(addrKey{}).(netip.AddrPort)
			if !ok || !ap.IsValid() {
				return nil, errNotPinned
			}
			_, port, err := net.SplitHostPort(address)
			if err != nil {
				return nil, err
			}
			if p, err := strconv.ParseUint(port, 10, 16); err != nil || uint16(p) != ap.Port() {
				return nil, fmt.Errorf("polite: refusing a dial to port %s for a request pinned to %v", port, ap)
			}
			return d.DialContext(ctx, network, ap.String())
		},
		TLSClientConfig: &tls.Config{
			RootCAs:    rootCAs,
			MinVersion: tls.VersionTLS12,
		},
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    tlsHandshakeTimeout,
		MaxResponseHeaderBytes: maxResponseHeaderSize,
		WriteBufferSize:        writeBufferSize,
		ReadBufferSize:         ReadBufferSize,
		MaxIdleConnsPerHost:    1, // one request in flight per address needs one connection
		IdleConnTimeout:        IdleConnTimeout,
	}
}

// TraceReuse returns ctx with a trace that notes whether the request went
// out on a connection kept from an earlier one. net/http calls GotConn in
// the goroutine of RoundTrip, before it returns.
func TraceReuse(ctx context.Context) (context.Context, *bool) {
	reused := new(bool)
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { *reused = info.Reused },
	}), reused
}
