package schedule

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/clock"
	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/robotstxt"
	"github.com/politecrawler/polite/internal/urltrap"
)

// The harness drives the scheduler as the fetcher does (the root's
// scheduler.go, work.go), with no request made: Run is the dispatcher on
// its own goroutine, scriptedRoot.Start holds every job handed out for the
// test to answer, and the test answers it through Report with the
// Resolution or Completion it builds. The clock is a clock.Fake; the
// dispatcher's timer fires only when the test moves it, and settle waits
// for the dispatcher through its inbox, never for time.

// scriptedRoot is a Root that makes no request: it holds the jobs handed
// out and records what the scheduler tells it.
type scriptedRoot struct {
	mu        sync.Mutex
	jobs      []Job             // handed out and not yet taken by the test
	taken     []Job             // taken by the test and not yet answered
	started   chan struct{}     // a note that a job was handed out
	delivered map[string]End    // by the task's raw URL
	order     []string          // the delivered URLs, in order
	stops     map[string]error  // LogStop's causes, by host
	observed  []observedRequest // Observed's, in order
	fresh     int               // FreshTransport's calls
}

// observedRequest is one Observed call.
type observedRequest struct {
	url   string
	addr  netip.Addr
	start time.Time
	end   time.Time
	gap   time.Duration
	rest  pacing.Rest
}

// The root's errors, to tell apart with errors.As.
type (
	stoppedErr struct {
		host  string
		cause error
	}
	parkedErr struct {
		host  string
		until time.Time
	}
	disallowedErr struct{ url string }
)

func (e *stoppedErr) Error() string    { return "host " + e.host + " stopped: " + e.cause.Error() }
func (e *stoppedErr) Unwrap() error    { return e.cause }
func (e *parkedErr) Error() string     { return "host " + e.host + " parked until " + e.until.String() }
func (e *disallowedErr) Error() string { return e.url + " disallowed" }

func (r *scriptedRoot) Start(j Job) {
	r.mu.Lock()
	r.jobs = append(r.jobs, j)
	r.mu.Unlock()
	select {
	case r.started <- struct{}{}:
	default:
	}
}

func (r *scriptedRoot) Deliver(t *Task, e End) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.delivered[t.Raw()] = e
	r.order = append(r.order, t.Raw())
}

func (r *scriptedRoot) Observed(c *Completion, gap time.Duration, first bool, rest pacing.Rest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.observed = append(r.observed, observedRequest{url: c.Task.URL(), addr: c.Budget.Addr(),
		start: c.Start, end: c.End, gap: gap, rest: rest})
}

func (r *scriptedRoot) Stopped(host string, cause error) error {
	return &stoppedErr{host: host, cause: cause}
}

func (r *scriptedRoot) Parked(host string, until time.Time) error {
	return &parkedErr{host: host, until: until}
}

func (r *scriptedRoot) Disallowed(url, agent string, d robotstxt.Decision) error {
	return &disallowedErr{url: url}
}

func (r *scriptedRoot) Trapped(url string, kind urltrap.Kind, reason string) error {
	return errors.New(url + ": trap: " + reason)
}

func (r *scriptedRoot) Silent(c *Completion) error {
	return errors.New("robots.txt says nothing of its rules")
}

func (r *scriptedRoot) LogStop(host string, cause error, at time.Time, failures int) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stops[host] = cause
	return "stop", false
}

func (r *scriptedRoot) ReaderBehind() bool      { return false }
func (r *scriptedRoot) Transport() any          { return nil }
func (r *scriptedRoot) FreshTransport()         { r.mu.Lock(); r.fresh++; r.mu.Unlock() }
func (r *scriptedRoot) HoldAdds()               {}
func (r *scriptedRoot) ReleaseAdds()            {}
func (r *scriptedRoot) ForgetAdded(host string) {}

func (r *scriptedRoot) Literal(name string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(name)
	return a, err == nil
}

// takeAll hands the test every job out, taken or not.
func (r *scriptedRoot) takeAll() []Job {
	r.mu.Lock()
	defer r.mu.Unlock()
	jobs := append(r.jobs, r.taken...)
	r.jobs, r.taken = nil, nil
	return jobs
}

// answered forgets a job taken, as it is reported.
func (r *scriptedRoot) answered(j Job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.taken = slices.DeleteFunc(r.taken, func(k Job) bool { return k == j })
}

// rig is a scheduler run by its dispatcher, with a scripted root and a
// fake clock.
type rig struct {
	t    *testing.T
	clk  *clock.Fake
	s    *Scheduler
	root *scriptedRoot
}

