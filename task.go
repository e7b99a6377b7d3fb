package polite

import "time"

// task is one accepted URL on its way to a Result, across its redirects.
// It is kept small: a million of them may wait in queues (the target is
// 100 bytes per queued URL, BenchmarkMemoryPerHostAndURL), so what few tasks
// need lives behind rare.
type task struct {
	raw  string // as given to Add
	host *host
	// robots is set on the fetcher's own robots.txt requests: their
	// answer goes to the origin's rules, not to a Result (R5).
	robots *origin
	// rules are the robots.txt rules the page was admitted under; their
	// content signals apply to it (R7.1). Nil without robots.txt.
	rules *Robots
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
	// and were tried again (R11.3).
	retries int
}

// retries is how many times the current URL was tried again.
func (t *task) retries() int {
	if t.rare == nil {
		return 0
	}
	return t.rare.retries
}

// hops are the redirects followed so far.
func (t *task) hops() []Hop {
	if t.rare == nil {
		return nil
	}
	return t.rare.hops
}

func (t *task) url() string {
	if t.rare == nil || t.rare.cur == "" {
		return t.raw
	}
	return t.rare.cur
}

// setURL makes u the URL of the task's next request.
func (t *task) setURL(u string) {
	if t.rare == nil {
		t.rare = &taskRare{}
	}
	t.rare.cur = u
}

// host is a host name and what the scheduler knows of it.
type host struct {
	name      string  // lower-case name or IP literal, without port
	resolving bool    // a lookup is queued or running
	err       error   // the lookup failed: final for the run
	budget    *budget // set once resolved
	waiting   []*task // accepted while resolving
	// crawlDelay is the host's robots.txt Crawl-delay (R2.3). The robots
	// cache sets it; until then only the hooks do, in tests.
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
	policy     hostPolicy
	origins    []*origin // its schemes and ports, each with its robots.txt
	// floorFactor multiplies its floor after earlier cool-offs (R2.6).
	floorFactor int
	// open counts its URLs not yet answered; lastUsed is when one was
	// last admitted or answered (forget.go).
	open     int
	lastUsed time.Time
}
