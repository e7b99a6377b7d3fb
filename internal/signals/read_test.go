package signals

import (
	"net/textproto"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/politecrawler/polite/internal/robotstxt"
)

// The Content-Usage field is an RFC 9651 Dictionary; malformed input makes
// every category unknown, and only the Tokens y and n are preferences.
func TestSignalsContentUsageStructuredFields(t *testing.T) {
	tests := []struct {
		value     string
		want      []string // the preferences read, "key=value"
		malformed bool
	}{
		{"", nil, false},
		{"ai-use=n", []string{"ai-use=n"}, false},
		{"train-ai=n, ai-use=n, search=y", []string{"train-ai=n", "ai-use=n", "search=y"}, false},
		{"Train-AI=n", nil, true},                           // uppercase key: parse failure
		{"ai-use=n, Search=y", nil, true},                   // one bad key spoils the field
		{`ai-use="n"`, nil, false},                          // a String, not the Token n
		{"ai-use", nil, false},                              // bare key: Boolean true
		{"ai-use=?0", nil, false},                           // Boolean
		{"ai-use=no", nil, false},                           // another Token
		{"ai-use=N", nil, false},                            // tokens are case-sensitive
		{"ai-use=1", nil, false},                            // Integer
		{"ai-use=(n)", nil, false},                          // Inner List
		{"ai-use=:bg==:", nil, false},                       // Byte Sequence
		{"ai-use=n, ai-use=y", []string{"ai-use=y"}, false}, // last wins
		{"ai-use=y, ai-use=n", []string{"ai-use=n"}, false},
		{"ai-use=n, ai-use", nil, false}, // last is a Boolean: unknown
		{`train-ai=y, train-ai, search=n, search="n"`, nil, false},
		{"ai-use=n;reason=\"mine\"", []string{"ai-use=n"}, false}, // parameters ignored
		{"train-ai;allow=n, train-ai=y", []string{"train-ai=y"}, false},
		{"ai-use=n;q", []string{"ai-use=n"}, false},
		{"ai-use=n;Q=1", nil, true},
		{"ai-use=n;", nil, true},
		{"foo=n, ai-use=n, x.y*=z", []string{"ai-use=n"}, false}, // unknown keys ignored
		{"*=n, ai-use=n", []string{"ai-use=n"}, false},
		{"ai-use=n,", nil, true},                    // trailing comma
		{"ai-use=n,,search=y", nil, true},           // empty member
		{"ai-use=n search=y", nil, true},            // no comma
		{"ai-use = n", nil, true},                   // no space around '='
		{"  ai-use=n", []string{"ai-use=n"}, false}, // leading SP
		{"\tai-use=n", nil, true},                   // leading HTAB is not SP
		{"ai-use=n \t,\t search=y  ", []string{"ai-use=n", "search=y"}, false},
		{"ai-use=n, 1x=y", nil, true},
		{"ai-use=n, x=\"unterminated", nil, true},
		{`ai-use=n, x="a\"b\\c"`, []string{"ai-use=n"}, false},
		{`ai-use=n, x="a\nb"`, nil, true},
		{"ai-use=n, x=\"caf\xc3\xa9\"", nil, true},
		{"ai-use=n, é=y", nil, true},
		{"ai-use=n, x=:aGVsbG8=:", []string{"ai-use=n"}, false},
		{"ai-use=n, x=:aGVsbG8:", []string{"ai-use=n"}, false}, // padding may be left out
		{"ai-use=n, x=:a$b:", nil, true},
		{"ai-use=n, x=:abc", nil, true},
		{"ai-use=n, x=?1", []string{"ai-use=n"}, false},
		{"ai-use=n, x=?2", nil, true},
		{"ai-use=n, x=123456789012345", []string{"ai-use=n"}, false},
		{"ai-use=n, x=1234567890123456", nil, true},
		{"ai-use=n, x=-12.345", []string{"ai-use=n"}, false},
		{"ai-use=n, x=123456789012.123", []string{"ai-use=n"}, false},
		{"ai-use=n, x=1234567890123.1", nil, true},
		{"ai-use=n, x=1.2345", nil, true},
		{"ai-use=n, x=1.", nil, true},
		{"ai-use=n, x=-", nil, true},
		{"ai-use=n, x=@1700000000", []string{"ai-use=n"}, false},
		{"ai-use=n, x=@1.5", nil, true},
		{`ai-use=n, x=%"caf%c3%a9"`, []string{"ai-use=n"}, false},
		{`ai-use=n, x=%"caf%C3%A9"`, nil, true}, // upper-case hex
		{`ai-use=n, x=%"%ff"`, nil, true},       // not UTF-8
		{`ai-use=n, x=%caf`, nil, true},
		{"ai-use=n, x=(a b;c=1 \"s\");p=?1", []string{"ai-use=n"}, false},
		{"ai-use=n, x=(a b", nil, true},
		{"ai-use=n, x=(a,b)", nil, true},
		{"ai-use=n, x=a/b:c", []string{"ai-use=n"}, false}, // tokens hold ':' and '/'
		{"ai-use=n, x=#", nil, true},
		{"ai-use=n, x=", nil, true},
	}
	for _, tt := range tests {
		s := signalsFor(t, "", hdr("Content-Usage", tt.value), "", "")
		var got []string
		for _, sig := range s.All {
			got = append(got, sig.statement())
		}
		if !reflect.DeepEqual(got, tt.want) || (len(s.Malformed) > 0) != tt.malformed {
			t.Errorf("Content-Usage: %s\n\tread %q, malformed %v; want %q, malformed %v", tt.value, got, s.Malformed, tt.want, tt.malformed)
		}
		// The same statement in robots.txt reads the same.
		r := signalsFor(t, "User-agent: *\nContent-Usage: "+tt.value, nil, "", "")
		got = got[:0]
		for _, sig := range r.All {
			got = append(got, sig.statement())
		}
		if strings.ContainsAny(tt.value, "#\t") || strings.HasPrefix(tt.value, " ") || strings.HasSuffix(tt.value, " ") {
			continue // a comment, or white space robots.txt trims
		}
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tt.want) || (len(r.Malformed) > 0) != tt.malformed {
			t.Errorf("robots.txt Content-Usage: %s\n\tread %q, malformed %v; want %q, malformed %v", tt.value, got, r.Malformed, tt.want, tt.malformed)
		}
	}
	// Field lines combine into one Dictionary: the last value wins across
	// lines too.
	s := signalsFor(t, "", hdr("Content-Usage", "ai-use=n", "Content-Usage", "ai-use=y"), "", "")
	if got := statements(s.All); !reflect.DeepEqual(got, []string{"ai-use=y (header Content-Usage)"}) {
		t.Errorf("two field lines: %q, want ai-use=y", got)
	}
	s = signalsFor(t, "", hdr("Content-Usage", "ai-use=n", "Content-Usage", "Bad"), "", "")
	if len(s.All) != 0 || !reflect.DeepEqual(s.Malformed, []string{"header Content-Usage"}) {
		t.Errorf("a bad second line: All %v, Malformed %v; want nothing read, the header malformed", statements(s.All), s.Malformed)
	}
}

