package polite

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/politecrawler/polite/internal/netguard"
	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/robotstxt"
	"github.com/politecrawler/polite/internal/schedule"
	"github.com/politecrawler/polite/internal/urltrap"
)

// The scheduler (internal/schedule) keeps R1 and R2: one request in flight
// per budget, a budget being a server address every host resolving to it
// shares (R1.1), and a rest after every response. Result.Rest is that
// rest: the wait its response imposed on its budget, measured from the end
// of the response (R1.3), and the term of R2 that set it. This file is the
// fetcher's side of the seam: the scheduler decides, and the fetcher
// builds the Results and public errors of its outcomes.

// newScheduler is the scheduler for a fetcher's settings and test hooks.
func newScheduler(f *Fetcher, hk hooks) *schedule.Scheduler {
	set := &f.set
	return schedule.New(schedule.Config{
		Clock:          hk.clock,
		OnIdle:         hk.onIdle,
		Rand:           hk.rand,
		HoldFetches:    hk.holdFetches,
		IdleConnLife:   cmp.Or(hk.idleConnLife, netguard.IdleConnTimeout),
		OnHeld:         hk.onHeld,
		MaxInFlight:    set.maxInFlight,
		CPU:            hk.cpu,
		Pacing:         set.pacing,
		APIFloor:       set.apiFloor,
		MaxBackoff:     set.maxBackoff,
		Horizon:        set.horizon,
		Retries:        set.retries,
		FailuresToStop: FailuresToStop,
		Agent:          set.ua.product(),
		Policy:         set.policyFor,
		RecallHosts:    set.hosts != nil,
		RecallRobots:   set.robotsStore != nil,
		PageCopies:     set.pages != nil,
		Logger:         set.logger,
		Traps:          trapLimits,
	}, (*rootSide)(f))
}

// rootSide is the Fetcher as the scheduler sees it (schedule.Root). Its
// methods run with the scheduler's lock held.
type rootSide Fetcher

// Start runs a job on a goroutine of its own (R1.2): one waiting for work,
// or a new one. The work, not a pool, says how many are in flight.
func (f *rootSide) Start(j schedule.Job) {
	select {
	case f.handoff <- j:
	default:
		f.workers.Add(1)
		go (*Fetcher)(f).work(j)
	}
}

// publicRest is a pacing rest told as the public Rest.
func publicRest(r pacing.Rest) Rest { return Rest{Wait: r.Wait, Term: RestTerm(r.Term)} }

// Deliver builds a URL's one Result (R11.1) and queues it for the reader.
func (f *rootSide) Deliver(t *schedule.Task, e schedule.End) {
	r := &Result{Err: e.Err, Attempts: e.Attempts}
	if c := e.Response; c != nil {
		p := c.Payload.(*completion)
		r.Status, r.Header, r.Body, r.Truncated, r.Request = c.Status, p.header, p.body, p.truncated, p.request
		r.Addr, r.Started, r.Duration = c.Budget.Addr(), c.Start, c.End.Sub(c.Start)
		r.Rest = publicRest(e.Rest)
		if p.stored != nil { // 304: the stored copy is the page (R6.2)
			r.Status, r.Header, r.Body, r.NotModified = p.stored.Status, p.stored.Header, p.stored.Body, true
			r.NotModifiedHeader, r.CopyFetched = p.header, p.stored.Fetched
		}
		r.page, r.Signals = p.page, p.signals
		if c.Status != 0 {
			r.Verdict = p.verdict
		}
	}
	r.URL = t.Raw()
	r.FinalURL = t.URL()
	if hops := t.Hops(); hops != nil {
		r.Redirects = make([]Hop, len(hops))
		for i, h := range hops {
			r.Redirects[i] = Hop{URL: h.URL, Status: h.Status, Location: h.Location,
				Addr: h.Addr, Started: h.Started, Duration: h.Duration, Rest: publicRest(h.Rest)}
		}
	}
	if r.Attempts == 0 {
		r.Attempts = t.Retries() // tried before it was turned away
	}
	if reply, ok := t.Reply().(chan *Result); ok {
		reply <- r // Fetch's: buffered for its one Result
		return
	}
	f.results.push(r)
}

// Observed reports a finished request to Config.OnRequest.
func (f *rootSide) Observed(c *schedule.Completion, gap time.Duration, first bool, rest pacing.Rest) {
	if f.set.onRequest == nil {
		return
	}
	var v Verdict
	if c.Status != 0 {
		v = c.Payload.(*completion).verdict
	}
	f.set.onRequest(RequestEvent{
		URL: c.Task.URL(), Addr: c.Budget.Addr(), Robots: c.Task.Robots(),
		Status: c.Status, Err: c.Err, Verdict: v,
		Started: c.Start, Duration: c.End.Sub(c.Start), Gap: gap, First: first, Rest: publicRest(rest),
	})
}

