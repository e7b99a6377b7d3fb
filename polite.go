package polite

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/politecrawler/polite/internal/clock"
	"github.com/politecrawler/polite/internal/netguard"
	"github.com/politecrawler/polite/internal/schedule"
	"github.com/politecrawler/polite/internal/urltrap"
)

// Fetcher fetches the URLs given to Add, politely, and returns one Result
// per URL through Results (or Next). It is safe for concurrent use. A Fetcher holds
// goroutines and connections until Close.
type Fetcher struct {
	set settings
	ua  string // the User-Agent header
	// uaUnrestricted is sent to hosts whose robots.txt is not read (R5.6).
	uaUnrestricted string
	headers        requestHeaders
	// transport is replaced when a host moves to another address (see
	// internal/schedule's move); retired are the ones it replaced, closed by Close.
	transport atomic.Pointer[http.Transport]
	retired   []retiredTransport
	clk       clock.Clock
	ctx       context.Context // cancelled by Close: ends requests in flight
	cancel    context.CancelFunc
	sched     *schedule.Scheduler
	// lookupTimeout bounds one host lookup (hooks.lookupTimeout).
	lookupTimeout time.Duration
	results       *resultQueue

	// added are the URLs Add accepted, normalised (R9).
	addedMu sync.Mutex
	added   urltrap.URLSet

	accepted  atomic.Int64
	delivered atomic.Int64

	closeOnce sync.Once
	// workers counts the goroutines running jobs and store jobs.
	workers sync.WaitGroup
	// spare are the contexts of the job goroutines that ended, for the next.
	// handoff passes a job to a goroutine waiting for one; idle counts
	// those waiting (work).
	handoff    chan schedule.Job
	idle       atomic.Int32
	spare      spareContexts
	dispatched chan struct{} // closed when the dispatcher has returned
	shared     sharedState   // the Coordinator's health (Config.Shared)
}

// hooks are the seams tests reach through: a fake clock, a call when only
// the passing of time can move the run on, and the backoff's randomness.
type hooks struct {
	clock  clock.Clock
	onIdle func(time.Time)
	rand   func() float64 // uniform in [0, 1): the backoff's jitter
	// holdFetches keeps every request queued (lookups still run): for
	// measuring what a queue costs in memory.
	holdFetches bool
	// lookupTimeout bounds one host lookup; zero is resolveTimeout.
	lookupTimeout time.Duration
	// onHeld is called, with the scheduler's lock held, each time the
	// scheduler finds Config.MaxUnread Results unread and starts nothing.
	onHeld func()
	// cpu holds the requests in flight down while the CPU is short
	// (schedule.CPUGauge). The fake clock's tests run without: what they
	// check is the rules, and a gauge of the machine's load would make
	// them depend on it.
	cpu schedule.CPUGauge
	// idleConnLife stands for netguard.IdleConnTimeout where the
	// scheduler asks whether a kept connection may still be idle.
	idleConnLife time.Duration
}

// New returns a running Fetcher for cfg, or an error when cfg names a
// crawler dishonestly or malformed (ErrUserAgent, ErrImpersonation).
func New(cfg Config) (*Fetcher, error) {
	return newFetcher(cfg, hooks{clock: clock.Real{}, cpu: schedule.NewCPUGauge()})
}

func newFetcher(cfg Config, hk hooks) (*Fetcher, error) {
	if hk.rand == nil {
		hk.rand = rand.Float64
	}
	if hk.lookupTimeout <= 0 {
		hk.lookupTimeout = resolveTimeout
	}
	set, err := cfg.settle()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &Fetcher{
		set:            set,
		ua:             set.ua.String(),
		uaUnrestricted: set.ua.unrestricted().String(),
		clk:            hk.clock,
		ctx:            ctx,
		cancel:         cancel,
		dispatched:     make(chan struct{}),
		handoff:        make(chan schedule.Job),
		lookupTimeout:  hk.lookupTimeout,
	}
	f.transport.Store(netguard.NewTransport(set.allowPrivate, set.rootCAs))
	f.headers = newRequestHeaders(f.ua, f.uaUnrestricted, set.ua.from(), set.types.accept)
	f.sched = newScheduler(f, hk)
	f.results = newResultQueue(f.sched.Poke)
	if set.pages != nil || set.robotsStore != nil || set.hosts != nil {
		for range f.sched.StoreWorkers() {
			f.workers.Add(1)
			go f.workStore()
		}
	}
	go func() {
		defer close(f.dispatched)
		f.sched.Run()
	}()
	return f, nil
}

// UserAgent returns the User-Agent header the fetcher sends (R4).
func (f *Fetcher) UserAgent() string { return f.ua }

// Add accepts rawURL for fetching and returns at once; exactly one Result
// comes for it later through Results or Next (R11). It accepts nothing and
// returns an error for a URL that can never be fetched (ErrInvalidURL,
// ErrUnsupportedScheme, ErrPrivateAddress), one already added in any
// spelling (ErrDuplicate), after Close (ErrClosed), or when ctx is done.
func (f *Fetcher) Add(ctx context.Context, rawURL string) error {
	return f.add(ctx, rawURL, nil)
}

