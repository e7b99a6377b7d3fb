package redisshare

import (
	"net/netip"
	"time"

	"github.com/redis/go-redis/v9"
)

// A Redis that lost its data (restarted empty, or a Cluster master that
// came back without its slots') is seen by its epoch: every reply of an
// address's script carries its slot's epoch, and a lane that owns
// anything reads one every beat it sends nothing else. Another epoch than
// the one seen before means the data went: within Grace, while the slot
// holds every address it has no record of, this Shared writes back the
// leases it holds and the rests it gave back on that server.

// restoreAgain: epochs found changed on a lane within this time of a
// write-back are the same loss, already written back.
const restoreAgain = 5 * time.Second

// sawEpoch keeps the epoch of a's slot, from a reply on lane l, and
// writes back what is known on l when it changed; s.mu is held. It
// reports whether it changed.
func (s *Shared) sawEpoch(l *lane, a netip.Addr, v any) bool {
	e, ok := v.(string)
	if !ok || e == "" {
		return false
	}
	slot := slotOf(addrTag(a))
	old := s.epochs[slot]
	s.epochs[slot] = e
	if old == "" || old == e {
		return false
	}
	if time.Since(l.restored) > restoreAgain {
		l.restored = time.Now()
		s.restoreLocked(l)
	}
	return true
}

// restoreLocked queues on l the write-back of every lease this Shared
// holds there and every rest it gave back there not yet over; s.mu is
// held.
func (s *Shared) restoreLocked(l *lane) {
	now := time.Now()
	var calls []*call
	for a, o := range s.owned {
		if o.lane == l && o.leaseEnds.After(now) {
			calls = append(calls, s.restoreCall(l, a, "o", o.token, o.leaseEnds.Sub(now), o.lrest))
		}
	}
	for a, m := range s.resting {
		if m.lane == l && m.ends.After(now) {
			calls = append(calls, s.restoreCall(l, a, "r", 0, m.ends.Sub(now), 0))
		}
	}
	l.mu.Lock()
	l.pending = append(calls, l.pending...)
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default:
	}
	s.logger.Warn("redisshare: Redis lost its data; writing back leases and rests", "server", l.name, "addresses", len(calls))
}

// restoreCall writes back one address; the time left and the rest after
// a lease are rounded up (R1.4).
func (s *Shared) restoreCall(l *lane, a netip.Addr, kind string, token int64, left, lrest time.Duration) *call {
	c := &call{script: restoreScript, keys: []string{s.addrKey(a), s.epochKey(a)},
		args: []any{kind, s.me, token, ceilMs(left), ceilMs(lrest)}}
	c.apply = func(cmd redis.Cmder, _ time.Time) {
		if e, err := cmd.(*redis.Cmd).Text(); err == nil {
			s.mu.Lock()
			s.sawEpoch(l, a, e)
			s.mu.Unlock()
		}
	}
	return c
}
