package redisshare

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/politecrawler/polite"
	"github.com/redis/go-redis/v9"
)

const (
	// keepFor is how long past the rest a given-up address is kept for
	// the waiter told of it, to claim it.
	keepFor = 5 * time.Second
	// idleAfter: an owned address not asked for this long past its rest
	// has no more work here (its host stopped, its URLs were dropped),
	// and is given up.
	idleAfter = 5 * time.Second
	// leaseTimes is how many times Ask.Lease a claim's lease lasts: an
	// owner renews once the lease left falls near Ask.Lease, every
	// Ask.Lease or so.
	leaseTimes = 2
)

// ownership is what a Shared knows of an address it owns. Every time is
// on this machine's monotonic clock: leaseEnds is taken from when the
// call was sent, so it is never later than Redis's end; due, from when
// the reply came, so it is never sooner (the rest left in the reply is
// counted from Redis's time rounded down: scripts.go).
type ownership struct {
	token     int64
	lane      *lane
	leaseEnds time.Time
	due       time.Time // the end of the rest of the owner before
	since     time.Time // claimed
	lastTake  time.Time
	restEnds  time.Time     // of its last request
	lease     time.Duration // what a request needs left: Ask.Lease
	lrest     time.Duration // Ask.LeaseRest
	more      bool          // the last request had more queued behind it
	contested bool          // another process waits for it
	// inFlight: a request granted here has not been given its rest yet.
	// With restEnds it keeps R1 and R2 over every Fetcher of this
	// process sharing the Shared, as Redis does over the processes.
	inFlight bool
	renewing bool
	// others are the origins whose robots.txt another owner fetched
	// (R5.3).
	others map[string]bool
}

// waiter is an address another process owns, or that rests.
type waiter struct {
	lane       *lane
	until      time.Time // when to claim again, unless told sooner
	releasedAt time.Time // told it was given up, at
	registered bool      // in the address's waiters, to be told
	wake       func()
}

func (w *waiter) released() bool { return !w.releasedAt.IsZero() }

// releaseOf is a release to send; owedRelease one that did not reach
// Redis, sent again every beat while its lease or rest lasts.
type releaseOf struct {
	addr  netip.Addr
	token int64
	rest  time.Duration
}

type owedRelease struct {
	releaseOf
	lane         *lane
	ends, leases time.Time
}

// restMark is a rest this Shared gave back, written back if Redis loses
// its data before it ends.
type restMark struct {
	ends time.Time
	lane *lane
}

// Take asks for ask.Addr before a request (polite.Coordinator). An owned
// address is granted without a call while its lease and its server
// allow; else the address is claimed, or its lease renewed, first.
func (s *Shared) Take(ctx context.Context, ask polite.Ask) (polite.Turn, error) {
	ask.Addr = ask.Addr.Unmap()
	turn := polite.Turn{Addr: ask.Addr}
	for range 3 {
		act, err := s.look(ask, &turn)
		if err != nil || act == nil {
			return turn, err
		}
		if err := act(ctx); err != nil {
			return polite.Turn{}, fmt.Errorf("redisshare: take %s: %w", ask.Addr, err)
		}
	}
	// Redis answered each look with a change (a lease lost, then
	// claimed by another): ask again in a moment.
	turn.Wait = beat
	return turn, nil
}

