package robotstxt

import (
	"strings"
	"time"
)

// File is a parsed robots.txt file (RFC 9309, R5.1): its records, divided
// into groups. A group is one or more User-agent records and the Allow and
// Disallow rules after them, up to the next User-agent record that follows a
// rule; other records (Crawl-delay, Sitemap, unknown keys) neither start nor
// end a group. A crawler obeys every group naming its product token,
// merged; if there is none, every group naming "*"; if there is none
// either, no rules. The longest matching pattern decides, Allow winning a
// tie. The nil *File allows everything; a File never changes once parsed,
// so it is safe for concurrent use.
type File struct {
	records  []Record
	groups   []group
	byAgent  map[string][]int // lower-case product token → its groups, in file order
	global   []int            // the groups naming "*", in file order
	sitemaps []string
	// signalLines is set when some record is a Content-Signal or
	// Content-Usage line: most files have none, and their pages skip the
	// search for one.
	signalLines bool
}

// Decision is the reasoning behind one answer of File.Decide; the root's
// Decision is the same struct, documented there.
type Decision struct {
	Allowed bool     // the verdict
	Rule    string   // KeyAllow or KeyDisallow; "" when no rule matched
	Pattern string   // the deciding rule's pattern as written
	Line    int      // the deciding rule's 1-based line; 0 if none
	Group   []string // the User-agent values of the groups that applied
}

// group is a run of User-agent records and the records that follow them up
// to the next group (RFC 9309 section 2.1).
type group struct {
	first, end int      // records[first:end] belong to the group
	agents     []string // the User-agent values as written
	rules      []rule
}

// Parse reads a robots.txt body. It never fails: lines it cannot read are
// skipped and the rest is used, as RFC 9309 section 2.3.1.5 asks, and an
// empty body allows everything. Only the first MaxBytes are read.
//
// Where the RFC leaves room and does not disagree, it reads as Google's
// reference parser does: a leading byte order mark is skipped; lines are
// cut after 16,663 bytes; misspelt keys are accepted ("useragent", "user
// agent", "disalow", "dissallow", "dissalow", "diasllow", "disallaw",
// "site-map"), as is a key that begins with a known one ("sitemaps"); a
// known key may be parted from its value by white space when the line holds
// two words ("Disallow /tmp"); a User-agent value counts to the end of its
// product token ("Googlebot/2.1"), and "*" followed by more is "*"; an Allow
// of index.htm or index.html allows its directory too. Unlike Google,
// percent-encoded unreserved characters are decoded before comparison (RFC
// 9309 section 2.2.2), and non-ASCII octets in the URL are percent-encoded.
func Parse(body []byte) *File {
	if len(body) == 0 {
		return empty
	}
	f := &File{records: Lex(body), byAgent: map[string][]int{}}
	f.divide()
	return f
}

// empty is the File of an empty body: it allows everything, and as a File
// never changes, one serves them all.
var empty = &File{}

