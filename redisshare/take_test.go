package redisshare

import (
	"context"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// The scripts' rules, against a real redis-server: what Take and Rest
// answer, read from the replies and the keys (R1, R2 across processes).
// Times are Redis's own; no test waits for one to pass: where a rule
// needs time gone by, the test moves the key's times back.

func newShared(t *testing.T, srv *redistest.Server) (*Shared, *redis.Client) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	s := New(rdb, Options{})
	t.Cleanup(func() { s.Close(); rdb.Close() })
	return s, rdb
}

// twoShared is two processes' Shareds on one fresh server, past its grace.
func twoShared(t *testing.T) (a, b *Shared, rdb *redis.Client) {
	t.Helper()
	srv := redistest.Start(t)
	a, rdb = newShared(t, srv)
	b, _ = newShared(t, srv)
	pastGrace(t, rdb)
	return a, b, rdb
}

// pastGrace dates the epoch back, as a server up for a while.
func pastGrace(t *testing.T, rdb *redis.Client) {
	t.Helper()
	ms := time.Now().Add(-time.Minute).UnixMilli()
	if err := rdb.Set(context.Background(), DefaultPrefix+"epoch", strconv.FormatInt(ms, 10), 0).Err(); err != nil {
		t.Fatal(err)
	}
}

var addr1 = netip.MustParseAddr("127.0.3.1")

func ask(host string) polite.Ask {
	return polite.Ask{Addr: addr1, Host: host, Lease: 65 * time.Second, LeaseRest: 10 * time.Second, Floor: 3 * time.Second}
}