// The settings a rig runs with unless a test tunes them: the rules'
// own bounds, and a jitter of 0, so the backoff after the n-th failure
// in a row is its least, 10 s × 2^(n−1) ÷ 2 (R2.5).
const (
	rigFloor      = pacing.MinRest
	rigFactor     = pacing.MinDurationFactor
	rigMaxBackoff = pacing.DefaultMaxBackoff
	rigHorizon    = time.Hour
	rigStopAfter  = 5
)

// newRig runs a scheduler for the test; its end closes it, answering
// every job still out.
func newRig(t *testing.T, tune ...func(*Config)) *rig {
	t.Helper()
	clk := clock.NewFake()
	cfg := Config{
		Clock:          clk,
		Rand:           func() float64 { return 0 },
		IdleConnLife:   time.Minute,
		MaxInFlight:    64,
		Pacing:         pacing.Policy{Floor: rigFloor, Factor: rigFactor},
		MaxBackoff:     rigMaxBackoff,
		Horizon:        rigHorizon,
		FailuresToStop: rigStopAfter,
		Agent:          "testbot",
		Policy:         func(string) Policy { return Policy{} },
		Logger:         slog.New(slog.DiscardHandler),
		Traps:          urltrap.Limits{MaxLength: -1},
	}
	for _, f := range tune {
		f(&cfg)
	}
	root := &scriptedRoot{started: make(chan struct{}, 1), delivered: make(map[string]End),
		stops: make(map[string]error)}
	r := &rig{t: t, clk: clk, s: New(cfg, root), root: root}
	done := make(chan struct{})
	go func() {
		r.s.Run()
		close(done)
	}()
	t.Cleanup(func() { r.close(done) })
	return r
}

// close ends the run as Fetcher.Close does: Close, then every job out
// reports, cancelled, until the dispatcher returns.
func (r *rig) close(done <-chan struct{}) {
	r.s.Close()
	for {
		for _, j := range r.root.takeAll() {
			for more := true; more; {
				if j.Lookup() != "" {
					j, more = r.s.Report(j.Resolution(nil, ErrClosed), nil)
					continue
				}
				now := r.clk.Now()
				j, more = r.s.Report(nil, &Completion{Task: j.Task(), Budget: j.Budget(),
					Err: ErrClosed, Start: now, End: now})
			}
		}
		select {
		case <-done:
			return
		case <-r.root.started:
		}
	}
}

// settle returns once the dispatcher has acted on everything done before
// it: it answers a query in the same pass as it takes the inbox, before
// it hands out the jobs due, so the second query's answer comes after a
// whole pass that began after the first.
func (r *rig) settle() {
	r.t.Helper()
	for range 2 {
		reply := make(chan Snapshot, 1)
		if !r.s.Query(reply) {
			r.t.Fatal("the dispatcher has ended")
		}
		<-reply
	}
}

// add hands URLs to the scheduler as Fetcher.Add does.
func (r *rig) add(urls ...string) {
	r.t.Helper()
	for _, u := range urls {
		p, err := url.Parse(u)
		if err != nil {
			r.t.Fatal(err)
		}
		if !r.s.Add(NewTask(u, u), strings.ToLower(p.Hostname())) {
			r.t.Fatalf("Add(%s) refused", u)
		}
	}
}

// name is what a job asks for: its request's URL, or "lookup " and the
// host it resolves.
func name(j Job) string {
	if h := j.Lookup(); h != "" {
		return "lookup " + h
	}
	return j.Task().URL()
}

// out lists the jobs out, once the dispatcher has settled.
func (r *rig) out() []string {
	r.t.Helper()
	r.settle()
	r.root.mu.Lock()
	defer r.root.mu.Unlock()
	return r.namesLocked()
}

// isOut reports whether a job for what is out.
func (r *rig) isOut(what string) bool {
	r.t.Helper()
	return slices.Contains(r.out(), what)
}

// take takes the job out for what, a URL or "lookup host", to answer;
// the test fails if there is none.
func (r *rig) take(what string) Job {
	r.t.Helper()
	r.settle()
	r.root.mu.Lock()
	defer r.root.mu.Unlock()
	for i, j := range r.root.jobs {
		if name(j) == what {
			r.root.jobs = slices.Delete(r.root.jobs, i, i+1)
			r.root.taken = append(r.root.taken, j)
			return j
		}
	}
	r.t.Fatalf("%v: no job out for %s (out: %v)", r.clk.Now().Sub(clock.Epoch), what, r.namesLocked())
	return Job{}
}

// namesLocked lists the jobs out; the root's lock is held.
func (r *rig) namesLocked() []string {
	names := make([]string, len(r.root.jobs))
	for i, j := range r.root.jobs {
		names[i] = name(j)
	}
	return names
}

