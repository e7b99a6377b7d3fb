package schedule

import (
	"net/netip"
	"time"

	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/robotstxt"
	"golang.org/x/time/rate"
)

// Task is one accepted URL on its way to a Result, across its redirects.
// It is kept small: a million of them may wait in queues (the target is
// 100 bytes per queued URL, BenchmarkMemoryPerHostAndURL), so what few tasks
// need lives behind rare.
type Task struct {
	raw  string // as given to Add
	host *host
	// robots is set on the fetcher's own robots.txt requests: their
	// answer goes to the origin's rules, not to a Result (R5).
	robots *origin
	// rules are the robots.txt rules the page was admitted under; their
	// content signals apply to it (R7.1). Nil without robots.txt.
	rules *robotstxt.File
	rare  *taskRare
}

// taskRare is what only some tasks carry.
type taskRare struct {
	cur  string // the URL of the next request, when it is not raw
	hops []Hop  // redirects followed (R8.3)
	// Validators of a stored robots.txt copy, for a conditional refresh
	// (R5.3), or of a page's stored copy, once copy says it is known (R6.1).
	ifNoneMatch, ifModifiedSince string
	copy                         copyState
	haveCopy                     bool // a page's copy is stored
	// retries are the requests of the current URL that failed transiently
	// and were tried again (R11.3); lastFailure is the last one's error.
	retries     int
	lastFailure error
	// reply is where the root delivers the task's Result, when its caller
	// waits for it alone (Fetcher.Fetch), in place of the queue.
	reply any
	// rulesOnly: the task asks for its origin's robots.txt rules and no
	// page; it ends, with no request of its own, once they are known
	// (Fetcher.FetchRobots).
	rulesOnly bool
}

// Hop is one redirect followed (R8.3): the request that answered with it.
type Hop struct {
	URL      string
	Status   int
	Location string
	Addr     netip.Addr
	Started  time.Time
	Duration time.Duration
	Rest     pacing.Rest
}

// NewTask is a URL given to Add as raw, to be requested as normalised.
func NewTask(raw, normalised string) *Task {
	t := &Task{raw: raw}
	if normalised != raw {
		t.setURL(normalised) // the URL requested: normalised, session ids stripped (R9)
	}
	return t
}

// SetReply says where the task's Result goes, in the root's terms.
func (t *Task) SetReply(reply any) {
	if t.rare == nil {
		t.rare = &taskRare{}
	}
	t.rare.reply = reply
}

// SetRulesOnly makes t ask for its origin's robots.txt rules, through
// the budget as before any page, and for no page: it ends when the rules
// are known, or with the error that turns its pages away.
func (t *Task) SetRulesOnly() {
	if t.rare == nil {
		t.rare = &taskRare{}
	}
	t.rare.rulesOnly = true
}

func (t *Task) isRulesOnly() bool { return t.rare != nil && t.rare.rulesOnly }

// Reply is what SetReply said; nil for a task whose Result is queued.
func (t *Task) Reply() any {
	if t.rare == nil {
		return nil
	}
	return t.rare.reply
}

// Raw is the URL as given to Add.
func (t *Task) Raw() string { return t.raw }

// Retries is how many times the current URL was tried again.
func (t *Task) Retries() int {
	if t.rare == nil {
		return 0
	}
	return t.rare.retries
}

// Hops are the redirects followed so far.
func (t *Task) Hops() []Hop {
	if t.rare == nil {
		return nil
	}
	return t.rare.hops
}

// URL is the URL of the task's next request.
func (t *Task) URL() string {
	if t.rare == nil || t.rare.cur == "" {
		return t.raw
	}
	return t.rare.cur
}

// setURL makes u the URL of the task's next request.
func (t *Task) setURL(u string) {
	if t.rare == nil {
		t.rare = &taskRare{}
	}
	t.rare.cur = u
}

// Robots reports whether the task is the fetcher's own robots.txt request.
func (t *Task) Robots() bool { return t.robots != nil }

// RobotsElsewhere reports whether a robots.txt task may be answered by a
// copy another process has just fetched: not while the last such copy is
// still being taken up, nor after it was found stale here (the clocks of
// two machines disagree): then this process fetches it itself.
func (t *Task) RobotsElsewhere() bool { return t.robots != nil && !t.robots.fromElsewhere }

// Origin is the origin key of a robots.txt task (scheme://host:port).
func (t *Task) Origin() string { return t.robots.key }

// Rules are the robots.txt rules the page was admitted under (R7.1).
func (t *Task) Rules() *robotstxt.File { return t.rules }

// Host is the name of the task's host, lower-case.
func (t *Task) Host() string { return t.host.name }

// Unrestricted reports whether the task's host is not read robots.txt for (R5.6).
func (t *Task) Unrestricted() bool { return t.host.policy.Unrestricted }

// Validators are those of a stored copy, for a conditional request (R5.3, R6.1).
func (t *Task) Validators() (ifNoneMatch, ifModifiedSince string) {
	if t.rare == nil {
		return "", ""
	}
	return t.rare.ifNoneMatch, t.rare.ifModifiedSince
}

// HaveCopy reports whether a store job found the page's copy stored (R6.1).
func (t *Task) HaveCopy() bool { return t.rare != nil && t.rare.haveCopy }

// Policy is what the Config says of one host name.
type Policy struct {
	API          bool          // a documented API: no robots.txt, its own floor (R5.5)
	Limiter      *rate.Limiter // the rate of its terms, when given
	Unrestricted bool          // robots.txt not read this run (R5.6)
}

func (p Policy) readsRobots() bool { return !p.API && !p.Unrestricted }

// apiFloor is the floor between requests to a documented API (R2.1).
const apiFloor = time.Second

// host is a host name and what the scheduler knows of it.
type host struct {
	name      string  // lower-case name or IP literal, without port
	resolving bool    // a lookup is queued or running
	err       error   // the lookup failed: final for the run
	budget    *Budget // set once resolved
	waiting   []*Task // accepted while resolving
	// crawlDelay is the host's robots.txt Crawl-delay (R2.3). The robots
	// gate sets it.
	crawlDelay time.Duration
	failures   int // failures in a row (R2.5, R3.2); a response resets it
	// lookupFailures are its lookups failing in a row (R5.2, R3.2); a
	// lookup that answers resets them.
	lookupFailures int
	retryAt        time.Time // when a lookup that failed for a moment is tried again
	// resolvedAt is when its address was last looked up; zero for an IP
	// literal, which is never looked up.
	resolvedAt time.Time
	stopped    error // why the host is stopped for the run (R3.1, R3.2)
	policy     Policy
	origins    []*origin // its schemes and ports, each with its robots.txt
	// floorFactor multiplies its floor after earlier cool-offs (R2.6).
	floorFactor int
	// keptAt is when, on the wall clock, its last response's connection
	// was kept, for net/http to hold idle by the host's name and port;
	// zero when it was not (forget.go).
	keptAt time.Time
	// open counts its URLs not yet answered; lastUsed is when one was
	// last admitted or answered (forget.go).
	open     int
	lastUsed time.Time
}
