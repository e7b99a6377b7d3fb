package polite

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/politecrawler/polite/internal/schedule"
	"golang.org/x/time/rate"
)

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
		c.verdict.Kind, c.verdict.Note = KindRefused, "robots.txt needs a login: the host is stopped for the run"
	}
	if c.err != nil {
		return schedule.RobotsSilent
	}
	switch c.verdict.Kind {
	case KindOK:
		return schedule.RobotsRules
	case KindNotModified:
		return schedule.RobotsSame
	case KindNotFound:
		return schedule.RobotsAllowAll
	}
	return schedule.RobotsSilent
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
