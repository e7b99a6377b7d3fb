// Package redisshare keeps polite's rules across processes and machines
// on one Redis server: every Fetcher whose Config.Shared is a Shared on
// the same server and Prefix keeps one request in flight per address and
// its rest over all of them (R1, R2), fetches each robots.txt once
// (R5.3), and stops a host refused to any of them in all (R3).
//
// Before a request, a fetcher takes the address with a lease longer than
// its request may take; after the response it gives the address back
// with the rest, which Redis keeps by its own clock (TIME), so the
// machines' clocks cannot shorten it. Each is one call, a Lua script. A
// fencing token makes a late give-back from a holder whose lease ended
// change nothing, and an address whose holder died rests as after a
// failure once its lease ends. While Redis cannot be reached, no request
// is sent (polite fails closed); a Redis that restarted without its data
// holds every address for a grace period in which each process writes
// back the leases and rests it knows.
//
// The package imports the Redis client; the core package polite does not.
package redisshare

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/politecrawler/polite"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix begins every key when Options.Prefix is empty.
const DefaultPrefix = "polite:"

// Grace is how long a Redis that lost its data holds every address it has
// no record of, from the first call that finds it empty: the processes
// sharing it write back what they knew meanwhile (they look every
// watchEvery while they hold anything). A fresh server pays it once.
const Grace = 2 * time.Second

// watchEvery is how often a Shared that holds leases or knows rests
// looks whether Redis lost its data.
const watchEvery = 500 * time.Millisecond

// ErrClosed is returned by every method after Close.
var ErrClosed = errors.New("redisshare: closed")

// Options configure a Shared.
type Options struct {
	// Prefix begins every key; processes share the rules when they use
	// the same server and Prefix. Empty: DefaultPrefix.
	Prefix string
	// Logger receives the notice that Redis lost its data. Nil:
	// slog.Default().
	Logger *slog.Logger
}

// Shared is a polite.Shared on Redis: Config.Shared of every Fetcher
// that shares the rules. It is safe for concurrent use.
type Shared struct {
	rdb    redis.UniversalClient
	prefix string
	logger *slog.Logger
	calls  atomic.Int64

	mu     sync.Mutex
	epoch  string             // the epoch last seen; "" before the first reply
	known  map[string]knownAt // what this process holds or knows, by address key
	closed bool

	// owedRecords are stops (SaveHost, AddRefusal) that failed to reach
	// Redis, sent again by the watch until they do: the other processes
	// learn of a stop from them.
	owedRecords []func(context.Context) error

	lost chan struct{} // a reply showed another epoch: restore now
	done chan struct{} // closed by Close
	wg   sync.WaitGroup
}

// knownAt is what a Shared remembers of one address, to write back if
// Redis loses its data: a lease it holds, and the end of its last rest,
// on this machine's monotonic clock; owed says the give-back of the lease
// did not reach Redis, and is sent again while the lease lasts.
type knownAt struct {
	token     int64
	leaseEnds time.Time // zero once given back
	lrest     time.Duration
	restEnds  time.Time
	owed      bool
}

// New returns a Shared on rdb, which the caller keeps and closes after
// Close. rdb is a go-redis client of one primary, with its append-only
// file synced at every write (see the README, "How to run it for real").
// A failover client works too, but a replica that had not caught up
// loses the rests written last, as a crash with a lagging sync would.
func New(rdb redis.UniversalClient, opt Options) *Shared {
	s := &Shared{rdb: rdb, prefix: opt.Prefix, logger: opt.Logger,
		known: make(map[string]knownAt), lost: make(chan struct{}, 1), done: make(chan struct{})}
	if s.prefix == "" {
		s.prefix = DefaultPrefix
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	s.wg.Add(1)
	go s.watch()
	return s
}

// Close stops the Shared's watch; it does not close the client. Every
// method returns ErrClosed after it.
func (s *Shared) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	close(s.done)
	s.wg.Wait()
	return nil
}

// Calls counts the calls to Redis this Shared has made.
func (s *Shared) Calls() int64 { return s.calls.Load() }

func (s *Shared) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (s *Shared) addrKey(a netip.Addr) string { return s.prefix + "a:{" + a.Unmap().String() + "}" }
func (s *Shared) hostKey(h string) string     { return s.prefix + "h:" + h }
func (s *Shared) robotsKey(o string) string   { return s.prefix + "r:" + o }
func (s *Shared) epochKey() string            { return s.prefix + "epoch" }
func (s *Shared) refusalsKey() string         { return s.prefix + "refusals" }