// robots.txt Content-Usage rules: the longest matching path decides, by
// canonical length; a rule without a path is "/"; rules of the same length
// combine most-restrictively.
func TestSignalsContentUsagePaths(t *testing.T) {
	const robots = "User-Agent: *\nAllow: /\nDisallow: /private/\nContent-Usage: train-ai=n\nContent-Usage: /news/ ai-use=n\n"
	tests := []struct {
		robots, path string
		want         []string
	}{
		{robots, "/news/x", []string{"ai-use=n (robots.txt line 5)"}},
		{robots, "/news/", []string{"ai-use=n (robots.txt line 5)"}},
		{robots, "/news", []string{"train-ai=n (robots.txt line 4)"}},
		{robots, "/about", []string{"train-ai=n (robots.txt line 4)"}},
		{robots, "/", []string{"train-ai=n (robots.txt line 4)"}},
		{"User-Agent: *\nContent-Usage: / train-ai=n\nContent-Usage: train-ai=y", "/x",
			[]string{"train-ai=n (robots.txt line 2)", "train-ai=y (robots.txt line 3)"}},
		{"User-Agent: *\nContent-Usage: /a/ ai-use=y\nContent-Usage: /a/ ai-use=n", "/a/b",
			[]string{"ai-use=y (robots.txt line 2)", "ai-use=n (robots.txt line 3)"}},
		{"User-Agent: *\nContent-Usage: /a* ai-use=y\nContent-Usage: /ab ai-use=n", "/abc",
			[]string{"ai-use=y (robots.txt line 2)", "ai-use=n (robots.txt line 3)"}},
		{"User-Agent: *\nContent-Usage: /*.pdf$ ai-use=n\nContent-Usage: / ai-use=y", "/doc.pdf",
			[]string{"ai-use=n (robots.txt line 2)"}},
		{"User-Agent: *\nContent-Usage: /*.pdf$ ai-use=n\nContent-Usage: / ai-use=y", "/doc.pdf?x=1",
			[]string{"ai-use=y (robots.txt line 3)"}},
		{"User-Agent: *\nContent-Usage: /%7Euser/ ai-use=n", "/~user/page", []string{"ai-use=n (robots.txt line 2)"}},
		{"User-Agent: *\nContent-Usage: /caf%C3%A9/ ai-use=n", "/caf%c3%a9/x", []string{"ai-use=n (robots.txt line 2)"}},
		// Canonical length ranks: "/café" is "/caf%C3%A9", ten octets,
		// longer than "/cafe-bar" would be at nine.
		{"User-Agent: *\nContent-Usage: /caf ai-use=y\nContent-Usage: /café ai-use=n", "/caf%C3%A9/menu",
			[]string{"ai-use=n (robots.txt line 3)"}},
		// The longest rule decides even when it says nothing readable.
		{"User-Agent: *\nContent-Usage: ai-use=n\nContent-Usage: /x/ Bad=n", "/x/y", nil},
		{"User-Agent: *\nContent-Usage: ai-use=n\nContent-Usage: /x/", "/x/y", nil},
		// Content-Signal picks its lines on its own; the two vocabularies
		// do not shadow each other.
		{"User-Agent: *\nContent-Signal: ai-input=no\nContent-Usage: /x/ train-ai=n", "/x/y",
			[]string{"ai-input=no (robots.txt line 2)", "train-ai=n (robots.txt line 3)"}},
		{"User-Agent: *\nContent-Signal: /blog/ ai-input=no\nContent-Signal: search=yes", "/blog/post",
			[]string{"ai-input=no (robots.txt line 2)"}},
		{"User-Agent: *\nContent-Signal: /blog/ ai-input=no\nContent-Signal: search=yes", "/about",
			[]string{"search=yes (robots.txt line 3)"}},
		{"User-Agent: *\nContent-Signal: search=yes\nContent-Signal: ai-train=no", "/about",
			[]string{"search=yes (robots.txt line 2)", "ai-train=no (robots.txt line 3)"}},
	}
	for _, tt := range tests {
		s := signalsFor(t, tt.robots, nil, "", "https://example.com"+tt.path)
		if got := statements(s.All); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q for %s: %q, want %q", tt.robots, tt.path, got, tt.want)
		}
	}
	// The reference's example: /news/a gets only ai-use=n.
	s := signalsFor(t, robots, nil, "", "https://example.com/news/a")
	if p, _ := s.Category("train-ai"); p != Unknown {
		t.Errorf("/news/a: train-ai %v, want unknown", p)
	}
	if ok, _ := s.AIInput(); ok {
		t.Error("/news/a: AI input allowed, want refused by ai-use=n")
	}
	if ok, _ := signalsFor(t, robots, nil, "", "https://example.com/about").AIInput(); !ok {
		t.Error("/about: AI input refused, want allowed")
	}
}