// Stopped is the error of every URL of a host stopped for cause (R3).
func (f *rootSide) Stopped(host string, cause error) error {
	return &StoppedError{Host: host, Cause: cause}
}

// Parked is the error of a URL whose server asked for a wait beyond the horizon (R2.4).
func (f *rootSide) Parked(host string, until time.Time) error {
	return &ParkedError{Host: host, Until: until}
}

// Disallowed is the error of a URL robots.txt disallows, with the rule (R5.4).
func (f *rootSide) Disallowed(url, agent string, d robotstxt.Decision) error {
	return &DisallowedError{URL: url, Agent: agent, Decision: Decision(d)}
}

// Trapped is the error of a URL dropped as a trap (R9).
func (f *rootSide) Trapped(url string, kind urltrap.Kind, reason string) error {
	return &TrapError{URL: url, Kind: TrapKind(kind), Reason: reason}
}

// Silent is the error of a robots.txt answer that says nothing of its rules.
func (f *rootSide) Silent(c *schedule.Completion) error {
	var status int
	var kind ResponseKind
	if c != nil {
		status = c.Status
		if status != 0 {
			kind = c.Payload.(*completion).verdict.Kind
		}
	}
	return fmt.Errorf("status %d (%v) says nothing of its rules", status, kind)
}

// LogStop logs a host's stop with the evidence an operator needs (R3.4),
// and says its kind and whether later runs keep it (R3.3).
func (f *rootSide) LogStop(host string, cause error, at time.Time, failures int) (string, bool) {
	kind := stopKind(cause)
	attrs := []any{"host", host, "time", at, "cause", cause.Error()}
	var ref *RefusalError
	switch {
	case errors.Is(cause, ErrCertificate):
		// Not a refusal: nothing is kept for later runs (R3.3).
		attrs = append(attrs, "kind", StopCertificate)
		f.set.logger.Warn("polite: certificate not trusted; host stopped for the run", attrs...)
		return string(kind), false
	case errors.As(cause, &ref):
		attrs = append(attrs, "url", ref.URL, "status", ref.Status, "kind", ref.Verdict.Kind.String(),
			"challenge", ref.Verdict.Challenge, "vendor", ref.Verdict.Vendor, "evidence", ref.Verdict.Evidence)
		f.set.logger.Warn("polite: refused; host stopped for the run", attrs...)
	default:
		attrs = append(attrs, "kind", StopFailures, "failures", failures)
		f.set.logger.Warn("polite: failures in a row; host stopped for the run", attrs...)
	}
	return string(kind), true
}

// ReaderBehind reports whether Config.MaxUnread Results wait unread.
func (f *rootSide) ReaderBehind() bool { return f.results.full(f.set.maxUnread) }

// Transport is the transport a request handed out now goes through.
func (f *rootSide) Transport() any { return f.transport.Load() }

// FreshTransport replaces the transport (see Fetcher.freshTransport).
func (f *rootSide) FreshTransport() { (*Fetcher)(f).freshTransport() }

// HoldAdds keeps Add out while idle hosts are forgotten.
func (f *rootSide) HoldAdds() { f.addedMu.Lock() }

// ReleaseAdds lets Add in again.
func (f *rootSide) ReleaseAdds() { f.addedMu.Unlock() }

// ForgetAdded forgets the URLs added for a host forgotten.
func (f *rootSide) ForgetAdded(host string) { f.added.Forget(host) }

// Literal reports whether a host name is an IP address.
func (f *rootSide) Literal(name string) (netip.Addr, bool) { return netguard.LiteralAddr(name) }

// The pacing rules of R2 that no option can loosen.
const (
	MinRest           = pacing.MinRest           // the floor after a request to a web site: 3 s (R2.1)
	MinDurationFactor = pacing.MinDurationFactor // the least multiple of the last request's duration rested: 5 (R2.2)
	DurationRestCap   = pacing.DurationRestCap   // the cap of the duration term: 30 s (R2.2)
	CrawlDelayCap     = pacing.CrawlDelayCap     // the cap of the Crawl-delay term: 60 s (R2.3)
)

// RestTerm names the term of R2 that set a rest.
type RestTerm uint8

// The terms of R2, in the order a tie is reported: when two terms give the
// same wait, the earlier one is named.
const (
	RestFloor      RestTerm = RestTerm(pacing.Floor)      // R2.1: the floor
	RestDuration   RestTerm = RestTerm(pacing.Duration)   // R2.2: a multiple of the last request's duration
	RestCrawlDelay RestTerm = RestTerm(pacing.CrawlDelay) // R2.3: robots.txt Crawl-delay
	RestRetryAfter RestTerm = RestTerm(pacing.RetryAfter) // R2.4: the server's Retry-After
	RestBackoff    RestTerm = RestTerm(pacing.Backoff)    // R2.5: backoff after failures in a row
)

var restTermNames = [...]string{
	RestFloor:      "floor",
	RestDuration:   "duration",
	RestCrawlDelay: "crawl-delay",
	RestRetryAfter: "retry-after",
	RestBackoff:    "backoff",
}

