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
//
// One loss is seen slot by slot, as this Shared's calls reach them: the
// first slot found changed tells of it (logged once) and has everything
// known on the server written back; a slot found changed later, whose
// epoch was last seen before that, lost its data in the same loss. Only
// a slot whose epoch was seen since tells of a new one.

// slotSeen is what a Shared knows of one slot's epoch.
type slotSeen struct {
	epoch string
	// loss: the server's count of losses found (lane.losses) when the
	// epoch was last seen.
	loss int
	// writing counts write-backs to the slot in flight: their replies
	// tell its epoch. owed: one failed, and the slot's are sent again at
	// its next reply.
	writing int
	owed    bool
}

// sawEpoch keeps the epoch of a's slot, from a reply on lane l, and has
// what is known written back when it changed; s.mu is held. It reports
// whether the slot lost its data, and a write-back keeps what it knew.
func (s *Shared) sawEpoch(l *lane, a netip.Addr, v any) bool {
	e, ok := v.(string)
	if !ok || e == "" {
		return false
	}
	slot := slotOf(addrTag(a))
	seen := s.epochs[slot]
	if seen == nil {
		seen = &slotSeen{}
		s.epochs[slot] = seen
	}
	changed, earlier := seen.epoch != "" && seen.epoch != e, seen.loss < l.losses
	seen.epoch, seen.loss = e, l.losses
	switch {
	case seen.writing > 0:
		// The loss its write-back in flight is for.
		return changed
	case seen.owed:
		seen.owed = false
		s.restoreLocked(l, slot, true)
		return true
	case !changed:
		return false
	case earlier:
		// The loss already found on l, met late in this slot.
		s.restoreLocked(l, slot, true)
		return true
	}
	l.losses++
	seen.loss = l.losses
	n := s.restoreLocked(l, slot, false)
	s.logger.Warn("redisshare: Redis lost its data; writing back leases and rests", "server", l.name, "addresses", n)
	return true
}

// restoreLocked queues on l the write-back of every lease this Shared
// holds there and every rest it gave back there not yet over, or with
// only, those of slot's addresses; s.mu is held. It returns how many
// addresses it writes back.
func (s *Shared) restoreLocked(l *lane, slot uint16, only bool) int {
	now := time.Now()
	var calls []*call
	in := func(a netip.Addr) bool { return !only || slotOf(addrTag(a)) == slot }
	for a, o := range s.owned {
		if o.lane == l && o.leaseEnds.After(now) && in(a) {
			calls = append(calls, s.restoreCall(l, a, "o", o.token, o.leaseEnds.Sub(now), o.lrest))
		}
	}
	for a, m := range s.resting {
		if m.lane == l && m.ends.After(now) && in(a) {
			calls = append(calls, s.restoreCall(l, a, "r", 0, m.ends.Sub(now), 0))
		}
	}
	if len(calls) == 0 {
		return 0
	}
	l.mu.Lock()
	l.pending = append(calls, l.pending...)
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default:
	}
	return len(calls)
}

// restoreCall writes back one address, its slot marked writing until the
// reply; the time left and the rest after a lease are rounded up (R1.4).
// s.mu is held.
func (s *Shared) restoreCall(l *lane, a netip.Addr, kind string, token int64, left, lrest time.Duration) *call {
	slot := slotOf(addrTag(a))
	seen := s.epochs[slot]
	if seen == nil {
		seen = &slotSeen{}
		s.epochs[slot] = seen
	}
	seen.writing++
	c := &call{script: restoreScript, keys: []string{s.addrKey(a), s.epochKey(a)},
		args: []any{kind, s.me, token, ceilMs(left), ceilMs(lrest)}}
	c.apply = func(cmd redis.Cmder, _ time.Time) {
		e, err := cmd.(*redis.Cmd).Text()
		s.mu.Lock()
		defer s.mu.Unlock()
		seen.writing--
		if err != nil {
			seen.owed = !isReply(err)
			return
		}
		s.sawEpoch(l, a, e)
	}
	return c
}