// Content-Signal and Content-Usage lines speak to the crawlers of their
// group: a line in a group for another agent does not apply to us.
func TestSignalsGroupScope(t *testing.T) {
	tests := []struct {
		name, robots, agent, path string
		want                      []string
	}{
		{"our group", "User-agent: PoliteCrawler\nContent-Signal: ai-input=no\nAllow: /", testAgent, "/",
			[]string{"ai-input=no (robots.txt line 2)"}},
		{"our group, any case", "User-agent: politecrawler\ncontent-signal: AI-Input=No\nAllow: /", testAgent, "/",
			[]string{"ai-input=no (robots.txt line 2)"}},
		{"another agent's group", "User-agent: GPTBot\nContent-Signal: ai-input=no\nDisallow: /\n\nUser-agent: *\nAllow: /", testAgent, "/",
			nil},
		{"star when we have our own", "User-agent: *\nContent-Signal: ai-input=no\nAllow: /\n\nUser-agent: PoliteCrawler\nAllow: /", testAgent, "/",
			nil},
		// A group runs on until a User-agent line follows a rule (RFC 9309
		// 2.1): with no rule between them, both agents share the line.
		{"no rule before the next User-agent", "User-agent: *\nContent-Signal: ai-input=no\n\nUser-agent: PoliteCrawler\nAllow: /", testAgent, "/",
			[]string{"ai-input=no (robots.txt line 2)"}},
		{"star when we have none", "User-agent: *\nContent-Signal: ai-input=no\n\nUser-agent: GPTBot\nDisallow: /", testAgent, "/",
			[]string{"ai-input=no (robots.txt line 2)"}},
		{"merged groups", "User-agent: PoliteCrawler\nContent-Usage: train-ai=n\nAllow: /\n\nUser-agent: politecrawler\nContent-Usage: search=y\nAllow: /", testAgent, "/",
			[]string{"train-ai=n (robots.txt line 2)", "search=y (robots.txt line 6)"}},
		{"shared group", "User-agent: GPTBot\nUser-agent: PoliteCrawler\nContent-Signal: ai-train=no\nAllow: /", testAgent, "/",
			[]string{"ai-train=no (robots.txt line 3)"}},
		{"before any group: refusals count", "Content-Signal: ai-input=no, search=yes\nUser-agent: *\nAllow: /", testAgent, "/",
			[]string{"ai-input=no (robots.txt line 1 (before any group))"}},
		{"before any group: grants do not", "Content-Signal: ai-input=yes\nUser-agent: *\nAllow: /", testAgent, "/", nil},
		{"before any group: out of its path", "Content-Signal: /x/ ai-input=no\nUser-agent: *\nAllow: /", testAgent, "/y", nil},
	}
	for _, tt := range tests {
		rules := robotstxt.Parse([]byte(tt.robots))
		s := Read(rules, tt.agent, "https://example.com"+tt.path, nil, nil)
		if got := statements(s.All); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}

	// The robots sample signals.txt: "*" refuses AI input; our group only
	// opts /blog/ out of training.
	body, err := os.ReadFile("../robotstxt/testdata/robots/signals.txt")
	if err != nil {
		t.Fatal(err)
	}
	rules := robotstxt.Parse(body)
	s := Read(rules, testAgent, "https://example.com/blog/post", nil, nil)
	if got, want := statements(s.All), []string{"train-ai=n (robots.txt line 9)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("signals.txt, PoliteCrawler, /blog/post: %q, want %q", got, want)
	}
	if ok, _ := s.AIInput(); !ok {
		t.Error("signals.txt: the '*' group's ai-input=no applied to PoliteCrawler")
	}
	if s := Read(rules, "PoliteCrawler/0.1.0", "https://example.com/docs/", nil, nil); len(s.All) != 0 {
		t.Errorf("signals.txt, PoliteCrawler, /docs/: %q, want nothing", statements(s.All))
	}
	s = Read(rules, "OtherBot", "https://example.com/blog/post", nil, nil)
	if ok, because := s.AIInput(); ok || because.String() != "ai-input=no (robots.txt line 2)" {
		t.Errorf("signals.txt, OtherBot: AIInput() = %v, %v; want refused by line 2", ok, because)
	}
}

