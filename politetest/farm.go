package politetest

import (
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrClosed is returned by methods that would add to a farm after Close.
var ErrClosed = errors.New("politetest: closed")

// firstAddr is where NewAddr starts counting. It is well away from
// 127.0.0.1 so that a test can map a name to 127.0.0.1 (MapName) without
// ever meaning a farm host.
var firstAddr = netip.AddrFrom4([4]byte{127, 20, 0, 1})

// Farm is a set of virtual HTTP hosts on loopback addresses and the audit
// of every request they served. Make one with Start in a test, or New;
// add hosts with AddSite; point a crawler at it with Resolver and URL;
// read what it saw with Audit; Close it. Its methods are safe for
// concurrent use.
type Farm struct {
	clk   Clock
	fake  FakeClock // non-nil when clk is a fake: waits then advance it
	audit *Audit
	res   *Resolver
	srv   *http.Server
	done  chan struct{} // closed by Close; unblocks waiting handlers

	closeOnce sync.Once
	closeErr  error

	// serving counts Serve loops and active counts handlers. Both are only
	// incremented while holding mu with closed false, so Close, which sets
	// closed under mu before waiting, never races an Add against a Wait.
	serving sync.WaitGroup
	active  sync.WaitGroup

	hitsMu sync.Mutex
	hits   map[string]int // requests so far by host+path, for Page.Sequence

	mu     sync.RWMutex
	closed bool
	shared *endpoint  // the one listener of every address, after ShareOneListener
	next   netip.Addr // next address NewAddr tries; invalid when exhausted
	addrs  map[netip.Addr]*endpoint
	sites  map[string]*Site // by canonical name

	// sharedTLS is the one TLS listener of every address, after
	// ShareOneListener, once a TLS site is added (tls.go). Under mu.
	sharedTLS *endpoint
	pki       *pki // the CA and the leaves of TLS sites
}

// endpoint is one listening address and the sites registered on it.
// tlsLn and tlsPort are set once a TLS site is added on it (tls.go).
type endpoint struct {
	ln      net.Listener
	port    int
	tlsLn   net.Listener
	tlsPort int
	sites   map[string]*Site
}

// New returns an empty farm whose handlers and audit use clk; nil means
// the wall clock. With a FakeClock, every scripted wait advances the fake
// clock instead of sleeping. The caller closes the farm; Start does it for
// a test.
func New(clk Clock) *Farm {
	if clk == nil {
		clk = wallClock{}
	}
	f := &Farm{
		clk:   clk,
		audit: newAudit(clk),
		res:   newResolver(),
		done:  make(chan struct{}),
		next:  firstAddr,
		addrs: make(map[netip.Addr]*endpoint),
		sites: make(map[string]*Site),
		pki:   newPKI(),
	}
	f.fake, _ = clk.(FakeClock)
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serveHTTP), ErrorLog: log.New(quietHandshakes{}, "", log.LstdFlags)}
	return f
}

// Close closes every listener and connection, unblocks handlers that are
// waiting or hanging, and returns once every handler goroutine and Serve
// loop has returned. It is idempotent; later calls return the first result.
func (f *Farm) Close() error {
	f.closeOnce.Do(func() {
		f.mu.Lock()
		f.closed = true
		close(f.done)
		lns := make([]net.Listener, 0, len(f.addrs))
		for _, ep := range f.addrs {
			if ep.ln != nil {
				lns = append(lns, ep.ln)
			}
			if ep.tlsLn != nil {
				lns = append(lns, ep.tlsLn)
			}
		}
		for _, sh := range []*endpoint{f.shared, f.sharedTLS} {
			if sh != nil {
				lns = append(lns, sh.ln)
			}
		}
		f.mu.Unlock()

		f.closeErr = f.srv.Close()
		// A Serve loop that has not yet registered its listener with the
		// server is not closed by srv.Close; close every listener here too.
		// Errors are from listeners srv.Close already closed.
		for _, ln := range lns {
			_ = ln.Close()
		}
		f.serving.Wait()
		f.active.Wait()
	})
	return f.closeErr
}

// SetIdleTimeout makes the farm close a keep-alive connection that has
// been idle for d, as many servers do; zero (the default) keeps idle
// connections open until the client closes them. Call it before the
// farm serves: before ShareOneListener, NewAddr or AddSite.
func (f *Farm) SetIdleTimeout(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.srv.IdleTimeout = d
}

// ShareOneListener makes the farm serve every address it adds from now on
// through one listener, on one port, instead of a listener per address.
// The listener is bound to all local addresses, since Linux routes all of
// 127.0.0.0/8 to the loopback device but one socket can be bound to only
// one address or to all; a connection made to anything but one of the
// farm's addresses is closed at once. With 10,000 addresses this keeps
// the file descriptors of idle keep-alive connections within reach.
func (f *Farm) ShareOneListener() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if f.shared != nil {
		return nil
	}
	ln, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		return fmt.Errorf("politetest: listen on all addresses: %w", err)
	}
	f.shared = &endpoint{ln: ln, port: ln.Addr().(*net.TCPAddr).Port}
	f.serving.Add(1)
	go func() {
		defer f.serving.Done()
		_ = f.srv.Serve(farmOnly{ln, f})
	}()
	return nil
}