// dueAt moves the clock to at and takes the job for what, which must not
// have been out a millisecond before.
func (r *rig) dueAt(what string, at time.Time) Job {
	r.t.Helper()
	r.clk.Set(at.Add(-time.Millisecond))
	if r.isOut(what) {
		r.t.Fatalf("%s handed out before %v", what, at.Sub(clock.Epoch))
	}
	r.clk.Set(at)
	return r.take(what)
}

// handedOut keeps a job Report handed its goroutine next, as a worker
// goes on with it.
func (r *rig) handedOut(j Job, more bool) {
	if more {
		r.root.Start(j)
	}
}

// resolve answers a lookup job with addresses, the first keying the
// budget (R1.1).
func (r *rig) resolve(j Job, addrs ...string) {
	r.t.Helper()
	as := make([]netip.Addr, len(addrs))
	for i, a := range addrs {
		as[i] = netip.MustParseAddr(a)
	}
	r.root.answered(j)
	r.handedOut(r.s.Report(j.Resolution(as, nil), nil))
}

// reply is what a request job came to, as the root's worker judges it.
type reply struct {
	Status int
	Failed bool // R2.5's kinds: it backs the host off and counts to R3.2
	// RetryAfter is the server's wait (R2.4), when above zero.
	RetryAfter time.Duration
	Took       time.Duration // the clock moves by it, from Start to End (R1.3)
	Answer     RobotsAnswer  // a robots.txt response's (R5.2)
	Rules      string        // a robots.txt body, for RobotsRules
}

// Replies the tests give.
var (
	ok             = reply{Status: 200}
	noRobots       = reply{Status: 404, Answer: RobotsAllowAll}
	unavailable    = reply{Status: 503, Failed: true}
	robotsDownFive = reply{Status: 500, Failed: true}
)

// answer reports a request job: it starts now and ends Took later, when
// the clock is left. It returns the Completion reported.
func (r *rig) answer(j Job, rp reply) *Completion {
	r.t.Helper()
	if j.Task() == nil {
		r.t.Fatalf("answer: %s is no request", name(j))
	}
	c := &Completion{Task: j.Task(), Budget: j.Budget(), Status: rp.Status, Failed: rp.Failed,
		RetryAfter: rp.RetryAfter, HasRetryAfter: rp.RetryAfter > 0, Answer: rp.Answer}
	c.Start = r.clk.Now()
	r.clk.Advance(rp.Took)
	c.End = r.clk.Now()
	if rp.Failed {
		c.Err = fmt.Errorf("status %d", rp.Status)
	}
	if j.Task().Robots() {
		c.RobotsFailed = rp.Failed
		if rp.Answer == RobotsRules {
			c.Rules = robotstxt.Parse([]byte(rp.Rules))
		}
	}
	r.root.answered(j)
	r.handedOut(r.s.Report(nil, c))
	return c
}

// fetch takes the job out for what and answers it.
func (r *rig) fetch(what string, rp reply) *Completion {
	r.t.Helper()
	return r.answer(r.take(what), rp)
}

// result is the one answer delivered for a URL; the test fails without one.
func (r *rig) result(u string) End {
	r.t.Helper()
	e, ok := r.answerFor(u)
	if !ok {
		r.root.mu.Lock()
		defer r.root.mu.Unlock()
		r.t.Fatalf("%s: no result (delivered: %v)", u, r.root.order)
	}
	return e
}

// delivered reports whether a URL has its answer.
func (r *rig) delivered(u string) bool {
	r.t.Helper()
	_, ok := r.answerFor(u)
	return ok
}

// answerFor is the answer delivered for a URL, once the dispatcher has
// settled.
func (r *rig) answerFor(u string) (End, bool) {
	r.t.Helper()
	r.settle()
	r.root.mu.Lock()
	defer r.root.mu.Unlock()
	e, ok := r.root.delivered[u]
	return e, ok
}

// TestRigAnswersAPage shows the harness itself: a URL of an IP literal
// needs no lookup, its robots.txt goes first, and the page's answer is
// the Completion reported for it.
func TestRigAnswersAPage(t *testing.T) {
	r := newRig(t)
	r.add("http://192.0.2.1/a")
	r.fetch("http://192.0.2.1/robots.txt", noRobots)
	j := r.dueAt("http://192.0.2.1/a", clock.Epoch.Add(rigFloor))
	c := r.answer(j, ok)
	if e := r.result("http://192.0.2.1/a"); e.Err != nil || e.Response != c {
		t.Errorf("the page's answer: %+v, want the Completion reported", e)
	}
	if got := r.out(); len(got) != 0 {
		t.Errorf("jobs out after the last answer: %v", got)
	}
}

// clockAt is the time d after the rig's clock started.
func clockAt(d time.Duration) time.Time { return clock.Epoch.Add(d) }