// look answers ask from what this Shared knows, or says what to ask
// Redis first.
func (s *Shared) look(ask polite.Ask, turn *polite.Turn) (func(context.Context) error, error) {
	now := time.Now()
	a := ask.Addr
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if st, ok := s.stopped[ask.Host]; ok && now.Before(st.until) {
		turn.Stopped = st.reason
		return nil, nil
	}
	s.hosts.put(ask.Host, a, now)
	if o := s.owned[a]; o != nil {
		o.lastTake = now // wanted: not idle, though Redis may not answer
		if !now.Add(ask.Lease).Before(o.leaseEnds) || !o.lane.answering(now) {
			return func(ctx context.Context) error { return s.renew(ctx, a) }, nil
		}
		o.lease, o.lrest = ask.Lease, ask.LeaseRest
		if ask.Origin != "" && (o.others[ask.Origin] || s.fetchedHere(ask.Origin, now)) {
			delete(o.others, ask.Origin) // asked again if the copy will not do
			turn.Robots = true
			return nil, nil
		}
		switch {
		case o.inFlight:
			turn.Wait = max(ask.Floor, beat)
		case o.due.After(now):
			turn.Wait = o.due.Sub(now)
		case o.restEnds.After(now):
			turn.Wait = o.restEnds.Sub(now)
		default:
			o.more, o.inFlight = ask.More, true
			turn.Granted, turn.Token = true, o.token
		}
		return nil, nil
	}
	if _, owed := s.owed[a]; owed || s.claiming[a] || s.releasing[a] {
		// Another Fetcher of this process claims it now, and its answer
		// is this one's too; or this process gives it up, and is told
		// whether Redis took that before it may claim again.
		turn.Wait = 2 * batchEvery
		return nil, nil
	}
	if w := s.waiting[a]; w != nil && !w.released() && now.Before(w.until) {
		if w.lane != nil && w.lane.down() {
			// Nothing is asked of it, but its process is told that
			// Redis does not answer (Stats.SharedDown, the log).
			return nil, fmt.Errorf("redisshare: take %s: %w", a, errDown)
		}
		w.wake = ask.Wake
		turn.Wait = w.until.Sub(now)
		return nil, nil
	}
	s.claiming[a] = true // one claim at a time, whichever Fetcher asks
	return func(ctx context.Context) error { return s.claim(ctx, ask) }, nil
}

// claim asks Redis for an address, marked claiming by look; its reply is
// kept by claimed.
func (s *Shared) claim(ctx context.Context, ask polite.Ask) error {
	a := ask.Addr
	l := s.laneOf(s.addrKey(a))
	c := &call{script: claimScript,
		keys: []string{s.addrKey(a), s.waitersKey(a), s.stopsKey(a), s.marksKey(a), s.epochKey(a)},
		// The lease rounded up holds the address no shorter in Redis than
		// asked, while its owner's end of it is taken from the reply; the
		// robots period rounded down never takes a copy as fresh for longer.
		args: []any{s.me, ceilMs(leaseTimes * ask.Lease), ceilMs(ask.LeaseRest), ceilMs(Grace),
			polite.RobotsMaxAge.Milliseconds(), addrTag(a), s.channel("")}}
	c.apply = func(cmd redis.Cmder, sent time.Time) { s.claimed(a, ask, l, cmd, sent) }
	return l.do(ctx, c)
}

// claimed keeps what a claim's reply says.
func (s *Shared) claimed(a netip.Addr, ask polite.Ask, l *lane, cmd redis.Cmder, sent time.Time) {
	r, err := cmd.(*redis.Cmd).Slice()
	got := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.claiming, a)
	if err != nil || len(r) < 3 {
		return
	}
	kind, _ := r[0].(string)
	switch kind {
	case "owned":
		if len(r) != 8 {
			return
		}
		if o := s.owned[a]; o != nil && o.token == num(r[1]) {
			// Already this process's (a claim sent twice): the same
			// ownership, its request in flight and its rest kept.
			o.leaseEnds, o.contested = sent.Add(ms(r[2])), o.contested || num(r[7]) > 0
			s.sawEpoch(l, a, r[4])
			return
		}
		// Others that wait already, told of the release before, do not
		// say so again: the claim's count of them is what makes this
		// ownership contested, given up once held Options.Hold.
		o := &ownership{token: num(r[1]), lane: l, leaseEnds: sent.Add(ms(r[2])), due: got.Add(ms(r[3])),
			since: got, lastTake: got, lease: ask.Lease, lrest: ask.LeaseRest, more: true, others: map[string]bool{},
			contested: num(r[7]) > 0}
		stops, _ := r[5].([]any)
		for i := 0; i+2 < len(stops); i += 3 {
			until, _ := strconv.ParseInt(fmt.Sprint(stops[i+1]), 10, 64)
			s.stopped[fmt.Sprint(stops[i])] = stopNotice{reason: fmt.Sprint(stops[i+2]), until: time.UnixMilli(until)}
		}
		origins, _ := r[6].([]any)
		for _, origin := range origins {
			o.others[fmt.Sprint(origin)] = true
		}
		s.owned[a] = o
		delete(s.waiting, a)
		delete(s.resting, a)
		s.sawEpoch(l, a, r[4])
	case "wait", "rest":
		w := s.waiting[a]
		if w == nil {
			w = &waiter{}
			s.waiting[a] = w
		}
		w.lane, w.until, w.registered, w.wake = l, got.Add(ms(r[1])), kind == "wait", ask.Wake
		if !w.releasedAt.After(sent) {
			w.releasedAt = time.Time{} // a notice older than this claim
		}
		s.sawEpoch(l, a, r[2])
	}
}