// Fetch fetches one URL as Add does and waits for its Result, which goes to
// the caller alone, not to Results or Next. If ctx ends first it returns
// ctx.Err() and the Result is dropped. Its errors are Add's.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (*Result, error) {
	reply := make(chan *Result, 1)
	if err := f.add(ctx, rawURL, reply); err != nil {
		return nil, err
	}
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// task checks a URL as Add does and makes its task, requested as the
// normalised URL (session ids stripped, R9); its Result goes to reply,
// or to the queue if reply is nil.
func (f *Fetcher) task(ctx context.Context, rawURL string, reply chan *Result) (*schedule.Task, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("polite: %s not added: %w", rawURL, err)
	}
	n, name, err := checkURL(rawURL, f.set.allowPrivate)
	if err != nil {
		return nil, "", err
	}
	if f.ctx.Err() != nil {
		return nil, "", ErrClosed
	}
	t := schedule.NewTask(rawURL, n)
	if reply != nil {
		t.SetReply(reply)
	}
	return t, name, nil
}

// add accepts a URL; its Result goes to reply, or to the queue if nil.
func (f *Fetcher) add(ctx context.Context, rawURL string, reply chan *Result) error {
	t, name, err := f.task(ctx, rawURL, reply)
	if err != nil {
		return err
	}
	n := t.URL()
	// The set and the post go together: a URL is known as added only if
	// it was accepted, and a second Add after a failed first says closed.
	f.addedMu.Lock()
	defer f.addedMu.Unlock()
	if f.added.Add(name, n) {
		if f.sched.ClosedToAdds() {
			return ErrClosed
		}
		if n == rawURL {
			return fmt.Errorf("%w: %s", ErrDuplicate, rawURL)
		}
		return fmt.Errorf("%w: %s (as %s)", ErrDuplicate, rawURL, n)
	}
	if reply != nil { // its Result is no one else's to wait for
		if !f.sched.Add(t, name) {
			return ErrClosed
		}
		return nil
	}
	f.accepted.Add(1)
	if !f.sched.Add(t, name) {
		f.accepted.Add(-1)
		return ErrClosed
	}
	return nil
}

// Next returns the next Result, waiting for one if none is ready. After
// Close, it returns the Results still queued, then io.EOF. It returns
// ctx.Err() if ctx ends first.
func (f *Fetcher) Next(ctx context.Context) (*Result, error) {
	r, err := f.results.pop(ctx)
	if err == nil {
		f.handled()
	}
	return r, err
}

// Pending reports how many accepted URLs are not yet handled: queued, in
// flight, unread, or in the body of a Results loop. A Result returned by
// Next is handled at once.
func (f *Fetcher) Pending() int {
	// delivered first: it only grows, and never past accepted, so a
	// concurrent Add and delivery can make the count high for a moment,
	// never 0 while something is pending.
	d := f.delivered.Load()
	return int(f.accepted.Load() - d)
}

// Close cancels the requests in flight, answers every URL without a Result
// ErrClosed (R11.2) and waits for the fetcher's goroutines. Results queued
// stay readable. Close is idempotent, and cuts a Shutdown short.
func (f *Fetcher) Close() error {
	f.sched.Close()
	f.cancel()
	f.closeOnce.Do(f.release)
	return nil
}

// Shutdown is Close that lets the requests in flight finish, each with its
// Result; no request starts, and URLs not yet asked get ErrClosed at once.
// If ctx ends first, it is Close and returns ctx.Err().
func (f *Fetcher) Shutdown(ctx context.Context) error {
	f.sched.Close()
	var err error
	select {
	case <-f.dispatched:
	case <-ctx.Done():
		select {
		case <-f.dispatched: // both at once: the requests did finish
		default:
			err = ctx.Err()
		}
	}
	f.cancel()
	f.closeOnce.Do(f.release)
	return err
}

// release waits for the fetcher's goroutines, once the dispatcher has
// been told to close, and lets its connections and Results go.
func (f *Fetcher) release() {
	<-f.dispatched
	f.workers.Wait()
	f.spare.close()
	f.transport.Load().CloseIdleConnections()
	for _, r := range f.retired {
		r.t.CloseIdleConnections() // what requests in flight on it put back
	}
	f.results.close()
}

// freshTransport replaces the transport by one with no connections, and
// closes the idle connections of the old one. Requests in flight on it
// end there. It is called with the scheduler's lock held.
func (f *Fetcher) freshTransport() {
	old := f.transport.Swap(netguard.NewTransport(f.set.allowPrivate, f.set.rootCAs))
	old.CloseIdleConnections()
	now := f.clk.Now()
	// A transport retired long enough ago has nothing left: its last
	// request ended within MaxTimeout, and the connection it put back
	// closed itself after netguard.IdleConnTimeout.
	kept := f.retired[:0]
	for _, r := range f.retired {
		if now.Sub(r.at) > MaxTimeout+netguard.IdleConnTimeout {
			r.t.CloseIdleConnections()
			continue
		}
		kept = append(kept, r)
	}
	clear(f.retired[len(kept):])
	f.retired = append(kept, retiredTransport{t: old, at: now})
}

