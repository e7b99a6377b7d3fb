package schedule

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/politecrawler/polite/internal/robotstxt"
)

// The robots gate keeps R5: before the first page of an origin its
// robots.txt is fetched, through the same budget and rest as any request,
// and every page is checked against it. The cache is scheduling state,
// under the scheduler's lock, and Rules reads it there.

// origin is one scheme://host:port and its robots.txt.
type origin struct {
	key      string
	host     *host
	robots   *robotstxt.File // the copy in use; nil before the first answer
	fresh    time.Time       // the copy is used without asking until then
	obtained time.Time       // when the site last gave an answer (R5.3's 30 days)
	etag     string          // validators for the conditional refresh
	modified string
	fetching bool // a robots.txt task is queued, resolving or in flight
	// recalling: its stored copy is being loaded (store.go).
	recalling bool
	// fromElsewhere: a coordinator said another process had just
	// fetched it, and its copy was asked (shared.go); until that copy is
	// taken up, the next robots.txt request does not ask again.
	fromElsewhere bool
	waiting       []*Task // pages held until the rules are known
}

// OriginKey is scheme://host:port, lower-case, the port always written.
func OriginKey(raw string) (string, error) {
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

// Rules are the robots.txt rules held for an origin key, if any yet.
func (s *Scheduler) Rules(key string) (*robotstxt.File, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.origins[key]; o != nil && o.robots != nil {
		return o.robots, true
	}
	return nil, false
}

// gate lets a resolved task into its budget once robots.txt allows it
// (R5.1, R5.4): at once when the origin's rules are fresh, else after the
// origin's robots.txt, which goes first in the same budget.
func (s *Scheduler) gate(t *Task) {
	h := t.host
	if t.isRulesOnly() && !h.policy.readsRobots() {
		s.finish(t, End{}) // a host whose robots.txt is not read has no rules to ask
		return
	}
	if t.robots != nil || !h.policy.readsRobots() {
		s.enqueue(h.budget, t)
		return
	}
	key, err := OriginKey(t.URL())
	if err != nil { // cannot happen: the URL was admitted
		s.turnAway(t, fmt.Errorf("%w: %v", ErrInvalidURL, err))
		return
	}
	o := s.origins[key]
	if o == nil {
		o = &origin{key: key, host: h}
		s.origins[key] = o
		h.origins = append(h.origins, o)
		if s.cfg.RecallRobots {
			o.recalling = true
			s.askStore(StoreJob{origin: o})
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
func (s *Scheduler) askRobots(o *origin) {
	if o.fetching {
		return
	}
	o.fetching = true
	h := o.host
	rt := &Task{raw: robotsURL(o.key), host: h, robots: o}
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
// at the host's budget, a new one if the host moved (move). It reports
// whether it held the request.
func (s *Scheduler) lookUpAgain(h *host, rt *Task) bool {
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
func (s *Scheduler) robotsRecalled(o *origin, a *StoreAnswer) {
	o.recalling = false
	if a.Err != nil {
		s.cfg.Logger.Warn("polite: store: loading robots.txt", "origin", o.key, "err", a.Err)
	}
	if a.Err == nil && a.Found && s.clk.Now().Before(a.Robots.Fetched.Add(RobotsMaxAge)) {
		o.fromElsewhere = false // taken up: a later refresh may come from elsewhere too
	}
	if a.Err == nil && a.Found {
		rec := a.Robots
		o.robots = rec.Rules
		o.obtained = rec.Fetched
		o.fresh = rec.Fetched.Add(RobotsMaxAge)
		o.etag, o.modified = rec.ETag, rec.Modified
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
func (s *Scheduler) applyCrawlDelay(o *origin) {
	if cd := o.robots.CrawlDelay(s.cfg.Agent); cd > o.host.crawlDelay {
		o.host.crawlDelay = cd
		o.host.budget.crawlDelay = max(o.host.budget.crawlDelay, cd)
	}
}

// check queues a page that its origin's rules allow, and answers the
// others with the rule that disallows them.
func (s *Scheduler) check(o *origin, t *Task) {
	if err := o.host.err; err != nil { // its name went while robots.txt was asked
		s.turnAway(t, err)
		return
	}
	if t.isRulesOnly() { // the rules were all it asked for
		s.finish(t, End{})
		return
	}
	agent := s.cfg.Agent
	if d := o.robots.Decide(agent, t.URL()); !d.Allowed {
		s.finish(t, End{Err: s.root.Disallowed(t.URL(), agent, d)})
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
func (s *Scheduler) learnRobots(o *origin, c *Completion) bool {
	switch c.Answer {
	case RobotsRules:
		o.robots = c.Rules
		o.etag, o.modified = c.ETag, c.Modified
	case RobotsSame:
		if o.robots == nil { // a 304 to a request that was not conditional
			return false
		}
	case RobotsAllowAll:
		o.robots = robotstxt.Parse(nil)
		o.etag, o.modified = "", ""
	default:
		return false
	}
	o.obtained = c.End
	o.fresh = c.End.Add(RobotsMaxAge)
	s.applyCrawlDelay(o)
	return true
}

// RobotsAnswer is what one robots.txt response says of the rules (R5.2,
// RFC 9309 §2.3.1): the copy kept, the rules learned and what follows all
// go by it.
type RobotsAnswer uint8

// The answers a robots.txt response gives.
const (
	RobotsSilent   RobotsAnswer = iota // nothing: a failure, a refusal, an error
	RobotsRules                        // a 2xx that is no challenge: its body is the rules
	RobotsSame                         // a 304: the copy in hand stands
	RobotsAllowAll                     // a 4xx that is no refusal, or a 3xx leading nowhere: no robots.txt
)

// robotsSettled decides what follows a robots.txt answer: release the
// held pages against the rules; or, when the site could not be reached,
// stand in the stale copy (up to 30 days, R5.3) or ask again after the
// backoff, holding every page meanwhile (R5.2).
func (s *Scheduler) robotsSettled(t *Task, e End, learned bool) {
	o := t.robots
	switch {
	case learned:
		o.fetching = false
		s.release(o)
	case o.host.stopped != nil:
		o.fetching = false // stop has answered the held pages
	case t.host.stopped != nil:
		s.finish(t, e) // a redirect led to a host that stopped: its reason ends the wait
	case o.host.err != nil:
		// Its name went while robots.txt was asked: nothing more is.
		s.finishRobots(t, End{Err: o.host.err})
	case e.Response.RobotsFailed:
		now := s.clk.Now()
		if o.robots != nil && now.Sub(o.obtained) < RobotsStaleLimit {
			o.fetching = false
			o.fresh = now.Add(robotsStaleRetry)
			s.release(o)
			return
		}
		// Ask the origin's own robots.txt again, after the backoff, behind
		// the work queued at its budget: another origin of the host (its
		// https://, another port) is asked between, and while that one
		// answers, this one's failures are not five in a row (R3.2).
		t.host = o.host
		if t.rare != nil {
			t.rare.cur, t.rare.hops = "", nil
		}
		s.enqueue(o.host.budget, t)
	default:
		s.finish(t, e)
	}
}

// release checks every page held for an origin's rules.
func (s *Scheduler) release(o *origin) {
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
func (s *Scheduler) finishRobots(t *Task, e End) {
	o := t.robots
	o.fetching = false
	if errors.Is(e.Err, ErrTooManyRedirects) || errors.Is(e.Err, ErrRedirectLoop) {
		o.robots = robotstxt.Parse(nil)
		o.obtained = s.clk.Now()
		o.fresh = o.obtained.Add(RobotsMaxAge)
		s.release(o)
		return
	}
	err := e.Err
	if err == nil { // an answer that says nothing of the rules
		err = s.root.Silent(e.Response)
	}
	waiting := o.waiting
	o.waiting = nil
	for _, w := range waiting {
		s.turnAway(w, fmt.Errorf("robots.txt of %s: %w", o.key, Nested(err)))
	}
}
