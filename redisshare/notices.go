package redisshare

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// What a Shared hears on its channel, from the scripts of other
// processes:
//
//	r ADDR   the address was given up, and is kept a moment for this
//	         Shared, its first waiter: claim it now
//	w ADDR   another process waits for an address this Shared owns:
//	         give it up once held Options.Hold
//
// and on the channel of stops, from any process that stopped a host (R3):
//
//	ME UNTIL HOST REASON   the host is stopped until UNTIL (Unix ms)
//
// A notice lost (the connection dropped a moment) costs time, never a
// rule: a waiter asks again when the lease it was told of ends, an owner
// learns of waiters when it renews, and a stop is on the address and the
// host's record, which a claim and a new host read.

// stopNotice is a host another process stopped, and until when.
type stopNotice struct {
	reason string
	until  time.Time
}

// subscribe listens on this Shared's channel and the channel of stops.
func (s *Shared) subscribe(ctx context.Context) error {
	s.notices = s.rdb.Subscribe(ctx, s.channel(s.me), s.stopsChannel())
	if _, err := s.notices.Receive(ctx); err != nil {
		s.notices.Close()
		return err
	}
	if _, err := s.notices.Receive(ctx); err != nil {
		s.notices.Close()
		return err
	}
	s.wg.Add(1)
	go s.listen()
	return nil
}

// listen acts on each notice until Close.
func (s *Shared) listen() {
	defer s.wg.Done()
	for m := range s.notices.Channel() {
		if m.Channel == s.stopsChannel() {
			s.heardStop(m.Payload)
			continue
		}
		kind, rest, _ := strings.Cut(m.Payload, " ")
		a, err := netip.ParseAddr(rest)
		if err != nil {
			continue
		}
		var wake func()
		s.mu.Lock()
		switch kind {
		case "r":
			w := s.waiting[a]
			if w == nil {
				// The notice came before the reply of the claim that made
				// this Shared a waiter.
				w = &waiter{until: time.Now().Add(keepFor)}
				s.waiting[a] = w
			}
			w.releasedAt = time.Now()
			wake, w.wake = w.wake, nil
		case "w":
			if o := s.owned[a]; o != nil {
				o.contested = true
			}
		}
		s.mu.Unlock()
		if wake != nil {
			wake()
		}
	}
}

// heardStop keeps a stop another process made.
func (s *Shared) heardStop(payload string) {
	f := strings.SplitN(payload, " ", 4)
	if len(f) != 4 || f[0] == s.me {
		return
	}
	ms, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.stopped[f[2]] = stopNotice{reason: f[3], until: time.UnixMilli(ms)}
	s.mu.Unlock()
}