// renew asks Redis to lengthen the lease of an owned address now.
func (s *Shared) renew(ctx context.Context, a netip.Addr) error {
	s.mu.Lock()
	o := s.owned[a]
	if o == nil {
		s.mu.Unlock()
		return nil
	}
	c := s.renewCall(a, o)
	s.mu.Unlock()
	return o.lane.do(ctx, c)
}

// renewCall is the call that renews o's lease; s.mu is held.
func (s *Shared) renewCall(a netip.Addr, o *ownership) *call {
	o.renewing = true
	tok, l := o.token, o.lane
	c := &call{script: renewScript, keys: []string{s.addrKey(a), s.waitersKey(a), s.epochKey(a)},
		args: []any{s.me, tok, ceilMs(leaseTimes * o.lease)}}
	c.apply = func(cmd redis.Cmder, sent time.Time) {
		r, err := cmd.(*redis.Cmd).Slice()
		s.mu.Lock()
		defer s.mu.Unlock()
		o := s.owned[a]
		if o == nil || o.token != tok {
			return
		}
		o.renewing = false
		if err != nil || len(r) != 4 {
			return
		}
		lost := s.sawEpoch(l, a, r[3])
		switch {
		case r[0] == "owned":
			o.leaseEnds, o.contested = sent.Add(ms(r[1])), o.contested || num(r[2]) > 0
		case !lost:
			// The lease ended, or went on to another: nothing more is
			// sent to the address before it is claimed again. (When the
			// data was lost, the write-back keeps the lease.)
			delete(s.owned, a)
		}
	}
	return c
}

// Rest is told the rest after a granted Turn's request (polite.Coordinator).
// While this process has more queued at the address, and no other has
// waited for it Options.Hold, it keeps the address and the rest is its
// own: no call. Else it gives the address up with the rest, by Redis's
// clock. A release that does not reach Redis is sent again every beat
// while its lease or rest lasts; one whose lease went on to another
// changes nothing.
func (s *Shared) Rest(ctx context.Context, turn polite.Turn, rest time.Duration) error {
	a := turn.Addr.Unmap()
	now := time.Now()
	r := releaseOf{addr: a, token: turn.Token, rest: rest}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	var c *call
	var l *lane
	if o := s.owned[a]; o != nil && o.token == turn.Token {
		o.restEnds, o.inFlight = now.Add(rest), false
		if o.more && rest <= o.lease && !(o.contested && now.Sub(o.since) >= s.hold) {
			s.mu.Unlock()
			return nil
		}
		// Given up and marked releasing at once: no other Fetcher of
		// this process claims it before Redis has the release.
		delete(s.owned, a)
		l = o.lane
		s.resting[a] = restMark{ends: now.Add(rest), lane: l}
		c = s.releaseCallLocked(r, l)
	}
	s.mu.Unlock()
	if c == nil {
		// A lease lost meanwhile: its release is fenced if another
		// claimed the address since, and still sets its rest if not.
		l = s.laneOf(s.addrKey(a))
		c = s.releaseCall(r, l)
	}
	if err := l.do(ctx, c); err != nil {
		return fmt.Errorf("redisshare: rest %s: %w", a, err)
	}
	return nil
}

