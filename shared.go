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

// Coordinator decides, for every process sharing it, when a server address
// may be asked (R12): the fetcher takes the address before each request and
// gives it back with the rest. While Take fails, no request is sent.
type Coordinator interface {
	// Take asks for ask.Addr: granted, it is the caller's until Rest or
	// until ask.Lease passes; else the Turn says why not.
	Take(ctx context.Context, ask Ask) (Turn, error)
	// Rest gives back a granted Turn, the address resting rest from now by
	// the coordinator's clock; a Turn whose lease ended changes nothing.
	Rest(ctx context.Context, turn Turn, rest time.Duration) error
}

// Ask is what the fetcher asks a Coordinator before a request.
type Ask struct {
	Addr      netip.Addr    // the server address the request dials (R1.1)
	Host      string        // the URL's host, to learn of a stop elsewhere
	Origin    string        // for a robots.txt request, "scheme://host:port"
	Lease     time.Duration // the longest the address is the caller's: above Config.Timeout
	LeaseRest time.Duration // the rest after a lease that ended without Rest
	Floor     time.Duration // the least rest after any request to the address (R2.1)
	More      bool          // more requests of this process wait at the address
	// Wake, after a Turn not granted, may be called once, from any
	// goroutine, when the address may be asked again before Turn.Wait.
	Wake func()
}

// Turn is a Coordinator's answer to an Ask.
type Turn struct {
	Granted bool
	Addr    netip.Addr
	Token   int64         // the fencing token: larger with each grant of the address
	Wait    time.Duration // not granted: how long until the address may be asked again
	Stopped string        // not granted: why another process stopped the host
	Robots  bool          // not granted: another fetched the origin's robots.txt just now
}
