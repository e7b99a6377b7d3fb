// Package redisshare keeps polite's rules across processes and machines
// on Redis: every Fetcher whose Config.Shared is a Shared on the same
// Redis (one server, or a Redis Cluster) and Prefix keeps one request in
// flight per server address and its rest over all of them (R1, R2, R12),
// fetches each robots.txt once (R5.3), and stops a host refused to any of
// them in all (R3).
//
// # Ownership
//
// A process with work for an address claims it: the address is the
// process's for a lease, by Redis's clock, and while it is, the process
// keeps the rests between its requests itself, asking Redis nothing. It
// renews the leases running short every beat, in one pipeline per
// server. It gives the address up with the end of its rest (the release)
// when it has nothing more queued there, or, when another process waits
// for it, once it has held it Options.Hold. A process that finds an
// address owned is a waiter: it is told on its channel when the address
// is given up, and it is kept for the first waiter for a moment, so
// that no process starves; meanwhile the process works on other
// addresses. Before each request the owner checks, on its own monotonic
// clock, that its lease has the request's timeout and a margin left and
// that its server answered within Silence, and renews first if not: a
// process paused past its lease (SIGSTOP, a long GC) sends nothing until
// it owns the address again. A process that dies leaves its addresses to
// no one until their leases end, then they rest as after a failure.
//
// The rests of R2 carry over from owner to owner: the next owner's first
// request comes after the last owner's rest. A fencing token makes a late
// release from an owner whose lease ended change nothing. While Redis
// cannot be reached, no request is sent (fail closed); a Redis that
// restarted without its data holds every address for a grace period in
// which each process writes back the leases and rests it knows.
//
// Across runs of a crawl, with several URLs a host, this costs a few
// calls an address, not a call a request: see the README's "Beyond one
// machine" for what was measured.
//
// # Redis
//
// New takes any go-redis client: a redis.Client of one primary, a
// redis.ClusterClient, or a redis.FailoverClient (Sentinel), with ACL
// users and TLS as the client is configured. Every key of an address's
// scripts shares the address as its hash tag, so each is one slot's call
// on a Cluster. Redis must not evict keys: New refuses a server whose
// maxmemory-policy may (see Example_cluster and the others).
//
// The package imports the Redis client; the core package polite does not.
package redisshare

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultPrefix begins every key when Options.Prefix is empty.
const DefaultPrefix = "polite:"

// DefaultHold is how long a process keeps an address another process
// waits for, when Options.Hold is zero.
const DefaultHold = time.Minute

// Grace is how long a slot of Redis that lost its data holds every
// address it has no record of, from the first call that finds it empty:
// the processes sharing it write back what they knew meanwhile. A fresh
// server pays it once.
const Grace = 2 * time.Second

// ErrClosed is returned by every method after Close.
var ErrClosed = errors.New("redisshare: closed")

// ErrEvicting is returned by New for a Redis whose maxmemory-policy may
// evict keys: an address's key evicted mid-lease would let two requests
// go to one server at once.
var ErrEvicting = errors.New("redisshare: Redis may evict keys (maxmemory-policy must be noeviction)")

// Options configure a Shared.
type Options struct {
	// Prefix begins every key; processes share the rules when they use
	// the same Redis and Prefix. Empty: DefaultPrefix.
	Prefix string
	// Hold is how long a process keeps an address while another waits
	// for it, before it gives it up after its next request. Zero:
	// DefaultHold.
	Hold time.Duration
	// Logger receives the notices: Redis lost its data, its policy could
	// not be read. Nil: slog.Default().
	Logger *slog.Logger
}

// Shared is a polite.Shared on Redis: Config.Shared of every Fetcher
// that shares the rules. It is safe for concurrent use.
type Shared struct {
	rdb    redis.UniversalClient
	prefix string
	me     string // this Shared's name in Redis, as an owner and a waiter
	hold   time.Duration
	logger *slog.Logger

	roundTrips, commands atomic.Int64

	mu       sync.Mutex
	lanes    map[string]*lane
	owned    map[netip.Addr]*ownership
	waiting  map[netip.Addr]*waiter
	resting  map[netip.Addr]restMark // rests given back, to write back if Redis loses its data
	owed     map[netip.Addr]owedRelease
	stopped  map[string]stopNotice // hosts stopped by other processes
	hosts    recent[netip.Addr]    // the address each host was last asked on
	claiming map[netip.Addr]bool   // claims in flight
	// releasing: releases in flight; owed, those that failed.
	releasing map[netip.Addr]bool
	// robotsHere: the origins whose robots.txt this process fetched.
	robotsHere recent[time.Time]
	epochs     map[uint16]*slotSeen // what is known of each slot's epoch (restore.go)
	closed     bool

	notices *redis.PubSub
	done    chan struct{}
	wg      sync.WaitGroup
}

