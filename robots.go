package polite

import (
	"strings"
	"time"
)

// MaxRobotsBytes is how much of a robots.txt body is parsed: 500 KiB, the
// least RFC 9309 (section 2.5) lets a crawler read. A longer body is cut at
// the last line end within the limit, so no rule is read in part (R5.2).
const MaxRobotsBytes = 500 << 10

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
	records  []robotsRecord
	groups   []robotsGroup
	byAgent  map[string][]int // lower-case product token → its groups, in file order
	global   []int            // the groups naming "*", in file order
	sitemaps []string
	// signalLines is set when some record is a Content-Signal or
	// Content-Usage line: most files have none, and their pages skip the
	// search for one.
	signalLines bool
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

// robotsRecord is one line of robots.txt that holds a key and a value. The
// records are the one reading of the file: the matcher groups them, and a
// reader of other lines (content signals, R7.1) walks them too.
type robotsRecord struct {
	line  int    // 1-based line number
	key   string // lower-case; the canonical spelling for known keys
	value string // as written, trimmed of white space and comment
}

// Known record keys, in their canonical spelling.
const (
	keyUserAgent  = "user-agent"
	keyAllow      = "allow"
	keyDisallow   = "disallow"
	keySitemap    = "sitemap"
	keyCrawlDelay = "crawl-delay"
)

// The keys of the content-signal lines read for R7.1, as records hold
// them (lower-case).
const (
	recordContentSignal = "content-signal"
	recordContentUsage  = "content-usage"
)

// robotsGroup is a run of User-agent records and the records that follow
// them up to the next group (RFC 9309 section 2.1).
type robotsGroup struct {
	first, end int      // records[first:end] belong to the group
	agents     []string // the User-agent values as written
	rules      []robotsRule
}

// ParseRobots reads a robots.txt body. It never fails: lines it cannot read
// are skipped and the rest is used, as RFC 9309 section 2.3.1.5 asks, and a
// nil or empty body gives a Robots that allows everything. Only the first
// MaxRobotsBytes are read.
func ParseRobots(body []byte) *Robots {
	if len(body) == 0 {
		return noRobots
	}
	r := &Robots{records: tokenizeRobots(body), byAgent: map[string][]int{}}
	r.group()
	return r
}

// noRobots is what an empty robots.txt, or none, says: every URL is
// allowed. A Robots never changes once parsed, so one serves every origin
// without a file (each 4xx answer, R5.2).
var noRobots = &Robots{}

// group divides the records into groups (RFC 9309 section 2.1): a
// User-agent record after a rule starts a new group; rules before the
// first User-agent belong to none and are ignored; Crawl-delay, Sitemap
// and unknown records neither start nor end a group.
func (r *Robots) group() {
	cur := -1 // the group being read; -1 before the first User-agent
	sawRule := false
	for i, rec := range r.records {
		switch rec.key {
		case keyUserAgent:
			if cur < 0 || sawRule {
				if cur >= 0 {
					r.groups[cur].end = i
				}
				r.groups = append(r.groups, robotsGroup{first: i})
				cur, sawRule = len(r.groups)-1, false
			}
			r.groups[cur].agents = append(r.groups[cur].agents, rec.value)
			switch tok := agentToken(rec.value); {
			case tok == "*":
				r.global = appendGroupOnce(r.global, cur)
			case tok != "":
				tok = strings.ToLower(tok)
				r.byAgent[tok] = appendGroupOnce(r.byAgent[tok], cur)
			}
		case keyAllow, keyDisallow:
			if cur < 0 {
				continue // before any User-agent: no group (RFC 9309 2.2.2)
			}
			sawRule = true
			r.groups[cur].rules = append(r.groups[cur].rules, newRobotsRule(rec))
		case keySitemap:
			if rec.value != "" {
				r.sitemaps = append(r.sitemaps, rec.value)
			}
		case recordContentSignal, recordContentUsage:
			r.signalLines = true
		}
	}
	if cur >= 0 {
		r.groups[cur].end = len(r.records)
	}
}

// appendGroupOnce appends i unless it is already last: one group may name the
// same agent twice.
func appendGroupOnce(s []int, i int) []int {
	if len(s) > 0 && s[len(s)-1] == i {
		return s
	}
	return append(s, i)
}

// Allowed reports whether the crawler whose product token is agent may fetch
// url (R5.1). url is an absolute URL or a path with an optional query, in
// the escaped form it is requested in (a URL that begins with "//" names a
// host, as in RFC 3986); agent is a product token such as "PoliteCrawler"
// (anything after the token, as in "PoliteCrawler/0.1", is ignored). A nil
// *Robots allows everything.
func (r *Robots) Allowed(agent, url string) bool {
	allowed, _, _ := r.decide(agent, url)
	return allowed
}