// farmOnly accepts only connections made to one of the farm's addresses.
type farmOnly struct {
	net.Listener
	f *Farm
}

func (l farmOnly) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if ap, err := netip.ParseAddrPort(c.LocalAddr().String()); err == nil {
			l.f.mu.RLock()
			_, ours := l.f.addrs[ap.Addr().Unmap()]
			l.f.mu.RUnlock()
			if ours {
				return c, nil
			}
		}
		c.Close()
	}
}

// NewAddr starts a listener (after ShareOneListener, only claims the
// address) on the next unused loopback address, counting up
// from 127.20.0.1 and skipping .0 and .255 in the last octet, on a port the
// OS chooses, and returns the address. A host needs an address of its own
// (AddSite does this when Site.Addr is zero); call NewAddr directly to put
// several names on one address.
func (f *Farm) NewAddr() (netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.newAddrLocked()
}

// newAddrLocked is NewAddr with f.mu held for writing.
func (f *Farm) newAddrLocked() (netip.Addr, error) {
	if f.closed {
		return netip.Addr{}, ErrClosed
	}
	a := f.next
	if !a.IsValid() {
		return netip.Addr{}, errors.New("politetest: loopback addresses exhausted")
	}
	// Advance first so that a failed listen does not retry the same
	// address forever.
	f.next = nextAddr(a)
	if f.shared != nil {
		f.addrs[a] = &endpoint{port: f.shared.port, sites: make(map[string]*Site)}
		return a, nil
	}
	ln, err := net.Listen("tcp", netip.AddrPortFrom(a, 0).String())
	if err != nil {
		return netip.Addr{}, fmt.Errorf("politetest: listen on %v: %w", a, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	f.addrs[a] = &endpoint{ln: ln, port: port, sites: make(map[string]*Site)}
	f.serving.Add(1)
	go func() {
		defer f.serving.Done()
		// Serve returns http.ErrServerClosed or a listener error on Close.
		_ = f.srv.Serve(ln)
	}()
	return a, nil
}

// nextAddr returns the address after a in 127.0.0.0/8 whose last octet is
// neither 0 nor 255 (which some tools treat as network and broadcast
// addresses), or the zero Addr when 127/8 is used up.
func nextAddr(a netip.Addr) netip.Addr {
	for {
		a = a.Next()
		if !a.Is4() || a.As4()[0] != 127 {
			return netip.Addr{}
		}
		if last := a.As4()[3]; last != 0 && last != 255 {
			return a
		}
	}
}

// Addrs returns the farm's listening addresses in the order NewAddr made them.
func (f *Farm) Addrs() []netip.Addr {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]netip.Addr, 0, len(f.addrs))
	for a := range f.addrs {
		out = append(out, a)
	}
	// Addresses are handed out in increasing order, so sorting restores
	// creation order.
	slices.SortFunc(out, netip.Addr.Compare)
	return out
}

// Port returns the listening port of addr, or 0 if the farm does not listen
// on addr.
func (f *Farm) Port(addr netip.Addr) int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if ep := f.addrs[addr.Unmap()]; ep != nil {
		return ep.port
	}
	return 0
}

// URL returns "http://<name>:<port><path>", where port is that of the
// address name resolves to. The port is left out when name resolves to no
// farm address (an unknown name, or a MapName entry pointing elsewhere).
func (f *Farm) URL(name, path string) string { return f.siteURL("http", f.Port, name, path) }

// siteURL writes a URL of name's site with the port portOf gives its
// address; none when that is 0.
func (f *Farm) siteURL(scheme string, portOf func(netip.Addr) int, name, path string) string {
	port := 0
	if addr, ok := f.res.lookup(canonHost(name)); ok {
		port = portOf(addr)
	}
	if port == 0 {
		return scheme + "://" + name + path
	}
	return scheme + "://" + net.JoinHostPort(name, strconv.Itoa(port)) + path
}

// Resolver returns the farm's name resolver: every site name, and every
// MapName entry, maps to its address.
func (f *Farm) Resolver() *Resolver { return f.res }

// MapName adds a resolver-only entry: name resolves to addr though no site
// of that name is served. Use it for names that must resolve to somewhere
// forbidden (127.0.0.1, 10.0.0.1) or to a farm address that will answer 421.
// It replaces any earlier mapping of name, including a site's.
func (f *Farm) MapName(name string, addr netip.Addr) {
	f.res.set(canonHost(name), addr.Unmap())
}

// Audit returns the farm's record of every request it served.
func (f *Farm) Audit() *Audit { return f.audit }

// ShortURL is a farm URL as a log line shows it: the host and path,
// without the scheme and the port the farm picked, which say nothing to a
// reader.
func ShortURL(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
	host, path, _ := strings.Cut(u, "/")
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i]
	}
	return host + "/" + path
}