// X-Robots-Tag and robots meta: directives compared without case;
// "name: directives" speaks to that crawler only.
func TestSignalsRobotsDirectives(t *testing.T) {
	tests := []struct {
		name   string
		header textproto.MIMEHeader
		html   string
		want   []string
	}{
		{"plain", hdr("X-Robots-Tag", "noindex, NoSnippet"), "",
			[]string{"noindex (header X-Robots-Tag)", "nosnippet (header X-Robots-Tag)"}},
		{"another bot", hdr("X-Robots-Tag", "googlebot: nosnippet"), "", nil},
		{"our token", hdr("X-Robots-Tag", "PoliteCrawler: nosnippet"), "", []string{"nosnippet (header X-Robots-Tag)"}},
		{"our token, any case", hdr("X-Robots-Tag", "politecrawler: noarchive"), "", []string{"noarchive (header X-Robots-Tag)"}},
		{"scope switches", hdr("X-Robots-Tag", "googlebot: noindex, politecrawler: nosnippet, noarchive"), "",
			[]string{"nosnippet (header X-Robots-Tag)", "noarchive (header X-Robots-Tag)"}},
		{"scope ends with the line", hdr("X-Robots-Tag", "googlebot: nosnippet", "X-Robots-Tag", "noarchive"), "",
			[]string{"noarchive (header X-Robots-Tag)"}},
		{"valued directive is no agent", hdr("X-Robots-Tag", "max-snippet: 0, nofollow"), "",
			[]string{"max-snippet:0 (header X-Robots-Tag)", "nofollow (header X-Robots-Tag)"}},
		{"unavailable_after", hdr("X-Robots-Tag", "unavailable_after: Sunday, 01-Sep-2030 15:00:00 GMT, nosnippet"), "",
			[]string{"nosnippet (header X-Robots-Tag)"}},
		{"agent then valued", hdr("X-Robots-Tag", "PoliteCrawler: max-snippet:0"), "",
			[]string{"max-snippet:0 (header X-Robots-Tag)"}},
		{"unknown and empty", hdr("X-Robots-Tag", "notranslate, , max-image-preview:large, all"), "", nil},
		{"meta tags combine", nil, `<meta name="robots" content="noindex"><meta name="ROBOTS" content="nofollow">`,
			[]string{"noindex (meta robots)", "nofollow (meta robots)"}},
		{"meta is not agent-scoped", nil, meta("robots", "googlebot: nosnippet"), nil},
		{"meta for another bot", nil, meta("googlebot", "nosnippet"), nil},
		{"own meta", nil, meta("PoliteCrawler", "noarchive"), []string{"noarchive (meta politecrawler)"}},
	}
	for _, tt := range tests {
		s := signalsFor(t, "", tt.header, tt.html, "")
		if got := statements(s.All); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TDMRep: the meta tag overrides the header; a value other than 0 or 1 is
// unset and overrides nothing; the policy is reported unless reservation
// is 0.
func TestSignalsTDMRep(t *testing.T) {
	tests := []struct {
		name    string
		header  textproto.MIMEHeader
		html    string
		want    []string
		allowed bool
	}{
		{"header 1", hdr("tdm-reservation", "1"), "", []string{"tdm-reservation: 1 (header tdm-reservation)"}, false},
		{"meta 0 overrides header 1", hdr("tdm-reservation", "1"), meta("tdm-reservation", "0"),
			[]string{"tdm-reservation: 0 (meta tdm-reservation)"}, true},
		{"meta 1 overrides header 0", hdr("tdm-reservation", "0"), meta("tdm-reservation", "1"),
			[]string{"tdm-reservation: 1 (meta tdm-reservation)"}, false},
		{"unset meta does not reset", hdr("tdm-reservation", "1"), meta("tdm-reservation", "true"),
			[]string{"tdm-reservation: 1 (header tdm-reservation)"}, false},
		{"with policy", hdr("tdm-reservation", "1", "tdm-policy", "https://example.com/p.json"), "",
			[]string{"tdm-reservation: 1 (header tdm-reservation)", "tdm-policy: https://example.com/p.json (header tdm-policy)"}, false},
		{"policy ignored when 0", hdr("tdm-reservation", "0", "tdm-policy", "https://example.com/p.json"), "",
			[]string{"tdm-reservation: 0 (header tdm-reservation)"}, true},
		{"meta policy", nil, meta("tdm-reservation", "1", "tdm-policy", "https://example.com/m.json"),
			[]string{"tdm-reservation: 1 (meta tdm-reservation)", "tdm-policy: https://example.com/m.json (meta tdm-policy)"}, false},
		{"spaces", hdr("tdm-reservation", " 1 "), "", []string{"tdm-reservation: 1 (header tdm-reservation)"}, false},
		{"garbage", hdr("tdm-reservation", "yes"), "", nil, true},
	}
	for _, tt := range tests {
		s := signalsFor(t, "", tt.header, tt.html, "")
		if got := statements(s.All); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if ok, _ := s.AIInput(); ok != tt.allowed {
			t.Errorf("%s: AIInput() = %v, want %v", tt.name, ok, tt.allowed)
		}
	}
}

// The header keys are read by map index, so they must be in the form
// net/http keys a response's header by (textproto's canonical form), or
// the headers they name would go unread.
func TestHeaderKeysAreCanonical(t *testing.T) {
	for _, k := range []string{KeyContentUsage, KeyContentSignal, KeyXRobotsTag, KeyTDMReservation, KeyTDMPolicy} {
		if c := textproto.CanonicalMIMEHeaderKey(k); c != k {
			t.Errorf("key %q is read by map index, but responses carry it as %q", k, c)
		}
	}
}
