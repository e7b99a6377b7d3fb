package polite

import (
	"net/netip"
	"net/url"
	"strconv"
)

// dialAddr is where a request for u goes: its budget's address, at the
// URL's port (R1.1). The transport (netguard.WithAddr) dials it and no
// other, so the address the budget is keyed on is the one connected to.
func dialAddr(a netip.Addr, u *url.URL) netip.AddrPort {
	port := uint64(80)
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		port, _ = strconv.ParseUint(p, 10, 16) // checked by checkURL; 0 is refused at the dial
	}
	return netip.AddrPortFrom(a, uint16(port))
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