// divide divides the records into groups (RFC 9309 section 2.1): a
// User-agent record after a rule starts a new group; rules before the first
// User-agent belong to none and are ignored; Crawl-delay, Sitemap and
// unknown records neither start nor end a group.
func (f *File) divide() {
	cur := -1 // the group being read; -1 before the first User-agent
	sawRule := false
	for i, rec := range f.records {
		switch rec.Key {
		case KeyUserAgent:
			if cur < 0 || sawRule {
				if cur >= 0 {
					f.groups[cur].end = i
				}
				f.groups = append(f.groups, group{first: i})
				cur, sawRule = len(f.groups)-1, false
			}
			f.groups[cur].agents = append(f.groups[cur].agents, rec.Value)
			switch tok := AgentToken(rec.Value); {
			case tok == "*":
				f.global = appendGroupOnce(f.global, cur)
			case tok != "":
				tok = strings.ToLower(tok)
				f.byAgent[tok] = appendGroupOnce(f.byAgent[tok], cur)
			}
		case KeyAllow, KeyDisallow:
			if cur < 0 {
				continue // before any User-agent: no group (RFC 9309 2.2.2)
			}
			sawRule = true
			f.groups[cur].rules = append(f.groups[cur].rules, newRule(rec))
		case KeySitemap:
			if rec.Value != "" {
				f.sitemaps = append(f.sitemaps, rec.Value)
			}
		case KeyContentSignal, KeyContentUsage:
			f.signalLines = true
		}
	}
	if cur >= 0 {
		f.groups[cur].end = len(f.records)
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
// url, an absolute URL or a path with an optional query (R5.1).
func (f *File) Allowed(agent, url string) bool {
	allowed, _, _ := f.decide(agent, url)
	return allowed
}

// Decide is Allowed with its reasons: the rule that decided, its line and
// the group it came from.
func (f *File) Decide(agent, url string) Decision {
	allowed, best, gs := f.decide(agent, url)
	d := Decision{Allowed: allowed}
	if gs != nil {
		d.Group = f.agentsOf(gs)
	}
	if best != nil {
		d.Pattern, d.Line = best.written, best.line
		d.Rule = KeyDisallow
		if best.allow {
			d.Rule = KeyAllow
		}
	}
	return d
}

// decide returns the verdict, the rule that gave it (nil when none matched)
// and the groups that applied (nil when none did, or for /robots.txt).
func (f *File) decide(agent, url string) (allowed bool, best *rule, gs []int) {
	if f == nil {
		return true, nil, nil
	}
	path, pathOnly := RequestPath(url)
	if pathOnly == "/robots.txt" {
		return true, nil, nil // implicitly allowed (RFC 9309 section 2.2.2)
	}
	gs = f.groupsFor(agent)
	bestLen := -1
	for _, gi := range gs {
		rules := f.groups[gi].rules
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

// CrawlDelay is the Crawl-delay of the groups that apply to agent, 0 if
// they have none; of several values, the longest (R2.3).
func (f *File) CrawlDelay(agent string) time.Duration {
	var d time.Duration
	if f == nil {
		return 0
	}
	for _, gi := range f.groupsFor(agent) {
		g := f.groups[gi]
		for _, rec := range f.records[g.first:g.end] {
			if rec.Key != KeyCrawlDelay {
				continue
			}
			if v, ok := parseCrawlDelay(rec.Value); ok && v > d {
				d = v
			}
		}
	}
	return d
}

// Sitemaps lists the values of all Sitemap records in file order, in a
// slice of the caller's own (R5.4).
func (f *File) Sitemaps() []string {
	if f == nil || len(f.sitemaps) == 0 {
		return nil
	}
	return append([]string(nil), f.sitemaps...)
}

// Group returns, in file order, every record of the groups that apply to
// agent: their User-agent lines, rules, Crawl-delay and unknown lines such
// as Content-Signal and Content-Usage (R7.1). Sitemap records are left out:
// they belong to no group.
func (f *File) Group(agent string) []Record {
	if f == nil {
		return nil
	}
	var out []Record
	for _, gi := range f.groupsFor(agent) {
		g := f.groups[gi]
		for _, rec := range f.records[g.first:g.end] {
			if rec.Key != KeySitemap {
				out = append(out, rec)
			}
		}
	}
	return out
}

// groupsFor returns the groups whose rules agent obeys: those naming its
// product token, else those naming "*" (RFC 9309 section 2.2.1). A group of
// our own is never combined with "*".
func (f *File) groupsFor(agent string) []int {
	if tok := AgentToken(agent); tok != "" && tok != "*" {
		var buf [64]byte
		key := append(buf[:0], tok...)
		for i, c := range key {
			if 'A' <= c && c <= 'Z' {
				key[i] = c + 'a' - 'A'
			}
		}
		if gs := f.byAgent[string(key)]; gs != nil { // no allocation: Go looks up []byte keys in place
			return gs
		}
	}
	return f.global
}

// agentsOf lists the User-agent values of groups gs, each once.
func (f *File) agentsOf(gs []int) []string {
	var out []string
	for _, gi := range gs {
	next:
		for _, a := range f.groups[gi].agents {
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
