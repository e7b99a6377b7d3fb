package redisshare

import (
	"context"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// logRecorder is a slog.Handler that keeps every message, to count.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

// count is how many messages began with prefix.
func (r *logRecorder) count(prefix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.msgs {
		if strings.HasPrefix(m, prefix) {
			n++
		}
	}
	return n
}

const lostMsg = "redisshare: Redis lost its data"

// One Redis emptied (FLUSHALL) is one loss, logged once, though this
// Shared meets it in one slot, then, later, in another whose epoch it
// had seen before; a second emptying is a second loss, logged and
// written back again, however soon after the first.
func TestLossLoggedOncePerLoss(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	rec := &logRecorder{}
	s, err := New(rdb, Options{Logger: slog.New(rec)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	owned, other := addr1, netip.MustParseAddr("127.0.3.2")
	if slotOf(addrTag(owned)) == slotOf(addrTag(other)) {
		t.Fatal("the two addresses share a slot")
	}
	pastGrace(t, s, owned)
	pastGrace(t, s, other)
	// other's slot seen, then left: its rest over, nothing known there.
	turn := take(t, s, polite.Ask{Addr: other, Host: "b.test", Lease: 65 * time.Second, LeaseRest: 10 * time.Second, Floor: 3 * time.Second})
	if !turn.Granted {
		t.Fatal(turn)
	}
	if err := s.Rest(ctx, turn, 0); err != nil {
		t.Fatal(err)
	}
	if turn := take(t, s, ask("a.test", true)); !turn.Granted {
		t.Fatal(turn)
	}
	lost := func(want int, what string) {
		t.Helper()
		if err := rdb.FlushAll(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if err := s.renew(ctx, owned); err != nil { // finds the loss, if a beat did not
			t.Fatal(err)
		}
		if n := rec.count(lostMsg); n != want {
			t.Errorf("%s: %d lines %q, want %d", what, n, lostMsg, want)
		}
		s.mu.Lock()
		_, still := s.owned[owned]
		s.mu.Unlock()
		if !still {
			t.Fatalf("%s: the owned address is no longer owned", what)
		}
		if o, _ := rdb.HGet(ctx, s.addrKey(owned), "owner").Result(); o != s.me {
			// The write-back is queued before the renewal's reply is
			// applied; a call after it has it done.
			s.flushAll(ctx)
			if o, _ = rdb.HGet(ctx, s.addrKey(owned), "owner").Result(); o != s.me {
				t.Errorf("%s: the lease is not written back: owner %q", what, o)
			}
		}
	}
	lost(1, "Redis emptied")
	// The other slot, met after the loss: the same loss.
	take(t, s, polite.Ask{Addr: other, Host: "b.test", Lease: 65 * time.Second, LeaseRest: 10 * time.Second, Floor: 3 * time.Second})
	if n := rec.count(lostMsg); n != 1 {
		t.Errorf("the loss met again in another slot: %d lines %q, want 1", n, lostMsg)
	}
	lost(2, "Redis emptied again")
}