// String returns the term's short name: "floor", "duration", "crawl-delay",
// "retry-after" or "backoff".
func (t RestTerm) String() string {
	if int(t) < len(restTermNames) {
		return restTermNames[t]
	}
	return fmt.Sprintf("RestTerm(%d)", uint8(t))
}

// Rest is how long a budget waits after a response before its next
// request, measured from the end of that response (R1.3), and the term of
// R2 that set it.
type Rest struct {
	Wait time.Duration
	Term RestTerm
}

// String reads like "3s (floor)", the wait rounded to the millisecond;
// the zero Rest, of a Result for which no request was made, reads "none".
func (r Rest) String() string {
	if r == (Rest{}) {
		return "none"
	}
	return fmt.Sprintf("%v (%v)", r.Wait.Round(time.Millisecond), r.Term)
}

// restAfter is pacing.RestAfter (R2) told as the public Rest.
func restAfter(p pacing.Policy, o pacing.Outcome) Rest {
	r := pacing.RestAfter(p, o)
	return Rest{Wait: r.Wait, Term: RestTerm(r.Term)}
}

// isRedirect says whether a status is a redirect the fetcher follows
// when it has a Location (R8.3): 301, 302, 303, 307 and 308.
func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// redirectTarget resolves a redirect's Location against the URL that sent
// it and says whether the chain may go there, in the worker: the
// scheduler then follows it, each hop through admission again, its own
// host, budget and rest, its own checks (R8.3), or ends the chain with
// the reason. A chain ends at a loop, a sixth hop, or a target the
// fetcher may not fetch.
func (f *Fetcher) redirectTarget(t *schedule.Task, loc string) (target, name string, err error) {
	from := t.URL()
	if len(t.Hops()) >= MaxRedirects {
		return "", "", fmt.Errorf("%w: %s redirected more than %d times", ErrTooManyRedirects, t.Raw(), MaxRedirects)
	}
	base, err := url.Parse(from)
	if err != nil { // cannot happen: from was admitted
		return "", "", fmt.Errorf("%w: %q", ErrInvalidURL, from)
	}
	next, err := base.Parse(loc)
	if err != nil {
		return "", "", fmt.Errorf("%w: redirect from %s to %q: %v", ErrInvalidURL, from, loc, err)
	}
	next.Fragment, next.RawFragment = "", ""
	// The hop is admitted as Add admits a URL: normalised, and keyed on
	// the host of the URL it will request (R1.1), so a stopped host is
	// stopped under every spelling of its name, and a loop is seen
	// whatever the spelling of the URL it leads back to.
	target, name, err = checkURL(next.String(), f.set.allowPrivate)
	if err != nil {
		return "", "", fmt.Errorf("redirect from %s: %w", from, err)
	}
	loop := target == from
	for _, h := range t.Hops() {
		loop = loop || h.URL == target
	}
	if loop {
		return "", "", fmt.Errorf("%w: %s leads back to %s", ErrRedirectLoop, from, target)
	}
	return target, name, nil
}

// Traps (R9): URLs are normalised before they are queued (case, default
// ports, dot segments, fragments, percent-encoding, session ids), and a
// URL that looks like a trap is dropped with a Result that names it:
// endless calendars, repeating path segments, absurd depth or length, a
// URL already added, or a URL pattern whose pages keep repeating the same
// content. Nothing is dropped without a Result.

// TrapKind names a kind of crawler trap (R9); Stats.Traps counts by it.
type TrapKind string

// The traps a URL is dropped for: the names of internal/urltrap's kinds.
const (
	TrapCalendar          TrapKind = "calendar"           // a date far from today in the path or query
	TrapSessionID         TrapKind = "session-id"         // a session id in the URL
	TrapRepeatingSegments TrapKind = "repeating-segments" // a path whose segments repeat
	TrapTooDeep           TrapKind = "too-deep"           // more path segments than a site has
	TrapRepeatedContent   TrapKind = "repeated-content"   // a URL pattern whose pages serve one content
)

// trapLimits are the trap detector's bounds: at most 16 path segments,
// dates within 2 years of today, and a URL pattern dropped after 5 of its
// pages served the same content. The length is not a trap: checkURL
// refuses a URL over MaxURLLength before it is accepted, so one bound
// holds for Add and for every redirect.
var trapLimits = urltrap.Limits{MaxLength: -1}

// normalise is the URL the fetcher requests for one a caller gave.
func normalise(raw string) (string, error) {
	n, err := urltrap.Normalize(raw)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	return n, nil
}

// bodyHash identifies a page's content for the repeated-content check.
// The hashes are compared within one process only, so a seed made at
// start suits; maphash reads many bytes a step, where a byte-at-a-time
// hash such as FNV costs a multiplication per byte of every page.
func bodyHash(b []byte) uint64 { return maphash.Bytes(bodyHashSeed, b) }

var bodyHashSeed = maphash.MakeSeed()
