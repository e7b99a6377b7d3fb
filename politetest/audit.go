package politetest

import (
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"time"
)

// Visit is one request as the farm saw it.
type Visit struct {
	Addr netip.Addr // the farm address dialled
	Host string     // site name from r.Host, no port, lower-case
	// Authority is r.Host as the request sent it, port and case kept:
	// what a verifier of a signature over @authority reads.
	Authority string
	Path      string      // r.URL.RequestURI()
	Method    string      // request method
	Header    http.Header // a clone of the request headers
	Start     time.Time   // farm clock at handler entry
	// End is the farm clock when the handler finished (body fully written);
	// zero while the handler is still running.
	End time.Time
	// Overlap is set when another request on the same address was still in
	// the handler when this one started.
	Overlap bool
	// Written counts the body bytes the handler managed to write; Cut is
	// set when the client went away before the body was all written.
	Written int64
	Cut     bool

	// ProtoMajor is the request's HTTP major version: 1, or 2 for HTTP/2.
	ProtoMajor int
	// TLS is set when the request came over TLS; ServerName is then the
	// SNI name of its handshake, lower-case (empty if none was sent).
	TLS        bool
	ServerName string
}

// Audit records every request the farm serves, for checking politeness from
// the server's side. It is safe for concurrent use.
type Audit struct {
	clk Clock

	mu     sync.Mutex
	gen    uint64 // bumped by Reset, so visits in flight across it are not written back
	visits []Visit
	hellos []Hello
	// inflight counts handlers running per address. It is live state, so
	// two requests at the same fake instant still count as concurrent; it
	// survives Reset because those handlers are still running.
	inflight map[netip.Addr]int
}

// ticket identifies a visit in progress.
type ticket struct {
	gen  uint64
	i    int
	addr netip.Addr
}

func newAudit(clk Clock) *Audit {
	return &Audit{clk: clk, inflight: make(map[netip.Addr]int)}
}

// begin records the start of a request on addr.
func (a *Audit) begin(addr netip.Addr, host string, r *http.Request) ticket {
	v := Visit{Addr: addr, Host: host, Authority: r.Host, Path: r.URL.RequestURI(), Method: r.Method, Header: r.Header.Clone(),
		ProtoMajor: r.ProtoMajor}
	if r.TLS != nil {
		v.TLS, v.ServerName = true, canonHost(r.TLS.ServerName)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	// Start is read under the lock so that visits are appended in Start
	// order and the in-flight count matches what Start says.
	v.Start = a.clk.Now()
	n := a.inflight[addr]
	a.inflight[addr] = n + 1
	v.Overlap = n > 0
	a.visits = append(a.visits, v)
	return ticket{gen: a.gen, i: len(a.visits) - 1, addr: addr}
}

// wrote records how much of the body of t was written, and whether the
// client cut it short.
func (a *Audit) wrote(t ticket, n int, cut bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.gen == a.gen {
		a.visits[t.i].Written += int64(n)
		a.visits[t.i].Cut = a.visits[t.i].Cut || cut
	}
}

// end records the end of the request t.
func (a *Audit) end(t ticket) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := a.inflight[t.addr]; n > 1 {
		a.inflight[t.addr] = n - 1
	} else {
		// Deleting keeps the map as small as the set of busy addresses.
		delete(a.inflight, t.addr)
	}
	if t.gen == a.gen {
		a.visits[t.i].End = a.clk.Now()
	}
}

// Visits returns copies of all visits since the last Reset, ordered by
// Start (ties in arrival order).
func (a *Audit) Visits() []Visit {
	return a.filter(func(*Visit) bool { return true }, true)
}

// VisitsTo returns copies of the visits to host (case-insensitive), ordered
// as Visits.
func (a *Audit) VisitsTo(host string) []Visit {
	host = canonHost(host)
	return a.filter(func(v *Visit) bool { return v.Host == host }, true)
}

// Count returns the number of visits to host (case-insensitive).
func (a *Audit) Count(host string) int {
	host = canonHost(host)
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for i := range a.visits {
		if a.visits[i].Host == host {
			n++
		}
	}
	return n
}

// hello records a TLS handshake's ClientHello.
func (a *Audit) hello(h Hello) {
	a.mu.Lock()
	defer a.mu.Unlock()
	h.Time = a.clk.Now()
	a.hellos = append(a.hellos, h)
}

// Hellos returns copies of the TLS handshakes since the last Reset, in
// the order they came: one per TLS connection, whether or not a request
// followed on it.
func (a *Audit) Hellos() []Hello {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := slices.Clone(a.hellos)
	for i := range out {
		out[i].ALPN = slices.Clone(out[i].ALPN)
	}
	return out
}

// Reset forgets all visits and handshakes. Requests in flight stay
// counted for overlap detection but are not recorded when they end.
func (a *Audit) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.gen++
	a.visits = nil
	a.hellos = nil
}

// filter returns the matching visits sorted by Start. Headers are cloned
// only when cloneHeader is set, so Report can skip that cost.
func (a *Audit) filter(keep func(*Visit) bool, cloneHeader bool) []Visit {
	a.mu.Lock()
	var out []Visit
	for i := range a.visits {
		if keep(&a.visits[i]) {
			out = append(out, a.visits[i])
		}
	}
	a.mu.Unlock()
	if cloneHeader {
		for i := range out {
			out[i].Header = out[i].Header.Clone()
		}
	}
	// Appends happen in Start order already; the stable sort is a guard
	// for clocks that are not monotonic.
	slices.SortStableFunc(out, func(x, y Visit) int { return x.Start.Compare(y.Start) })
	return out
}
