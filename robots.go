package polite

import (
	"context"
	"net/http"
	"time"

	"github.com/politecrawler/polite/internal/htmlpass"
	"github.com/politecrawler/polite/internal/robotstxt"
	"github.com/politecrawler/polite/internal/schedule"
	"golang.org/x/time/rate"
)

// MaxRobotsBytes is how much of a robots.txt body is parsed, 500 KiB (R5.2),
// cut at the last line end within it.
const MaxRobotsBytes = robotstxt.MaxBytes

// Robots is a parsed robots.txt file (RFC 9309, R5.1). A crawler obeys one
// set of rules: the groups naming its product token, merged, else those
// naming "*", else none; the longest matching pattern decides, Allow winning
// a tie. Allowed answers yes or no; Decide says which line decided;
// CrawlDelay and Sitemaps read the other lines. Where the RFC leaves room,
// parsing follows Google's reference parser (misspelt keys, a missing
// colon), and percent-encoding is compared as the RFC asks. The nil *Robots
// allows everything. A Robots never changes, and is safe for concurrent use.
type Robots struct {
	f *robotstxt.File // nil for noRobots
}

// Decision is the reasoning behind one answer of Robots.Decide: the verdict,
// the rule that gave it and the group the rule came from.
type Decision struct {
	Allowed bool     // whether the crawler may fetch the URL
	Rule    string   // "allow" or "disallow"; "" when no rule matched
	Pattern string   // the deciding rule's pattern as written
	Line    int      // the deciding rule's line, from 1; 0 if none
	Group   []string // the User-agent values of the groups that applied
}

// ParseRobots reads a robots.txt body. It never fails: lines it cannot read
// are skipped and the rest is used, as RFC 9309 section 2.3.1.5 asks, and a
// nil or empty body gives a Robots that allows everything. Only the first
// MaxRobotsBytes are read.
func ParseRobots(body []byte) *Robots {
	if len(body) == 0 {
		return noRobots
	}
	return &Robots{f: robotstxt.Parse(body)}
}

// noRobots is what an empty robots.txt, or none, says: every URL is
// allowed. A Robots never changes once parsed, so one serves every origin
// without a file (each 4xx answer, R5.2).
var noRobots = &Robots{}

// Allowed reports whether the crawler whose product token is agent may
// fetch url, an absolute URL or a path and query as requested (R5.1).
func (r *Robots) Allowed(agent, url string) bool {
	return r.file().Allowed(agent, url)
}

// Decide is Allowed with its reasons: the rule that decided, its line and
// the group it came from (see Decision).
func (r *Robots) Decide(agent, url string) Decision {
	return Decision(r.file().Decide(agent, url))
}

// CrawlDelay is the Crawl-delay of the group that applies to agent, in
// decimal seconds; 0 if none. Of several, the longest (R2.3).
func (r *Robots) CrawlDelay(agent string) time.Duration {
	return r.file().CrawlDelay(agent)
}

// Sitemaps lists the values of all Sitemap lines in file order. Sitemap
// lines belong to no group, so the list is the same for every agent (R5.4).
func (r *Robots) Sitemaps() []string {
	return r.file().Sitemaps()
}

// Signals are the content signals robots.txt states for url, for the
// crawler whose product token is agent (R7.1): the Content-Signal lines of
// the group that applies, those for the path that url falls under. A
// page's own headers and meta tags may add to them; Result.Signals has
// them all.
func (r *Robots) Signals(agent, url string) Signals {
	return readSignals(r, agent, url, nil, htmlpass.Page{})
}

// file is the parsed file behind r; nil, which allows everything, for the
// nil *Robots and for noRobots.
func (r *Robots) file() *robotstxt.File {
	if r == nil {
		return nil
	}
	return r.f
}

// The robots cache keeps R5: before the first page of an origin its
// robots.txt is fetched, through the same budget and rest as any request,
// and every page is checked against it. The cache is scheduling state
// (internal/schedule's robots gate); Fetcher.Robots reads it there.

// Robots cache timings (R5.3).
const (
	RobotsMaxAge     = schedule.RobotsMaxAge     // a copy is used this long, then asked for again
	RobotsStaleLimit = schedule.RobotsStaleLimit // the longest a copy stands in while the site is unreachable
)

// originKey is scheme://host:port, lower-case, the port always written.
func originKey(raw string) (string, error) { return schedule.OriginKey(raw) }

// policyFor is what the Config says of one host name: a documented API
// and its rate (R5.5), or a host whose robots.txt is not read (R5.6).
func (s *settings) policyFor(name string) schedule.Policy {
	var p schedule.Policy
	if a, ok := s.apis[name]; ok {
		p.API = true
		if a.Rate > 0 {
			p.Limiter = rate.NewLimiter(a.Rate, max(a.Burst, 1))
		}
	}
	_, p.Unrestricted = s.unrestricted[name]
	return p
}

// judgeRobots reads a robots.txt response as R5.2 says (RFC 9309
// §2.3.1): the copy kept, the rules learned and what follows all go by
// its answer. It also makes a 401 a refusal: a robots.txt behind a login
// stops the host, where a page behind one is only not found.
func judgeRobots(c *completion) schedule.RobotsAnswer {
	if c.Status == http.StatusUnauthorized {
		c.verdict.Kind, c.verdict.Note = ResponseRefused, "robots.txt needs a login: the host is stopped for the run"
	}
	if c.err != nil {
		return schedule.RobotsSilent
	}
	switch c.verdict.Kind {
	case ResponseOK:
		return schedule.RobotsRules
	case ResponseNotModified:
		return schedule.RobotsSame
	case ResponseNotFound:
		return schedule.RobotsAllowAll
	}
	return schedule.RobotsSilent
}

// FetchRobots reads the robots.txt of rawURL's origin as it is read before
// a first page (R5), through the host's budget, or from the rules held
// fresh, and fetches no page. It waits as Fetch does and returns the error
// that would turn the origin's pages away. An API or Unrestricted host has
// none: nil. rawURL is checked as Add checks it, not added.
func (f *Fetcher) FetchRobots(ctx context.Context, rawURL string) (*Robots, error) {
	reply := make(chan *Result, 1)
	t, name, err := f.task(ctx, rawURL, reply)
	if err != nil {
		return nil, err
	}
	t.SetRulesOnly()
	if !f.sched.Add(t, name) {
		return nil, ErrClosed
	}
	select {
	case r := <-reply:
		if r.Err != nil {
			return nil, r.Err
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	rules, _ := f.Robots(t.URL())
	return rules, nil
}

// Robots returns the robots.txt rules the fetcher holds for the origin
// of rawURL (scheme, host and port), and whether it holds any yet. Its
// Sitemaps method lists the site's Sitemap lines.
func (f *Fetcher) Robots(rawURL string) (*Robots, bool) {
	key, err := originKey(rawURL)
	if err != nil {
		return nil, false
	}
	if file, ok := f.sched.Rules(key); ok {
		return &Robots{f: file}, true
	}
	return nil, false
}