// Decide is Allowed with its reasons: the rule that decided, its line and
// the group it came from (see Decision).
func (r *Robots) Decide(agent, url string) Decision {
	allowed, best, gs := r.decide(agent, url)
	d := Decision{Allowed: allowed}
	if gs != nil {
		d.Group = r.agentsOf(gs)
	}
	if best != nil {
		d.Pattern, d.Line = best.written, best.line
		d.Rule = keyDisallow
		if best.allow {
			d.Rule = keyAllow
		}
	}
	return d
}

// decide returns the verdict, the rule that gave it (nil when none matched)
// and the groups that applied (nil when none did, or for /robots.txt).
func (r *Robots) decide(agent, url string) (allowed bool, best *robotsRule, gs []int) {
	if r == nil {
		return true, nil, nil
	}
	path, pathOnly := requestPath(url)
	if pathOnly == "/robots.txt" {
		return true, nil, nil // implicitly allowed (RFC 9309 section 2.2.2)
	}
	gs = r.groupsFor(agent)
	bestLen := -1
	for _, gi := range gs {
		rules := r.groups[gi].rules
		for i := range rules {
			if rules[i].maxLen() < bestLen {
				continue // cannot win, matching or not
			}
			n := rules[i].match(path)
			if n > bestLen || n == bestLen && n >= 0 && rules[i].allow && !best.allow {
				best, bestLen = &rules[i], n
			}
		}
	}
	if best == nil {
		return true, nil, gs
	}
	return best.allow, best, gs
}

// CrawlDelay is the Crawl-delay of the group that applies to agent, 0 if it
// has none. Crawl-delay is not part of RFC 9309; its value is a decimal
// number of seconds ("10", "0.5"). Values that are negative or not numbers
// are ignored. When the merged groups give several values, the longest is
// taken: the stricter reading of the site's wish (R2.3).
func (r *Robots) CrawlDelay(agent string) time.Duration {
	var d time.Duration
	if r == nil {
		return 0
	}
	for _, gi := range r.groupsFor(agent) {
		g := r.groups[gi]
		for _, rec := range r.records[g.first:g.end] {
			if rec.key != keyCrawlDelay {
				continue
			}
			if v, ok := parseCrawlDelay(rec.value); ok && v > d {
				d = v
			}
		}
	}
	return d
}

// Sitemaps lists the values of all Sitemap lines in file order. Sitemap
// lines belong to no group, so the list is the same for every agent (R5.4).
func (r *Robots) Sitemaps() []string {
	if r == nil || len(r.sitemaps) == 0 {
		return nil
	}
	return append([]string(nil), r.sitemaps...)
}

// groupRecords returns, in file order, every record of the groups that apply
// to agent: their User-agent lines, rules, Crawl-delay and unknown lines
// such as Content-Signal and Content-Usage (R7.1). Sitemap records are left
// out: they belong to no group.
func (r *Robots) groupRecords(agent string) []robotsRecord {
	if r == nil {
		return nil
	}
	var out []robotsRecord
	for _, gi := range r.groupsFor(agent) {
		g := r.groups[gi]
		for _, rec := range r.records[g.first:g.end] {
			if rec.key != keySitemap {
				out = append(out, rec)
			}
		}
	}
	return out
}

// groupsFor returns the groups whose rules agent obeys: those naming its
// product token, else those naming "*" (RFC 9309 section 2.2.1). A group of
// our own is never combined with "*".
func (r *Robots) groupsFor(agent string) []int {
	if tok := agentToken(agent); tok != "" && tok != "*" {
		var buf [64]byte
		key := append(buf[:0], tok...)
		for i, c := range key {
			if 'A' <= c && c <= 'Z' {
				key[i] = c + 'a' - 'A'
			}
		}
		if gs := r.byAgent[string(key)]; gs != nil { // no allocation: Go looks up []byte keys in place
			return gs
		}
	}
	return r.global
}

// agentsOf lists the User-agent values of groups gs, each once.
func (r *Robots) agentsOf(gs []int) []string {
	var out []string
	for _, gi := range gs {
	next:
		for _, a := range r.groups[gi].agents {
			for _, seen := range out {
				if strings.EqualFold(seen, a) {
					continue next
				}
			}
			out = append(out, a)
		}
	}
	return out
}
