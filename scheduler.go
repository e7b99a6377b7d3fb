package polite

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
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
		KeepRests:      set.rests != nil,
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
