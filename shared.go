package polite

import (
	"context"
	"net/netip"
	"time"
)

// Shared is politeness kept with other processes: Fetchers configured
// with one Shared (Config.Shared), in one process or on many machines,
// keep R1 and R2 over all of them, fetch each robots.txt once (R5.3),
// and stop a host refused to any of them in all (R3). Package redisshare
// implements it on Redis.
type Shared interface {
	Coordinator
	RobotsStore
	HostStore
}

// Coordinator decides, for every process sharing it, when a server
// address may be asked (R1, R2): before each request the fetcher takes
// the address, and after the response it gives it back with the rest.
// The fetcher fails closed: while Take returns an error no request is
// sent, and the URLs wait.
type Coordinator interface {
	// Take asks for ask.Addr before a request to it. Granted: the
	// address is the caller's until Rest, or until ask.Lease has passed
	// (a holder that died); else the Turn says why not.
	Take(ctx context.Context, ask Ask) (Turn, error)
	// Rest gives back a Turn that was granted: the address rests rest
	// from now, by the coordinator's clock. A Rest whose lease ended,
	// and was granted to another since, changes nothing (a fencing token).
	Rest(ctx context.Context, turn Turn, rest time.Duration) error
}

// Ask is what the fetcher asks a Coordinator before a request.
type Ask struct {
	Addr netip.Addr // the server address the request dials (R1.1)
	Host string     // the host of the URL: a host stopped by another process says so
	// Origin is set for a robots.txt request, "scheme://host:port": a
	// copy fetched by another process within RobotsMaxAge says so.
	Origin string
	// Lease is how long the address is the caller's at most: longer
	// than the request may take (Config.Timeout).
	Lease time.Duration
	// LeaseRest is the rest after a lease that ended without Rest: the
	// rest after a failure of a request that lasted the whole lease
	// (R2.2's cap, 30 s, or the floor or Crawl-delay if longer).
	LeaseRest time.Duration
	// Floor is the least rest that follows any request to the address
	// (R2.1): while another holds it, it cannot be free again sooner, so
	// the caller is told to wait that long, not to the lease's end.
	Floor time.Duration
	// More says this process has more requests queued at the address
	// behind this one. A Coordinator that lets a process own an address
	// while it has work there keeps it through the rest when More, and
	// gives it up with the rest when not.
	More bool
	// Wake, after a Turn not granted, may be called once, from any
	// goroutine, when the address may be asked again before the Turn's
	// Wait ends: the process that had it gave it up. The rest still holds.
	Wake func()
}

// Turn is a Coordinator's answer to an Ask.
type Turn struct {
	Granted bool
	Addr    netip.Addr
	// Token is the fencing token of a granted Turn: each grant of an
	// address has a larger one, and a Rest with an old one is ignored.
	Token int64
	// Wait, when not granted, is how long until the address may be asked
	// again: another process holds it, or it rests.
	Wait time.Duration
	// Stopped, when not granted, says the host was stopped by another
	// process, and why; Robots, that the origin's robots.txt was just
	// fetched by another: its copy is in the RobotsStore.
	Stopped string
	Robots  bool
}
