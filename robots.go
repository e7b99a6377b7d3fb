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

// MaxRobotsBytes is how much of a robots.txt body is parsed: 500 KiB, the
// least RFC 9309 (section 2.5) lets a crawler read. A longer body is cut at
// the last line end within the limit, so no rule is read in part (R5.2).
const MaxRobotsBytes = robotstxt.MaxBytes

// Robots is a parsed robots.txt file (RFC 9309, R5.1). Its lines are read
// once, in order, into records (key, value, line number); User-agent records
// divide them into groups. A group is one or more User-agent lines and the
// Allow and Disallow rules after them, up to the next User-agent line that
// follows a rule; other lines (Crawl-delay, Sitemap, unknown keys) neither
// start nor end a group. A crawler obeys exactly one set of rules: every
// group naming its product token, merged; if there is none, every group
// naming "*", merged; if there is none either, no rules at all. To judge a
// URL, the patterns of that set are matched against the URL's path and
// query: the longest matching pattern (in octets, percent-encoding made
// canonical) decides, Allow winning a tie, and a URL no pattern matches is
// allowed. /robots.txt itself is always allowed.
//
// Allowed answers yes or no; Decide also says which line decided and which
// group applied, for logs and for the error a disallowed URL returns;
// CrawlDelay and Sitemaps give the other lines a polite crawler uses. Most
// callers want Allowed, and Decide when they must explain a refusal.
//
// The nil *Robots allows everything, as does the Robots of an empty body:
// a site without robots.txt has no rules (RFC 9309 section 2.3.1.3). A
// Robots is never changed after ParseRobots returns, so it is safe for
// concurrent use; ParseRobots may return one Robots for many files, so it
// must not be written through.
//
// Parsing follows RFC 9309 and, where the RFC leaves room and does not
// disagree, Google's reference parser (github.com/google/robotstxt): a
// leading byte order mark is skipped; lines are cut after 16,663 bytes;
// common misspellings of keys are accepted ("useragent", "user agent",
// "disalow", "dissallow", "dissalow", "diasllow", "disallaw", "site-map"),
// as is any key that begins with a known one ("sitemaps"); a known key may
// be separated from its value by white space instead of a colon when the
// line holds exactly two words ("Disallow /tmp"); a User-agent value counts
// up to the end of its product token ("Googlebot/2.1" names Googlebot), and
// "*" followed by white space and more is still "*"; an Allow pattern for a
// file named index.htm or index.html also allows its directory's URL
// ("Allow: /a/index.html" allows "/a/"). Unlike Google, percent-encoded
// unreserved characters are decoded before comparison, as RFC 9309 section
// 2.2.2 requires ("/%7Efoo" and "/~foo" are one path), and non-ASCII octets
// in the URL are percent-encoded as they are in the patterns.
type Robots struct {
	f *robotstxt.File // nil for noRobots
}

// Decision is the reasoning behind one answer of Robots.Decide: the verdict,
// the rule that gave it and the group the rule came from.
type Decision struct {
	// Allowed is the verdict: whether the crawler may fetch the URL.
	Allowed bool
	// Rule is "allow" or "disallow", the kind of the deciding rule; "" when
	// no rule matched (allowed by default) or the URL is /robots.txt.
	Rule string
	// Pattern is the deciding rule's path pattern as written in the file.
	Pattern string
	// Line is the 1-based line of the deciding rule; 0 if none.
	Line int
	// Group lists the User-agent values, as written, of the groups that
	// applied ("*" for the default group); nil when no group applied or the
	// URL is /robots.txt.
	Group []string
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

// Allowed reports whether the crawler whose product token is agent may fetch
// url (R5.1). url is an absolute URL or a path with an optional query, in
// the escaped form it is requested in (a URL that begins with "//" names a
// host, as in RFC 3986); agent is a product token such as "PoliteCrawler"
// (anything after the token, as in "PoliteCrawler/0.1", is ignored). A nil
// *Robots allows everything.
func (r *Robots) Allowed(agent, url string) bool {
	return r.file().Allowed(agent, url)
}

// Decide is Allowed with its reasons: the rule that decided, its line and
// the group it came from (see Decision).
func (r *Robots) Decide(agent, url string) Decision {
	return Decision(r.file().Decide(agent, url))
}

// CrawlDelay is the Crawl-delay of the group that applies to agent, 0 if it
// has none. Crawl-delay is not part of RFC 9309; its value is a decimal
// number of seconds ("10", "0.5"). Values that are negative or not numbers
// are ignored. When the merged groups give several values, the longest is
// taken: the stricter reading of the site's wish (R2.3).
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
	// RobotsMaxAge is how long a robots.txt copy is used before it is
	// asked for again (conditionally).
	RobotsMaxAge = schedule.RobotsMaxAge
	// RobotsStaleLimit is how long a copy may stand in while the site
	// cannot be reached; after it, the site is unreachable.
	RobotsStaleLimit = schedule.RobotsStaleLimit
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

// FetchRobots reads the robots.txt of the origin of rawURL (scheme, host
// and port) as it is read before the origin's first page: through the
// host's budget and its rests, with the same answers for every status
// (R5), and fetches no page. Rules the fetcher holds fresh answer at once,
// with no request. It waits as Fetch does, and returns the error that
// would turn the origin's pages away: robots.txt unreachable, the host
// refused or stopped, the fetcher closed. The rules of a robots.txt that
// is missing (a 4xx) allow everything; a host declared an API or
// Unrestricted reads none, and its Robots is nil. rawURL is checked as
// Add checks it, but is not added: Add may take it afterwards.
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
