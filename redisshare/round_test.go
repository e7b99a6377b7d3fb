package redisshare

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
)

// R1.4: every rest handed on through Redis is rounded up, never down. The
// test and redis-server share this machine's clock, so the times Redis
// keeps are compared with the test's own, to the nanosecond. Each time is
// given with a part of a millisecond that rounding down would drop.

// pastGrace makes a's slot of a server that had its data a minute ago.
func pastGrace(t *testing.T, s *Shared, a netip.Addr) {
	t.Helper()
	ms := time.Now().Add(-time.Minute).UnixMilli()
	if err := s.rdb.SetNX(context.Background(), s.epochKey(a), strconv.FormatInt(ms, 10), 0).Err(); err != nil {
		t.Fatal(err)
	}
}

// A rest given back is kept in Redis to its end or later, and the next
// owner waits for that end or later: never sooner than the response's end
// and the rest. So is the rest after a lease that ends by itself. Fifty
// addresses, each once: nothing waits a rest out.
func TestRestHandedOnIsNeverShort(t *testing.T) {
	a, b, rdb := twoShared(t)
	ctx := context.Background()
	const rest = 3*time.Second + 900*time.Microsecond
	const lrest = 30*time.Second + 900*time.Microsecond
	for i := range 50 {
		addr := netip.AddrFrom4([4]byte{127, 0, 4, byte(i + 1)})
		pastGrace(t, a, addr)
		q := polite.Ask{Addr: addr, Host: fmt.Sprintf("h%d.test", i), Lease: 65 * time.Second, LeaseRest: lrest, Floor: polite.MinRest}
		turn := take(t, a, q)
		if !turn.Granted {
			t.Fatalf("%v: first Take %+v, want granted", addr, turn)
		}
		if n, _ := rdb.HGet(ctx, a.addrKey(addr), "lrest").Int64(); time.Duration(n)*time.Millisecond < lrest {
			t.Errorf("%v: the rest after a lease kept as %d ms, want %v or more", addr, n, lrest)
		}
		end := time.Now() // the response ended
		if err := a.Rest(ctx, turn, rest); err != nil {
			t.Fatal(err)
		}
		due, err := rdb.HGet(ctx, a.addrKey(addr), "due").Int64()
		if err != nil {
			t.Fatal(err)
		}
		if short := end.Add(rest).Sub(time.UnixMilli(due)); short > 0 {
			t.Errorf("%v: Redis keeps the rest's end %v before the response's end and the rest", addr, short)
		}
		next := take(t, b, q)
		told := time.Now()
		if next.Granted || next.Wait <= 0 {
			t.Fatalf("%v: the next process's Take %+v, want the rest left", addr, next)
		}
		// The next owner's end of the rest is at most told + Wait.
		if short := end.Add(rest).Sub(told.Add(next.Wait)); short > 0 {
			t.Errorf("%v: the next owner waits until %v before the response's end and the rest", addr, short)
		}
	}
}

// The scripts count a due on from Redis's time rounded up: a rest from
// now ends no sooner than now and the rest, though TIME's microseconds
// fall between two milliseconds. Each script is run here alone, at once,
// fifty times, on a fresh address: a release (a rest given back) and a
// write-back of a rest.
func TestScriptsCountDueFromTimeRoundedUp(t *testing.T) {
	s, _, rdb := twoShared(t)
	ctx := context.Background()
	const rest = 3 * time.Second
	for i := range 50 {
		addr := netip.AddrFrom4([4]byte{127, 0, 5, byte(i + 1)})
		before := time.Now()
		keys := []string{s.addrKey(addr), s.waitersKey(addr), s.epochKey(addr)}
		if err := releaseScript.Run(ctx, rdb, keys, s.me, 0, rest.Milliseconds(), keepFor.Milliseconds(), addrTag(addr), s.channel("")).Err(); err != nil {
			t.Fatal(err)
		}
		due, err := rdb.HGet(ctx, s.addrKey(addr), "due").Int64()
		if err != nil {
			t.Fatal(err)
		}
		if short := before.Add(rest).Sub(time.UnixMilli(due)); short > 0 {
			t.Errorf("release %d: the rest ends %v before the call and the rest", i, short)
		}
		addr = netip.AddrFrom4([4]byte{127, 0, 6, byte(i + 1)})
		before = time.Now()
		if err := restoreScript.Run(ctx, rdb, []string{s.addrKey(addr), s.epochKey(addr)}, "r", s.me, 0, rest.Milliseconds(), 0).Err(); err != nil {
			t.Fatal(err)
		}
		if due, err = rdb.HGet(ctx, s.addrKey(addr), "due").Int64(); err != nil {
			t.Fatal(err)
		}
		if short := before.Add(rest).Sub(time.UnixMilli(due)); short > 0 {
			t.Errorf("write-back %d: the rest ends %v before the call and the rest", i, short)
		}
	}
}

// What a release and a write-back send of a rest, and of the rest after
// a lease, is rounded up to the millisecond.
func TestRestsSentRoundedUp(t *testing.T) {
	s, _, _ := twoShared(t)
	const rest = 3*time.Second + time.Nanosecond
	l := s.laneOf(s.addrKey(addr1))
	sent := func(v any) time.Duration { return time.Duration(v.(int64)) * time.Millisecond }
	if c := s.releaseCall(releaseOf{addr: addr1, token: 1, rest: rest}, l); sent(c.args[2]) < rest {
		t.Errorf("a release of a rest of %v sends %v", rest, sent(c.args[2]))
	}
	s.mu.Lock()
	c := s.restoreCall(l, addr1, "o", 1, rest, rest)
	s.mu.Unlock()
	if sent(c.args[3]) < rest || sent(c.args[4]) < rest {
		t.Errorf("a write-back of a lease of %v, with a rest after it of %v, sends %v and %v", rest, rest, sent(c.args[3]), sent(c.args[4]))
	}
	for _, d := range []time.Duration{0, time.Nanosecond, time.Millisecond, time.Millisecond + 1, -time.Nanosecond} {
		if n := ceilMs(d); time.Duration(n)*time.Millisecond < d || time.Duration(n-1)*time.Millisecond >= d {
			t.Errorf("ceilMs(%v) = %d", d, n)
		}
	}
}

// A stop's end written on the address, which a claim reads, is no sooner
// than the cool-off's (R3.3, R1.4).
func TestStopEndNeverSooner(t *testing.T) {
	a, _, rdb := twoShared(t)
	if turn := take(t, a, ask("a.test", false)); !turn.Granted {
		t.Fatal(turn)
	}
	until := time.Now().Add(time.Hour + 900*time.Microsecond)
	if err := a.SaveHost(polite.HostRecord{Host: "a.test", Stops: 1, CoolOffUntil: until, LastReason: "403 Forbidden"}); err != nil {
		t.Fatal(err)
	}
	v, err := rdb.HGet(context.Background(), a.stopsKey(addr1), "a.test").Result()
	if err != nil {
		t.Fatal(err)
	}
	ms, _, _ := strings.Cut(v, "|")
	n, _ := strconv.ParseInt(ms, 10, 64)
	if short := until.Sub(time.UnixMilli(n)); short > 0 {
		t.Errorf("the stop on the address ends %v before the cool-off", short)
	}
}
