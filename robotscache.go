package polite

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// The robots cache keeps R5: before the first page of an origin its
// robots.txt is fetched, through the same budget and rest as any request,
// and every page is checked against it. The cache is scheduling state,
// under the scheduler's lock, and Fetcher.Robots reads it there.

// Robots cache timings (R5.3).
const (
	// RobotsMaxAge is how long a robots.txt copy is used before it is
	// asked for again (conditionally).
	RobotsMaxAge = 24 * time.Hour
	// RobotsStaleLimit is how long a copy may stand in while the site
	// cannot be reached; after it, the site is unreachable.
	RobotsStaleLimit = 30 * 24 * time.Hour
	// robotsStaleRetry is when a refresh is tried again while a stale
	// copy stands in.
	robotsStaleRetry = time.Hour
)

// ErrDisallowed: robots.txt disallows the URL for the fetcher's product
// token (R5.4). The Result carries a *DisallowedError with the rule.
var ErrDisallowed = errors.New("polite: disallowed by robots.txt")

// DisallowedError says which robots.txt rule disallowed a URL.
type DisallowedError struct {
	URL      string
	Agent    string
	Decision Decision
}

func (e *DisallowedError) Error() string {
	return fmt.Sprintf("polite: %s disallowed for %s by robots.txt line %d: Disallow: %s",
		e.URL, e.Agent, e.Decision.Line, e.Decision.Pattern)
}

// Is makes errors.Is(err, ErrDisallowed) true.
func (e *DisallowedError) Is(target error) bool { return target == ErrDisallowed }

// origin is one scheme://host:port and its robots.txt.
type origin struct {
	key      string
	host     *host
	robots   *Robots   // the copy in use; nil before the first answer
	fresh    time.Time // the copy is used without asking until then
	obtained time.Time // when the site last gave an answer (R5.3's 30 days)
	etag     string    // validators for the conditional refresh
	modified string
	fetching bool // a robots.txt task is queued, resolving or in flight
	// recalling: its stored copy is being loaded (storework.go).
	recalling bool
	waiting   []*task // pages held until the rules are known
}

// originKey is scheme://host:port, lower-case, the port always written.
func originKey(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = defaultPorts[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), nil
}

var defaultPorts = map[string]string{"http": "80", "https": "443"}

// robotsURL is the robots.txt URL of an origin key, its port left out
// when it is the scheme's default.
func robotsURL(key string) string {
	scheme, hostport, _ := strings.Cut(key, "://")
	if host, port, err := net.SplitHostPort(hostport); err == nil && port == defaultPorts[scheme] {
		hostport = host
		if strings.Contains(host, ":") {
			hostport = "[" + host + "]"
		}
	}
	return scheme + "://" + hostport + "/robots.txt"
}

// hostPolicy is what the Config says of one host name.
type hostPolicy struct {
	api          bool          // a documented API: no robots.txt, its own floor (R5.5)
	limiter      *rate.Limiter // the rate of its terms, when given
	unrestricted bool          // robots.txt not read this run (R5.6)
}

// apiFloor is the floor between requests to a documented API (R2.1).
const apiFloor = time.Second

func (s *settings) policyFor(name string) hostPolicy {
	var p hostPolicy
	if a, ok := s.apis[name]; ok {
		p.api = true
		if a.Rate > 0 {
			p.limiter = rate.NewLimiter(a.Rate, max(a.Burst, 1))
		}
	}
	_, p.unrestricted = s.unrestricted[name]
	return p
}

func (p hostPolicy) readsRobots() bool { return !p.api && !p.unrestricted }

// gate lets a resolved task into its budget once robots.txt allows it
// (R5.1, R5.4): at once when the origin's rules are fresh, else after the
// origin's robots.txt, which goes first in the same budget.
func (s *scheduler) gate(t *task) {
	h := t.host
	if t.robots != nil || !h.policy.readsRobots() {
		s.enqueue(h.budget, t)
		return
	}
	key, err := originKey(t.url())
	if err != nil { // cannot happen: the URL was admitted
		s.turnAway(t, fmt.Errorf("%w: %v", ErrInvalidURL, err))
		return
	}
	o := s.origins[key]
	if o == nil {
		o = &origin{key: key, host: h}
		s.origins[key] = o
		h.origins = append(h.origins, o)
		if s.f.set.robotsStore != nil {
			o.recalling = true
			s.askStore(storeJob{origin: o})
		}
	}
	switch {
	case o.recalling:
		o.waiting = append(o.waiting, t)
	case o.robots != nil && s.clk.Now().Before(o.fresh):
		s.check(o, t)
	default:
		o.waiting = append(o.waiting, t)
		s.askRobots(o)
	}
}

