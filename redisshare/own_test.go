package redisshare

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// The scripts' rules against a real redis-server, read from what Take
// and Rest answer and from the keys (R1, R2, R3, R5.3, R12). Times are
// Redis's own; where a rule needs time gone by, the test moves a key's
// times back rather than wait.

func newShared(t *testing.T, srv *redistest.Server) (*Shared, *redis.Client) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	s, err := New(rdb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); rdb.Close() })
	return s, rdb
}

// twoShared is two processes' Shareds on one fresh server, past its grace.
func twoShared(t *testing.T) (a, b *Shared, rdb *redis.Client) {
	t.Helper()
	srv := redistest.Start(t)
	a, rdb = newShared(t, srv)
	b, _ = newShared(t, srv)
	ms := time.Now().Add(-time.Minute).UnixMilli()
	if err := rdb.Set(context.Background(), a.epochKey(addr1), strconv.FormatInt(ms, 10), 0).Err(); err != nil {
		t.Fatal(err)
	}
	return a, b, rdb
}

var addr1 = netip.MustParseAddr("127.0.3.1")

// ask is a page's Ask with the default Timeout's lease (65 s), and more
// queued behind it when more.
func ask(host string, more bool) polite.Ask {
	return polite.Ask{Addr: addr1, Host: host, Lease: 65 * time.Second, LeaseRest: 10 * time.Second, Floor: 3 * time.Second, More: more}
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
	turn := take(t, a, ask("a.test", false))
	// The grace is counted from Redis's time rounded up: a millisecond
	// more at most.
	if turn.Granted || turn.Wait <= 0 || turn.Wait > Grace+time.Millisecond {
		t.Fatalf("first Take on an empty server: %+v, want a wait of at most %v (Grace)", turn, Grace)
	}
}