// retiredTransport is a transport replaced at a time.
type retiredTransport struct {
	t  *http.Transport
	at time.Time
}

// resolveTimeout bounds one host lookup.
const resolveTimeout = 15 * time.Second

// resolve looks a host up and picks the address its budget is keyed on:
// the first one the fetcher may dial (R1.1, R10.1), within the lookup's
// time (R10.2). lc is the worker's lookup contexts: the lookup's clock
// starts here and stops when the resolver answers.
func (f *Fetcher) resolve(j schedule.Job, name string, lc *requestContexts) *schedule.Resolution {
	ctx := lc.begin()
	addrs, err := f.set.resolver.LookupNetIP(ctx, "ip", name)
	lc.end()
	if err != nil {
		if f.ctx.Err() != nil {
			return j.Resolution(nil, fmt.Errorf("%w: resolving %s: %w", ErrClosed, name, err))
		}
		if te, ok := timedOut(ctx); ok && errors.Is(err, context.Canceled) {
			// The resolver gave up because the lookup's time ran out: said
			// as a deadline would be, a timeout. An answer of its own (no
			// such host) that came as the timer fired stays what it is.
			err = te
		}
		return j.Resolution(nil, fmt.Errorf("%w: %s: %w", ErrUnresolved, name, err))
	}
	var refused error
	var usable []netip.Addr
	for _, a := range addrs {
		a = a.Unmap()
		if err := netguard.CheckAddress(a, f.set.allowPrivate); err != nil {
			refused = err
			continue
		}
		usable = append(usable, a)
	}
	if len(usable) > 0 {
		return j.Resolution(usable, nil)
	}
	if refused != nil {
		return j.Resolution(nil, fmt.Errorf("polite: %s resolves to no public address: %w", name, schedule.Nested(refused)))
	}
	return j.Resolution(nil, fmt.Errorf("%w: %s: no addresses", ErrUnresolved, name))
}

// checkURL says whether a URL can ever be fetched. When it can, it
// returns the URL to request, normalised (urltrap.Normalize: R9.1), and
// the host key read off that URL, not off raw: the host in its one normal
// form, lower case, IDNA A-label, no trailing dot, without port (R1.1).
// The key is what the scheduler stops, looks up and budgets; Add and
// every redirect hop go through here, so one host has one key however a
// link spells it.
func checkURL(raw string, allowPrivate bool) (target, name string, err error) {
	if len(raw) > MaxURLLength {
		return "", "", fmt.Errorf("%w: %d bytes, more than %d", ErrInvalidURL, len(raw), MaxURLLength)
	}
	raw = urltrap.TrimSpace(raw) // as a browser reads an href, at both ends
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return "", "", fmt.Errorf("%w: %q is not absolute", ErrInvalidURL, raw)
	default:
		return "", "", fmt.Errorf("%w: %q in %q: only http and https", ErrUnsupportedScheme, u.Scheme, raw)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return "", "", fmt.Errorf("%w: %q has no host", ErrInvalidURL, raw)
	}
	if u.User != nil {
		return "", "", fmt.Errorf("%w: %q carries credentials; the fetcher never logs in", ErrInvalidURL, raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", "", fmt.Errorf("%w: port %q", ErrInvalidURL, p)
		}
	}
	given := strings.ToLower(u.Hostname())
	if err := refuseLiteral(raw, given, allowPrivate); err != nil {
		return "", "", err
	}
	if target, err = normalise(raw); err != nil {
		return "", "", err
	}
	if len(target) > MaxURLLength { // percent-encoding lengthens it
		return "", "", fmt.Errorf("%w: %d bytes once normalised, more than %d", ErrInvalidURL, len(target), MaxURLLength)
	}
	n, err := url.Parse(target)
	if err != nil { // cannot happen: Normalize writes what net/url reads
		return "", "", fmt.Errorf("%w: %q: %v", ErrInvalidURL, target, err)
	}
	name = n.Hostname()
	if name != given {
		// A spelling that becomes an address only once normalised
		// ("10.0.0.1.", fullwidth digits, "0xa.1") is judged as that address.
		if err := refuseLiteral(raw, name, allowPrivate); err != nil {
			return "", "", err
		}
	}
	return target, name, nil
}

// refuseLiteral is the error, naming raw, for a host that is written as
// an address the guard refuses (R10.1); nil for a name or an address it
// allows.
func refuseLiteral(raw, host string, allowPrivate bool) error {
	a, ok := netguard.LiteralAddr(host)
	if !ok {
		return nil
	}
	if err := netguard.CheckAddress(a, allowPrivate); err != nil {
		return fmt.Errorf("polite: %s: %w", raw, schedule.Nested(err))
	}
	return nil
}
