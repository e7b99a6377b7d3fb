package polite

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
	"syscall"
	"time"
)

// Bounds on one connection (R10.2). The wait for the response headers has
// no bound of its own: Config.Timeout bounds the whole request, headers
// included, with the worker's one timer (see requestContexts), where a
// header timeout would start a timer of its own on every request. A
// connect has a bound of its own (see connectBound): net/http goes on
// dialling after the request that started the dial has ended.
const (
	// connectTimeout bounds a connect where the socket cannot.
	connectTimeout        = 10 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	maxResponseHeaderSize = 64 << 10
	// writeBufferSize holds most requests: a GET with the few headers
	// the fetcher sends (see requestHeaders). A longer one (a long URL,
	// long validators) is written in parts. The 4 KiB net/http would give
	// each connection is mostly unused, on every idle connection kept.
	writeBufferSize = 1 << 10
	// readBufferSize is each connection's read buffer, held for the
	// connection's life, idle or not: 4 KiB by net/http's default, which
	// came to 17 MiB of live heap (35 MiB of RSS with the garbage
	// collector's headroom) at the ~4,400 connections of BenchmarkRSS. A
	// status line or header longer than the buffer is read in parts,
	// within maxResponseHeaderSize, and a body larger than the read
	// passes by it. One limit does follow it: net/http reads a chunk-size
	// line (the size and any chunk extensions) within the buffer, so a
	// line of 1 KiB or more fails the body (ErrLineTooLong), where 4 KiB
	// was the bound before.
	readBufferSize = 1 << 10
	// idleConnTimeout closes a connection left idle that long.
	idleConnTimeout = 90 * time.Second
)

// pinKey carries, in a request's context, the budget whose address the
// request must be sent to. The dialler connects to that address and no
// other (R1.1): a DNS answer cannot change between the check and the
// connection. The budget is carried, not its address, because a pointer
// fits in the context without an allocation; a budget's address never
// changes.
type pinKey struct{}

func withPin(ctx context.Context, b *budget) context.Context {
	return context.WithValue(ctx, pinKey{}, b)
}

// newTransport builds the HTTP transport under the fetcher: no proxy, and
// a dialler that dials only the pinned address and refuses non-public
// ones at the socket (R10.1). The fetcher calls its RoundTrip itself, with
// no http.Client around it: no cookie jar, and no redirect followed inside
// net/http (each hop is scheduled on its own, R8.3).
//
// TLS trusts rootCAs, or the system's roots when it is nil, and nothing
// else of it is set: the certificate is always verified against the URL's
// host name, sent as SNI while the dial goes to the pinned address
// (R10.2). A TLSClientConfig turns off net/http's automatic HTTP/2;
// ForceAttemptHTTP2 turns it back on, and offers h2 by ALPN.
func newTransport(allowPrivate bool, rootCAs *x509.CertPool) *http.Transport {
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
			if err := checkAddress(ap.Addr(), allowPrivate); err != nil {
				return err
			}
			if bound != nil {
				return bound(c)
			}
			return nil
		},
	}
	return &http.Transport{
		Proxy: nil, // never through a proxy: the address dialled is the budget's
		DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
			b, ok := ctx.Value(pinKey{}).(*budget)
			if !ok || b == nil {
				return nil, errors.New("polite: refusing a dial without a pinned address")
			}
			_, port, err := net.SplitHostPort(address)
			if err != nil {
				return nil, err
			}
			return d.DialContext(ctx, network, net.JoinHostPort(b.addr.String(), port))
		},
		TLSClientConfig: &tls.Config{
			RootCAs:    rootCAs,
			MinVersion: tls.VersionTLS12,
		},
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    tlsHandshakeTimeout,
		MaxResponseHeaderBytes: maxResponseHeaderSize,
		WriteBufferSize:        writeBufferSize,
		ReadBufferSize:         readBufferSize,
		MaxIdleConnsPerHost:    1, // one request in flight per budget needs one connection
		IdleConnTimeout:        idleConnTimeout,
	}
}

// keepAlive is what a budget's requests have shown of its server keeping
// a connection through the rest between them. A connection kept idle
// costs the fetcher its goroutines and buffers for the whole rest, ≥3 s
// for a page (R2.1), and many servers close one idle for less (1 s in
// BenchmarkRSS, 5 s for Apache's and Node's default). So the fetcher
// keeps one only while it is found open again: once a kept connection is
// gone at the next request, every later request to the address asks
// Connection: close, for the run, and the server is spared its idle one
// too. (At an address shared by several hosts, the next request may be
// another host's, which cannot take the connection either: net/http keeps
// them by host name.) In BenchmarkRSS, whose farm closes a connection
// idle 1 s, this took the median peak RSS from 186.1 to 170.2 MiB (7 runs
// each, alternated). Only the worker holding the budget touches it
// (R1.1); the scheduler's lock passes it on with the budget.
type keepAlive struct {
	kept   bool // the last response was read whole, its connection kept
	closes bool // a connection kept was gone at the next request
	// drained: nothing was queued behind the request at its address when
	// it was handed out, nor held for it (a robots.txt request's pages),
	// set by scheduler.next under its lock. Its connection would wait for
	// work that may never come, so it is closed. Counting robots.txt as
	// drained too spared BenchmarkRSS its idle connections of the
	// robots.txt round (median peak RSS 159.3 -> 153.7 MiB, 7 runs each,
	// on a busy machine), but made every host's first page connect again:
	// BenchmarkRequestCost went from 84.5 to 104.3 allocations a request
	// and its CPU ratio to the bare loop from 1.36 to 1.69.
	drained bool
}

// traceReuse returns ctx with a trace that notes whether the request went
// out on a connection kept from an earlier one. net/http calls GotConn in
// the goroutine of RoundTrip, before it returns.
func traceReuse(ctx context.Context) (context.Context, *bool) {
	reused := new(bool)
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { *reused = info.Reused },
	}), reused
}