// An owner with more queued keeps the address through its rest without a
// call; another process is a waiter told the lease's end, and asks
// nothing more before it.
func TestOwnerKeepsItsAddressWithoutCalls(t *testing.T) {
	a, b, _ := twoShared(t)
	first := take(t, a, ask("a.test", true))
	if !first.Granted || first.Token <= 0 {
		t.Fatalf("first Take: %+v, want granted with a token", first)
	}
	calls := a.Commands()
	for range 5 {
		if err := a.Rest(context.Background(), first, 0); err != nil {
			t.Fatal(err)
		}
		if again := take(t, a, ask("a.test", true)); !again.Granted || again.Token != first.Token {
			t.Fatalf("the owner's next Take: %+v, want granted under the same token", again)
		}
	}
	// The rest is kept here too, for every Fetcher of the process.
	if err := a.Rest(context.Background(), first, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	if resting := take(t, a, ask("a.test", true)); resting.Granted || resting.Wait < 2900*time.Millisecond {
		t.Fatalf("the owner's Take within its rest: %+v, want a wait of the 3 s rest", resting)
	}
	if n := a.Commands() - calls; n != 0 {
		t.Errorf("the owner sent %d commands for 6 requests more, want none", n)
	}
	held := take(t, b, ask("a.test", true))
	if held.Granted || held.Wait < 129*time.Second || held.Wait > 130*time.Second {
		t.Fatalf("another's Take: %+v, want a wait of the lease left (2 × 65 s)", held)
	}
	calls = b.Commands()
	if again := take(t, b, ask("a.test", true)); again.Granted || again.Wait <= 0 {
		t.Fatalf("the waiter's Take again: %+v, want the same wait", again)
	}
	if n := b.Commands() - calls; n != 0 {
		t.Errorf("the waiter sent %d commands before the lease's end, want none", n)
	}
}

// An owner with nothing more gives the address up with its rest; the
// waiter is told at once (its Wake), claims, and waits out the rest the
// owner left, by Redis's clock (R2 across owners).
func TestReleaseTellsTheWaiter(t *testing.T) {
	a, b, _ := twoShared(t)
	first := take(t, a, ask("a.test", false))
	woken := make(chan struct{})
	var once sync.Once
	wait := ask("a.test", true)
	wait.Wake = func() { once.Do(func() { close(woken) }) }
	if held := take(t, b, wait); held.Granted {
		t.Fatalf("another's Take while owned: %+v", held)
	}
	if err := a.Rest(context.Background(), first, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	<-woken
	turn := take(t, b, wait)
	if turn.Granted || turn.Wait < 2500*time.Millisecond || turn.Wait > 3*time.Second {
		t.Fatalf("the waiter's Take once told: %+v, want the owner's rest left (under 3 s)", turn)
	}
	b.mu.Lock()
	owned := b.owned[addr1] != nil
	b.mu.Unlock()
	if !owned {
		t.Error("the waiter does not own the address after its claim")
	}
	if other := take(t, a, ask("a.test", true)); other.Granted {
		t.Errorf("the old owner's Take after the claim: %+v, want a wait", other)
	}
}

// Hold over a handover: an owner that claims an address others still
// wait for, told of the release before, knows from its claim that it is
// wanted, and gives the address up once held Options.Hold, though more is
// queued here; it is not kept to the end of its queue while they wait.
func TestClaimOfAWantedAddressIsContested(t *testing.T) {
	a, b, rdb := twoShared(t)
	c, err := New(redis.NewClient(&redis.Options{Addr: rdb.Options().Addr}), Options{Hold: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a.hold, b.hold = time.Nanosecond, time.Nanosecond
	first := take(t, a, ask("a.test", true))
	woken := make(chan struct{})
	var once sync.Once
	wait := ask("a.test", true)
	wait.Wake = func() { once.Do(func() { close(woken) }) }
	for _, s := range []*Shared{b, c} {
		if held := take(t, s, wait); held.Granted {
			t.Fatalf("a waiter's Take while owned: %+v", held)
		}
	}
	if err := a.Rest(context.Background(), first, 0); err != nil {
		t.Fatal(err)
	}
	<-woken // b, the first waiter
	// Granted, or told to wait out what is left of the rest 0, rounded
	// up to Redis's next millisecond (R1.4): either way b's.
	take(t, b, wait)
	b.mu.Lock()
	o := b.owned[addr1]
	contested := o != nil && o.contested
	b.mu.Unlock()
	if !contested {
		t.Fatalf("the first waiter's claim: owned %v, contested %v; want owned, and contested: another waits", o != nil, contested)
	}
	if err := b.Rest(context.Background(), polite.Turn{Addr: addr1, Token: o.token}, 0); err != nil {
		t.Fatal(err)
	}
	if owner, _ := rdb.HGet(context.Background(), b.addrKey(addr1), "owner").Result(); owner != "" {
		t.Errorf("after the contested owner's request, owner = %q, want the address given up", owner)
	}
}

// A lease whose owner died ends by itself, and the address then rests as
// after a failure (LeaseRest); the owner's late release, its token no
// longer in force once another claimed the address, changes nothing.
func TestLeaseEndsAndLateReleaseIsFenced(t *testing.T) {
	a, b, rdb := twoShared(t)
	ctx := context.Background()
	key := a.addrKey(addr1)

	dead := take(t, a, ask("a.test", true))
	// The lease ended 20 s ago: its LeaseRest (10 s) is over too.
	rdb.HSet(ctx, key, "until", time.Now().Add(-20*time.Second).UnixMilli())
	next := take(t, b, ask("a.test", true))
	if !next.Granted || next.Token <= dead.Token {
		t.Fatalf("Take after the lease and its rest ended: %+v, want granted with a token above %d", next, dead.Token)
	}
	// The dead owner comes back and gives its turn back with no rest.
	a.mu.Lock()
	delete(a.owned, addr1)
	a.mu.Unlock()
	if err := a.Rest(ctx, dead, 0); err != nil {
		t.Fatal(err)
	}
	if owner, _ := rdb.HGet(ctx, key, "owner").Result(); owner != b.me {
		t.Fatalf("after a late release, owner = %q, want the new owner %q", owner, b.me)
	}
	// That owner dies too: 2 s after its lease ended, the address rests
	// 8 s more.
	rdb.HSet(ctx, key, "until", time.Now().Add(-2*time.Second).UnixMilli())
	after := take(t, a, ask("a.test", true))
	if after.Granted || after.Wait < 7900*time.Millisecond || after.Wait > 8*time.Second {
		t.Fatalf("Take 2 s after a lease ended without release: %+v, want the failure's rest, 8 s left", after)
	}
}

// A release after its lease ended, with no claim since, still takes its
// rest: a claim that found the lease over and was told to wait does not
// fence it out.
func TestLateReleaseWithNoClaimSinceCounts(t *testing.T) {
	a, b, rdb := twoShared(t)
	ctx := context.Background()
	key := a.addrKey(addr1)
	late := take(t, a, ask("a.test", false))
	rdb.HSet(ctx, key, "until", time.Now().Add(-time.Second).UnixMilli())
	if w := take(t, b, ask("a.test", false)); w.Granted || w.Wait > 9*time.Second {
		t.Fatalf("Take after the lease ended: %+v, want the failure's rest, 9 s left", w)
	}
	if err := a.Rest(ctx, late, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	delete(b.waiting, addr1) // as if its wait were over
	b.mu.Unlock()
	if w := take(t, b, ask("a.test", false)); w.Granted || w.Wait < 9*time.Minute {
		t.Fatalf("Take after the late release of a 10 min rest: %+v, want to wait it out", w)
	}
}

// The guard against a paused process: an owner whose lease has less left
// on its own clock than a request needs renews before it sends, and one
// that lost the address meanwhile is not granted. (Take the check out of
// look and the paused owner is granted at once.)
func TestOwnerShortOfLeaseRenewsFirst(t *testing.T) {
	a, b, rdb := twoShared(t)
	ctx := context.Background()
	first := take(t, a, ask("a.test", true))
	if !first.Granted {
		t.Fatal(first)
	}
	// a is paused past its lease: the lease ends in Redis, b claims.
	rdb.HSet(ctx, a.addrKey(addr1), "until", time.Now().Add(-time.Minute).UnixMilli())
	if next := take(t, b, ask("a.test", true)); !next.Granted {
		t.Fatalf("b's Take after a's lease and rest ended: %+v", next)
	}
	a.mu.Lock()
	a.owned[addr1].leaseEnds = time.Now().Add(time.Second) // what a's clock says on waking
	a.mu.Unlock()
	if turn := take(t, a, ask("a.test", true)); turn.Granted {
		t.Fatalf("a's Take with its lease run out: %+v, want no grant: b owns the address", turn)
	}
}

// R3 shared: a stop one process saves is heard by the others at once,
// and read by a later one from the address when it claims it.
func TestStopSharedByNoticeAndClaim(t *testing.T) {
	a, b, rdb := twoShared(t)
	first := take(t, a, ask("a.test", false)) // a asked a.test on addr1
	if !first.Granted {
		t.Fatal(first)
	}
	if err := a.SaveHost(polite.HostRecord{Host: "a.test", Stops: 1, CoolOffUntil: time.Now().Add(6 * time.Hour), LastReason: "403 Forbidden"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Rest(context.Background(), first, 0); err != nil {
		t.Fatal(err)
	}
	for { // an event: the notice's delivery
		b.mu.Lock()
		_, heard := b.stopped["a.test"]
		b.mu.Unlock()
		if heard {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if turn := take(t, b, ask("a.test", true)); turn.Granted || turn.Stopped != "403 Forbidden" {
		t.Fatalf("b's Take of the host a stopped: %+v, want Stopped with its reason", turn)
	}
	c, err := New(redis.NewClient(&redis.Options{Addr: rdb.Options().Addr}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if other := take(t, c, ask("b.test", true)); !other.Granted {
		t.Fatalf("a later process's Take for another host on the address: %+v, want granted", other)
	}
	if turn := take(t, c, ask("a.test", true)); turn.Granted || turn.Stopped != "403 Forbidden" {
		t.Fatalf("a later process's Take of the stopped host: %+v, want Stopped, read from the address", turn)
	}
}

// R5.3 shared: the owner that fetched an origin's robots.txt tells the
// next owner at its release, whose robots.txt request is told to load
// the copy.
func TestRobotsCopyFromTheOwnerBefore(t *testing.T) {
	a, b, _ := twoShared(t)
	robots := ask("a.test", true)
	robots.Origin = "http://a.test:80"
	turn := take(t, a, robots)
	if !turn.Granted {
		t.Fatalf("robots.txt Take with no copy: %+v, want granted", turn)
	}
	if err := a.SaveRobots(polite.StoredRobots{Origin: robots.Origin, Status: 200, Body: []byte("User-agent: *\nDisallow: /x\n"), Fetched: time.Now()}); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	a.owned[addr1].more = false
	a.mu.Unlock()
	if err := a.Rest(context.Background(), turn, 0); err != nil {
		t.Fatal(err)
	}
	if turn := take(t, b, robots); turn.Granted || !turn.Robots {
		t.Fatalf("robots.txt Take after another fetched it: %+v, want Robots", turn)
	}
	got, ok, err := b.LoadRobots(robots.Origin)
	if err != nil || !ok || string(got.Body) != "User-agent: *\nDisallow: /x\n" || got.Status != 200 {
		t.Fatalf("LoadRobots = %+v, %v, %v", got, ok, err)
	}
}

// A Redis that may evict keys is refused, naming its policy; one that
// does not let the user read its config is trusted, with one warning.
func TestEvictingRedisRefused(t *testing.T) {
	srv := redistest.Start(t, "--maxmemory-policy", "allkeys-lru")
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	_, err := New(rdb, Options{})
	if !errors.Is(err, ErrEvicting) || !strings.Contains(err.Error(), "allkeys-lru") {
		t.Fatalf("New on allkeys-lru: %v, want ErrEvicting naming the policy", err)
	}

	srv = redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer admin.Close()
	if err := admin.Do(context.Background(), "ACL", "SETUSER", "crawler", "on", ">pw", "~*", "&*", "+@all", "-config").Err(); err != nil {
		t.Fatal(err)
	}
	user := redis.NewClient(&redis.Options{Addr: srv.Addr(), Username: "crawler", Password: "pw"})
	defer user.Close()
	var log strings.Builder
	s, err := New(user, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("New as a user without CONFIG: %v, want a Shared and a warning", err)
	}
	s.Close()
	if n := strings.Count(log.String(), "maxmemory-policy"); n != 1 {
		t.Errorf("log %q: want one warning naming maxmemory-policy", log.String())
	}
}