// Take asks for ask.Addr before a request (polite.Coordinator).
func (s *Shared) Take(ctx context.Context, ask polite.Ask) (polite.Turn, error) {
	if s.isClosed() {
		return polite.Turn{}, ErrClosed
	}
	robotsAge := int64(0)
	if ask.Origin != "" {
		robotsAge = polite.RobotsMaxAge.Milliseconds()
	}
	key := s.addrKey(ask.Addr)
	s.calls.Add(1)
	r, err := takeScript.Run(ctx, s.rdb,
		[]string{key, s.hostKey(ask.Host), s.robotsKey(ask.Origin), s.epochKey()},
		ask.Lease.Milliseconds(), ask.LeaseRest.Milliseconds(), robotsAge, Grace.Milliseconds(),
		max(ask.Floor, time.Millisecond).Milliseconds()).Slice()
	if err != nil {
		return polite.Turn{}, fmt.Errorf("redisshare: take %s: %w", ask.Addr, err)
	}
	if len(r) != 3 {
		return polite.Turn{}, fmt.Errorf("redisshare: take %s: reply %v", ask.Addr, r)
	}
	kind, _ := r[0].(string)
	n, _ := r[1].(int64)
	s.sawEpoch(fmt.Sprint(r[2]))
	turn := polite.Turn{Addr: ask.Addr}
	switch kind {
	case "granted":
		turn.Granted, turn.Token = true, n
		s.remember(key, func(k *knownAt) {
			k.token, k.leaseEnds, k.lrest, k.owed = n, time.Now().Add(ask.Lease), ask.LeaseRest, false
		})
	case "wait":
		turn.Wait = time.Duration(n) * time.Millisecond
	case "stopped":
		turn.Stopped = fmt.Sprint(r[1])
		if turn.Stopped == "" {
			turn.Stopped = "stopped"
		}
	case "robots":
		turn.Robots = true
	default:
		return polite.Turn{}, fmt.Errorf("redisshare: take %s: reply %v", ask.Addr, r)
	}
	return turn, nil
}

// Rest gives back a granted Turn: the address rests rest from now, by
// Redis's clock (polite.Coordinator). A Turn whose lease ended and went
// on to another changes nothing. A give-back that fails is sent again,
// with what is left of the rest, once Redis answers, while the lease
// lasts: the address need not wait for the lease's end.
func (s *Shared) Rest(ctx context.Context, turn polite.Turn, rest time.Duration) error {
	if s.isClosed() {
		return ErrClosed
	}
	key := s.addrKey(turn.Addr)
	s.remember(key, func(k *knownAt) { k.restEnds = time.Now().Add(rest) })
	err := s.giveBack(ctx, key, turn.Token, rest)
	s.remember(key, func(k *knownAt) {
		if k.token == turn.Token {
			k.owed = err != nil
			if err == nil {
				k.leaseEnds = time.Time{}
			}
		}
	})
	if err != nil {
		return fmt.Errorf("redisshare: rest %s: %w", turn.Addr, err)
	}
	return nil
}

// giveBack runs restScript for a lease's token.
func (s *Shared) giveBack(ctx context.Context, key string, token int64, rest time.Duration) error {
	s.calls.Add(1)
	r, err := restScript.Run(ctx, s.rdb, []string{key, s.epochKey()},
		strconv.FormatInt(token, 10), rest.Milliseconds()).Slice()
	if err != nil {
		return err
	}
	if len(r) == 2 {
		s.sawEpoch(fmt.Sprint(r[1]))
	}
	return nil
}

// remember changes what this process knows of an address.
func (s *Shared) remember(key string, change func(*knownAt)) {
	s.mu.Lock()
	k := s.known[key]
	change(&k)
	s.known[key] = k
	s.mu.Unlock()
}

// sawEpoch notes the epoch of a reply; another than the one seen before
// means Redis lost its data, and the watch writes back what is known.
func (s *Shared) sawEpoch(e string) {
	s.mu.Lock()
	changed := s.epoch != "" && s.epoch != e
	if s.epoch == "" {
		s.epoch = e
	}
	s.mu.Unlock()
	if changed {
		select {
		case s.lost <- struct{}{}:
		default:
		}
	}
}