// askRobots asks for an origin's robots.txt, unless it is asked already:
// first in its host's budget, or after the host is looked up again.
func (s *scheduler) askRobots(o *origin) {
	if o.fetching {
		return
	}
	o.fetching = true
	h := o.host
	rt := &task{raw: robotsURL(o.key), host: h, robots: o}
	if o.robots != nil {
		rt.rare = &taskRare{ifNoneMatch: o.etag, ifModifiedSince: o.modified}
	}
	if s.lookUpAgain(h, rt) {
		return
	}
	s.enqueueFront(h.budget, rt)
}

// lookUpAgain holds a robots.txt request whose host was looked up a robots
// period ago or more, and looks the host up again first: a host's address
// is resolved once per robots period (R1.1). The request then goes first
// at the host's budget, a new one if the host moved (scheduler.move). It
// reports whether it held the request.
func (s *scheduler) lookUpAgain(h *host, rt *task) bool {
	if h.resolvedAt.IsZero() || s.clk.Now().Sub(h.resolvedAt) < RobotsMaxAge {
		return false
	}
	h.waiting = append(h.waiting, rt)
	if !h.resolving {
		h.resolving = true
		s.lookups = append(s.lookups, h)
	}
	return true
}

// robotsRecalled takes up the stored robots.txt copy of a new origin
// (R5.3), loaded and parsed by a store job: used as is while under 24 h
// old, refreshed conditionally after, and standing in while the site
// cannot be reached, up to 30 days after it last answered. Then the pages
// that waited for it are checked, or wait on for robots.txt.
func (s *scheduler) robotsRecalled(o *origin, a *storeAnswer) {
	o.recalling = false
	if a.err != nil {
		s.f.set.logger.Warn("polite: store: loading robots.txt", "origin", o.key, "err", a.err)
	}
	if a.err == nil && a.found {
		rec := a.robots
		o.robots = a.rules
		o.obtained = rec.Fetched
		o.fresh = rec.Fetched.Add(RobotsMaxAge)
		o.etag, o.modified = rec.Header.Get("ETag"), rec.Header.Get("Last-Modified")
		s.applyCrawlDelay(o)
	}
	switch {
	case len(o.waiting) == 0: // the host stopped meanwhile, and answered them
	case o.robots != nil && s.clk.Now().Before(o.fresh):
		s.release(o)
	default:
		s.askRobots(o)
	}
}

// applyCrawlDelay joins an origin's Crawl-delay to its host's and its
// budget's rest (R2.3).
func (s *scheduler) applyCrawlDelay(o *origin) {
	if cd := o.robots.CrawlDelay(s.f.set.ua.product()); cd > o.host.crawlDelay {
		o.host.crawlDelay = cd
		o.host.budget.crawlDelay = max(o.host.budget.crawlDelay, cd)
	}
}

// check queues a page that its origin's rules allow, and answers the
// others with the rule that disallows them.
func (s *scheduler) check(o *origin, t *task) {
	if err := o.host.err; err != nil { // its name went while robots.txt was asked
		s.turnAway(t, err)
		return
	}
	agent := s.f.set.ua.product()
	if d := o.robots.Decide(agent, t.url()); !d.Allowed {
		s.finish(t, &Result{Err: &DisallowedError{URL: t.url(), Agent: agent, Decision: d}})
		return
	}
	t.rules = o.robots
	s.enqueue(o.host.budget, t)
}

// learnRobots installs what a robots.txt response says, when it says
// anything (R5.2): the rules of a 2xx, the same rules again on a 304, no
// rules for a 4xx that is not a refusal. Its Crawl-delay joins the rest
// before the rest is computed (R2.3). It reports whether the origin now
// has rules.
func (s *scheduler) learnRobots(o *origin, c *completion) bool {
	switch c.answer {
	case robotsRules:
		o.robots = c.rules
		o.etag, o.modified = c.header.Get("ETag"), c.header.Get("Last-Modified")
	case robotsSame:
		if o.robots == nil { // a 304 to a request that was not conditional
			return false
		}
	case robotsAllowAll:
		o.robots = ParseRobots(nil)
		o.etag, o.modified = "", ""
	default:
		return false
	}
	o.obtained = c.end
	o.fresh = c.end.Add(RobotsMaxAge)
	s.applyCrawlDelay(o)
	return true
}