// New returns a Shared on rdb, which the caller keeps and closes after
// Close. It reads rdb's maxmemory-policy (of every master of a Cluster)
// and returns ErrEvicting for one that may evict keys; where CONFIG GET
// is not permitted (managed Redis) it logs once what to check. It
// subscribes to this Shared's channel before it returns.
func New(rdb redis.UniversalClient, opt Options) (*Shared, error) {
	s := &Shared{rdb: rdb, prefix: opt.Prefix, hold: opt.Hold, logger: opt.Logger,
		lanes: map[string]*lane{}, owned: map[netip.Addr]*ownership{}, waiting: map[netip.Addr]*waiter{},
		resting: map[netip.Addr]restMark{}, owed: map[netip.Addr]owedRelease{}, stopped: map[string]stopNotice{},
		epochs: map[uint16]*slotSeen{}, claiming: map[netip.Addr]bool{}, releasing: map[netip.Addr]bool{}, done: make(chan struct{})}
	if s.prefix == "" {
		s.prefix = DefaultPrefix
	}
	if s.hold <= 0 {
		s.hold = DefaultHold
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	var id [8]byte
	rand.Read(id[:])
	s.me = hex.EncodeToString(id[:])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.checkPolicy(ctx); err != nil {
		return nil, err
	}
	if err := s.subscribe(ctx); err != nil {
		return nil, fmt.Errorf("redisshare: subscribing to its channel: %w", err)
	}
	return s, nil
}

// Close gives up every address this Shared owns, each with its rest, and
// stops its lanes; it does not close the client. Every method returns
// ErrClosed after it.
func (s *Shared) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for a, o := range s.owned {
		o.lane.enqueue(s.releaseCallLocked(releaseOf{a, o.token, max(time.Until(o.restEnds), 0)}, o.lane))
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	s.flushAll(ctx)
	cancel()
	close(s.done)
	s.notices.Close()
	s.wg.Wait()
	return nil
}

// Calls counts the round trips to Redis this Shared has made: a
// pipeline is one.
func (s *Shared) Calls() int64 { return s.roundTrips.Load() }

// Commands counts the commands this Shared has sent Redis, each script
// of a pipeline one.
func (s *Shared) Commands() int64 { return s.commands.Load() }

func (s *Shared) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// The keys. An address's all share its tag; its slot's epoch key a tag
// of the same slot (slots.go).
func addrTag(a netip.Addr) string                { return a.Unmap().String() }
func (s *Shared) addrKey(a netip.Addr) string    { return s.prefix + "a:{" + addrTag(a) + "}" }
func (s *Shared) waitersKey(a netip.Addr) string { return s.prefix + "w:{" + addrTag(a) + "}" }
func (s *Shared) stopsKey(a netip.Addr) string   { return s.prefix + "s:{" + addrTag(a) + "}" }
func (s *Shared) marksKey(a netip.Addr) string   { return s.prefix + "o:{" + addrTag(a) + "}" }
func (s *Shared) epochKey(a netip.Addr) string {
	return s.prefix + "e:{" + epochTag(addrTag(a)) + "}"
}
func (s *Shared) hostKey(h string) string   { return s.prefix + "h:{" + h + "}" }
func (s *Shared) robotsKey(o string) string { return s.prefix + "r:{" + o + "}" }
func (s *Shared) refusalsKey() string       { return s.prefix + "refusals" }
func (s *Shared) channel(me string) string  { return s.prefix + "p:" + me }
func (s *Shared) stopsChannel() string      { return s.prefix + "stops" }

// laneOf is the lane of the server that holds key: a Cluster's master
// for its slot, or the one server of any other client.
func (s *Shared) laneOf(key string) *lane {
	name := ""
	if c, ok := s.rdb.(*redis.ClusterClient); ok {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		if m, err := c.MasterForKey(ctx, key); err == nil {
			name = m.Options().Addr
		}
		cancel()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lanes[name]
	if l == nil {
		l = &lane{s: s, name: name, kick: make(chan struct{}, 1)}
		s.lanes[name] = l
		if !s.closed {
			s.wg.Add(1)
			go l.run()
		}
	}
	return l
}

// flushAll waits until every lane has sent what is queued now.
func (s *Shared) flushAll(ctx context.Context) {
	s.mu.Lock()
	lanes := make([]*lane, 0, len(s.lanes))
	for _, l := range s.lanes {
		lanes = append(lanes, l)
	}
	s.mu.Unlock()
	for _, l := range lanes {
		l.do(ctx, &call{queue: func(ctx context.Context, p redis.Pipeliner) redis.Cmder { return p.Echo(ctx, "") }})
	}
}