// releaseCall is the call that gives r.addr up; until its reply, the
// address is not claimed again by this process.
func (s *Shared) releaseCall(r releaseOf, l *lane) *call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.releaseCallLocked(r, l)
}

// releaseCallLocked is releaseCall with s.mu held.
func (s *Shared) releaseCallLocked(r releaseOf, l *lane) *call {
	s.releasing[r.addr] = true
	a := r.addr
	args := []any{s.me, r.token, ceilMs(r.rest), keepFor.Milliseconds(), addrTag(a), s.channel("")}
	ends := time.Now().Add(r.rest)
	c := &call{script: releaseScript, keys: []string{s.addrKey(a), s.waitersKey(a), s.epochKey(a)}, args: args}
	c.apply = func(cmd redis.Cmder, sent time.Time) {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.releasing, a)
		if err := cmd.Err(); err != nil && !isReply(err) {
			if _, still := s.owed[a]; !still || s.owed[a].token <= r.token {
				left := time.Until(ends)
				s.owed[a] = owedRelease{releaseOf: releaseOf{a, r.token, left}, lane: l, ends: ends,
					leases: time.Now().Add(leaseTimes * polite.MaxTimeout)}
			}
			return
		}
		if o, ok := s.owed[a]; ok && o.token == r.token {
			delete(s.owed, a)
		}
		if v, err := cmd.(*redis.Cmd).Slice(); err == nil && len(v) == 2 {
			s.sawEpoch(l, a, v[1])
		}
	}
	return c
}

// beat is a lane's look at what it owns, every beat: leases running short
// are renewed, addresses with no more work given up, releases owed sent
// again, and, when it sent nothing since the beat before, one slot's epoch read:
// the server answers, and has its data.
func (s *Shared) beat(l *lane) {
	now := time.Now()
	var calls []*call
	var probe netip.Addr
	s.mu.Lock()
	for a, o := range s.owned {
		if o.lane != l {
			continue
		}
		probe = a
		last := o.lastTake
		if o.restEnds.After(last) {
			last = o.restEnds
		}
		if o.due.After(last) {
			last = o.due
		}
		if now.Sub(last) > idleAfter {
			delete(s.owned, a)
			s.resting[a] = restMark{ends: o.restEnds, lane: l}
			calls = append(calls, s.releaseCallLocked(releaseOf{a, o.token, max(o.restEnds.Sub(now), 0)}, l))
			continue
		}
		if !o.renewing && o.leaseEnds.Sub(now) < o.lease+Silence+beat {
			calls = append(calls, s.renewCall(a, o))
		}
	}
	for a, o := range s.owed {
		if o.lane != l {
			continue
		}
		if !now.Before(o.ends) && !now.Before(o.leases) {
			delete(s.owed, a)
			continue
		}
		o.rest = max(o.ends.Sub(now), 0)
		calls = append(calls, s.releaseCallLocked(o.releaseOf, l))
	}
	for a, w := range s.waiting {
		switch {
		case now.After(w.until.Add(time.Minute)):
			delete(s.waiting, a)
		case w.lane == l && !probe.IsValid():
			probe = a // a waiter hears, too, that its server is down
		}
	}
	for a, m := range s.resting {
		switch {
		case now.After(m.ends):
			delete(s.resting, a)
		case m.lane == l && !probe.IsValid():
			probe = a // a rest to write back if the data goes
		}
	}
	s.mu.Unlock()
	l.mu.Lock()
	idle := len(l.pending) == 0 && now.Sub(l.sent) >= probeEvery
	l.mu.Unlock()
	if len(calls) == 0 && idle && probe.IsValid() {
		calls = append(calls, s.epochCall(l, probe))
	}
	calls = append(calls, l.owedCalls(s)...)
	l.mu.Lock()
	l.pending = append(l.pending, calls...)
	l.mu.Unlock()
}