// robotsAnswer is what one robots.txt response says of the rules (R5.2,
// RFC 9309 §2.3.1), read by judgeRobots alone: the copy kept, the rules
// learned and what follows all go by it.
type robotsAnswer uint8

const (
	robotsSilent   robotsAnswer = iota // nothing: a failure, a refusal, an error
	robotsRules                        // a 2xx that is no challenge: its body is the rules
	robotsSame                         // a 304: the copy in hand stands
	robotsAllowAll                     // a 4xx that is no refusal, or a 3xx leading nowhere: no robots.txt
)

// judgeRobots reads a robots.txt response as R5.2 says. It also makes a
// 401 a refusal: a robots.txt behind a login stops the host, where a page
// behind one is only not found.
func judgeRobots(c *completion) robotsAnswer {
	if c.status == http.StatusUnauthorized {
		c.verdict.Kind, c.verdict.Note = KindRefused, "robots.txt needs a login: the host is stopped for the run"
	}
	if c.err != nil {
		return robotsSilent
	}
	switch c.verdict.Kind {
	case KindOK:
		return robotsRules
	case KindNotModified:
		return robotsSame
	case KindNotFound:
		return robotsAllowAll
	}
	return robotsSilent
}

// robotsSettled decides what follows a robots.txt answer: release the
// held pages against the rules; or, when the site could not be reached,
// stand in the stale copy (up to 30 days, R5.3) or ask again after the
// backoff, holding every page meanwhile (R5.2).
func (s *scheduler) robotsSettled(t *task, r *Result, learned bool) {
	o := t.robots
	switch {
	case learned:
		o.fetching = false
		s.release(o)
	case o.host.stopped != nil:
		o.fetching = false // stop has answered the held pages
	case t.host.stopped != nil:
		s.finish(t, r) // a redirect led to a host that stopped: its reason ends the wait
	case o.host.err != nil:
		// Its name went while robots.txt was asked: nothing more is.
		s.finishRobots(t, &Result{Err: o.host.err})
	case r.Verdict.Failure() || isNetworkFailure(r.Err):
		now := s.clk.Now()
		if o.robots != nil && now.Sub(o.obtained) < RobotsStaleLimit {
			o.fetching = false
			o.fresh = now.Add(robotsStaleRetry)
			s.release(o)
			return
		}
		// Ask the origin's own robots.txt again, after the backoff.
		t.host = o.host
		if t.rare != nil {
			t.rare.cur, t.rare.hops = "", nil
		}
		s.enqueueFront(o.host.budget, t)
	default:
		s.finish(t, r)
	}
}

// release checks every page held for an origin's rules.
func (s *scheduler) release(o *origin) {
	waiting := o.waiting
	o.waiting = nil
	for _, t := range waiting {
		s.check(o, t)
	}
}

// finishRobots ends a robots.txt task that will not be answered: a chain
// of redirects too long or looping means no robots.txt, everything
// allowed (RFC 9309 §2.3.1.2); any other end answers every held page
// with its reason.
func (s *scheduler) finishRobots(t *task, r *Result) {
	o := t.robots
	o.fetching = false
	if errors.Is(r.Err, ErrTooManyRedirects) || errors.Is(r.Err, ErrRedirectLoop) {
		o.robots = ParseRobots(nil)
		o.obtained = s.clk.Now()
		o.fresh = o.obtained.Add(RobotsMaxAge)
		s.release(o)
		return
	}
	err := r.Err
	if err == nil { // an answer that says nothing of the rules
		err = fmt.Errorf("status %d (%v) says nothing of its rules", r.Status, r.Verdict.Kind)
	}
	waiting := o.waiting
	o.waiting = nil
	for _, w := range waiting {
		s.turnAway(w, fmt.Errorf("robots.txt of %s: %w", o.key, err))
	}
}

// Robots returns the robots.txt rules the fetcher holds for the origin
// of rawURL (scheme, host and port), and whether it holds any yet. Its
// Sitemaps method lists the site's Sitemap lines.
func (f *Fetcher) Robots(rawURL string) (*Robots, bool) {
	key, err := originKey(rawURL)
	if err != nil {
		return nil, false
	}
	s := f.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.origins[key]; o != nil && o.robots != nil {
		return o.robots, true
	}
	return nil, false
}