func take(t *testing.T, s *Shared, a polite.Ask) polite.Turn {
	t.Helper()
	turn, err := s.Take(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

func TestFreshServerHoldsAddressesForGrace(t *testing.T) {
	srv := redistest.Start(t)
	a, _ := newShared(t, srv)
	turn := take(t, a, ask("a.test"))
	if turn.Granted || turn.Wait <= 0 || turn.Wait > Grace {
		t.Fatalf("first Take on an empty server: %+v, want a wait of at most %v (Grace)", turn, Grace)
	}
}

// R1 over processes: a second process cannot take an address held by a
// first, until the lease's end; after Rest, not before the rest's end.
func TestTakeRestOverTwoProcesses(t *testing.T) {
	a, b, _ := twoShared(t)

	first := take(t, a, ask("a.test"))
	if !first.Granted || first.Token <= 0 {
		t.Fatalf("first Take: %+v, want granted with a token", first)
	}
	held := take(t, b, ask("a.test"))
	if held.Granted || held.Wait != 3*time.Second {
		t.Fatalf("Take while held: %+v, want a wait of the floor (3 s): the rest after it is no shorter", held)
	}
	if err := a.Rest(context.Background(), first, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	resting := take(t, b, ask("a.test"))
	if resting.Granted || resting.Wait < 2900*time.Millisecond || resting.Wait > 3*time.Second {
		t.Fatalf("Take while resting: %+v, want a wait of the 3 s rest", resting)
	}
}

// A lease whose holder died ends by itself, and the address then rests as
// after a failure (LeaseRest); the holder's late Rest, its token no longer
// in force once another took the address, changes nothing.
func TestLeaseEndsAndLateRestIsFenced(t *testing.T) {
	a, b, rdb := twoShared(t)
	ctx := context.Background()
	key := a.addrKey(addr1)

	dead := take(t, a, ask("a.test"))
	// The lease ended 20 s ago: its LeaseRest (10 s) is over too.
	rdb.HSet(ctx, key, "until", time.Now().Add(-20*time.Second).UnixMilli())
	next := take(t, b, ask("a.test"))
	if !next.Granted || next.Token <= dead.Token {
		t.Fatalf("Take after the lease and its rest ended: %+v, want granted with a token above %d", next, dead.Token)
	}
	// The dead holder comes back and gives its turn back with no rest.
	if err := a.Rest(ctx, dead, 0); err != nil {
		t.Fatal(err)
	}
	if held, _ := rdb.HGet(ctx, key, "held").Result(); held != strconv.FormatInt(next.Token, 10) {
		t.Fatalf("after a late Rest, held = %q, want the new holder's %d", held, next.Token)
	}
	if err := b.Rest(ctx, next, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	// Its rest over, the address is taken again, and that holder dies
	// too: 2 s after its lease ended, the address rests 8 s more.
	rdb.HSet(ctx, key, "due", 0)
	again := take(t, a, ask("a.test"))
	if !again.Granted {
		t.Fatalf("Take after the rest: %+v, want granted", again)
	}
	rdb.HSet(ctx, key, "until", time.Now().Add(-2*time.Second).UnixMilli())
	after := take(t, b, ask("a.test"))
	if after.Granted || after.Wait < 7900*time.Millisecond || after.Wait > 8*time.Second {
		t.Fatalf("Take 2 s after a lease ended without Rest: %+v, want the failure's rest, 8 s left", after)
	}
}

// R3 shared: a host record with a cool-off, as a stop saves it, stops the
// host for every process at its next Take.
func TestStopSharedAtTake(t *testing.T) {
	a, b, _ := twoShared(t)
	err := a.SaveHost(polite.HostRecord{Host: "a.test", Stops: 1, CoolOffUntil: time.Now().Add(6 * time.Hour), LastReason: "403 Forbidden"})
	if err != nil {
		t.Fatal(err)
	}
	turn := take(t, b, ask("a.test"))
	if turn.Granted || turn.Stopped != "403 Forbidden" {
		t.Fatalf("Take of a host stopped elsewhere: %+v, want Stopped with its reason", turn)
	}
	if other := take(t, b, ask("b.test")); !other.Granted {
		t.Fatalf("Take for another host on the address: %+v, want granted", other)
	}
}

// R5.3 shared: a robots.txt request finds the copy another process saved
// within the robots period.
func TestRobotsCopyFromElsewhere(t *testing.T) {
	a, b, _ := twoShared(t)
	robots := ask("a.test")
	robots.Origin = "http://a.test:80"
	if turn := take(t, b, robots); !turn.Granted {
		t.Fatalf("robots.txt Take with no copy: %+v, want granted", turn)
	} else if err := b.Rest(context.Background(), turn, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.SaveRobots(polite.StoredRobots{Origin: robots.Origin, Status: 200, Body: []byte("User-agent: *\nDisallow: /x\n"), Fetched: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if turn := take(t, b, robots); turn.Granted || !turn.Robots {
		t.Fatalf("robots.txt Take after another saved a copy: %+v, want Robots", turn)
	}
	got, ok, err := b.LoadRobots(robots.Origin)
	if err != nil || !ok || string(got.Body) != "User-agent: *\nDisallow: /x\n" || got.Status != 200 {
		t.Fatalf("LoadRobots = %+v, %v, %v", got, ok, err)
	}
}

// A give-back after its lease ended, with no grant since, still takes its
// rest: a Take that found the lease over and was told to wait does not
// fence it out.
func TestLateRestWithNoGrantSinceCounts(t *testing.T) {
	a, b, rdb := twoShared(t)
	ctx := context.Background()
	key := a.addrKey(addr1)
	late := take(t, a, ask("a.test"))
	rdb.HSet(ctx, key, "until", time.Now().Add(-time.Second).UnixMilli())
	if w := take(t, b, ask("a.test")); w.Granted || w.Wait > 9*time.Second {
		t.Fatalf("Take after the lease ended: %+v, want the failure's rest, 9 s left", w)
	}
	if err := a.Rest(ctx, late, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	if w := take(t, b, ask("a.test")); w.Granted || w.Wait < 9*time.Minute {
		t.Fatalf("Take after the late give-back of a 10 min rest: %+v, want to wait it out", w)
	}
}
