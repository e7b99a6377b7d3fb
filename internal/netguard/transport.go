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
	"sync/atomic"
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
			if sentAlready(ctx) {
				return nil, ErrResent
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

// ErrResent refuses net/http's own second sending of a request. When a
// kept connection fails after an idempotent request was written, net/http
// sends it again at once on a new connection: to a server that read it
// and then dropped the connection without an answer, a second request with
// no rest after a failure (R2.1, R2.5). The dialler refuses that dial, and
// the request fails: the fetcher backs the address off, and asks again
// after the backoff (R11.3) as a request of its own.
var ErrResent = errors.New("polite: the server dropped the connection after the request, with no answer; net/http's resend at once is refused")

// Exchange is what a request's trace saw of its connection: whether the
// request went out on a connection kept from an earlier one, and whether
// it was written whole.
type Exchange struct {
	reused  bool        // set by GotConn, in the goroutine of RoundTrip
	written atomic.Bool // set by WroteRequest, in the connection's write loop
}

// Reused reports whether the request went out on a kept connection. It is
// read once RoundTrip has returned.
func (e *Exchange) Reused() bool { return e.reused }

// exchangeKey carries a request's Exchange in its context, for the dialler.
type exchangeKey struct{}

// Trace returns ctx with a trace of the request's Exchange. A request
// written whole is not sent again by net/http: its dialler refuses a dial
// for it (ErrResent). A write that failed sent nothing the server could
// act on, and net/http may send the request again on a new connection.
func Trace(ctx context.Context) (context.Context, *Exchange) {
	e := &Exchange{}
	ctx = context.WithValue(ctx, exchangeKey{}, e)
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { e.reused = info.Reused },
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				e.written.Store(true)
			}
		},
	}), e
}

// sentAlready reports whether a dial is for a request the transport wrote
// whole already (Trace).
func sentAlready(ctx context.Context) bool {
	e, ok := ctx.Value(exchangeKey{}).(*Exchange)
	return ok && e.written.Load()
}