// epochCall reads (or makes) the epoch of a's slot.
func (s *Shared) epochCall(l *lane, a netip.Addr) *call {
	c := &call{script: epochScript, keys: []string{s.epochKey(a)}}
	c.apply = func(cmd redis.Cmder, _ time.Time) {
		if e, err := cmd.(*redis.Cmd).Text(); err == nil {
			s.mu.Lock()
			s.sawEpoch(l, a, e)
			s.mu.Unlock()
		}
	}
	return c
}

// fetchedHere says this process fetched origin's robots.txt within the
// robots period: another Fetcher of it loads that copy too; s.mu is held.
func (s *Shared) fetchedHere(origin string, now time.Time) bool {
	at, ok := s.robotsHere.get(origin)
	return ok && now.Sub(at) < polite.RobotsMaxAge
}

// markRobots writes, on the address this process asked origin's host
// on, that it fetched origin's robots.txt now: the next owner's request
// for it loads the copy instead (R5.3). No address known: nothing.
func (s *Shared) markRobots(ctx context.Context, origin string) error {
	u, err := url.Parse(origin)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	s.robotsHere.put(origin, time.Now(), time.Now())
	a, ok := s.hosts.get(u.Hostname())
	s.mu.Unlock()
	if !ok {
		return nil
	}
	key := s.marksKey(a)
	return s.laneOf(key).do(ctx, &call{script: markScript, keys: []string{key},
		args: []any{origin, polite.RobotsMaxAge.Milliseconds()}})
}

// ms is a reply's milliseconds as a duration.
func ms(v any) time.Duration { return time.Duration(num(v)) * time.Millisecond }

// ceilMs is d in whole milliseconds, rounded up: what Redis is told of a
// rest, and of the times a rest is counted from, is never short, not even
// by a part of a millisecond (R1.4).
func ceilMs(d time.Duration) int64 {
	n := d / time.Millisecond
	if d%time.Millisecond > 0 {
		n++
	}
	return int64(n)
}

// ceilUnixMs is t as Unix milliseconds, rounded up: a stop sent as that
// ends no sooner than t.
func ceilUnixMs(t time.Time) int64 { return ceilMs(time.Duration(t.UnixNano())) }

// num is a reply's integer; 0 for another value.
func num(v any) int64 {
	n, _ := v.(int64)
	return n
}

// recent is a map that forgets what was not put for two periods, so a
// run of a week over millions of hosts keeps only the recent ones: the
// address each host was last asked on, for the records a request leads
// to soon after (a stop, a robots.txt mark); the origins whose robots.txt
// this process fetched.
type recent[V any] struct {
	cur, old map[string]V
	turn     time.Time // when cur becomes old
}

// recentPeriod is how long what is put is kept at least.
const recentPeriod = 10 * time.Minute

func (r *recent[V]) put(k string, v V, now time.Time) {
	if r.cur == nil || now.After(r.turn) {
		r.old, r.cur, r.turn = r.cur, make(map[string]V), now.Add(recentPeriod)
	}
	r.cur[k] = v
}

func (r *recent[V]) get(k string) (V, bool) {
	if v, ok := r.cur[k]; ok {
		return v, true
	}
	v, ok := r.old[k]
	return v, ok
}

// wakeWaiters wakes the requests that wait for addresses on l, whose
// server has just stopped answering: each asks again, is told so, and
// its process says so (Stats.SharedDown, the log) while it lasts,
// though it would not have asked before the wait it was told ends.
func (s *Shared) wakeWaiters(l *lane) {
	var wakes []func()
	s.mu.Lock()
	for _, w := range s.waiting {
		if w.lane == l && w.wake != nil {
			wakes = append(wakes, w.wake)
			w.wake = nil
		}
	}
	s.mu.Unlock()
	for _, wake := range wakes {
		wake()
	}
}
