package polite

import (
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/politecrawler/polite/internal/htmlpass"
)

const testAgent = "PoliteCrawler"

// hdr builds a header from name, value pairs; a name may repeat.
func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// meta is a page whose head holds the given meta tags.
func meta(tags ...string) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>t</title>")
	for i := 0; i+1 < len(tags); i += 2 {
		b.WriteString(`<meta name="` + tags[i] + `" content="` + tags[i+1] + `">`)
	}
	b.WriteString("</head><body><p>Some text.</p></body></html>")
	return b.String()
}

// signalsFor reads the signals of a page at pageURL ("" is
// https://example.com/page) for testAgent.
func signalsFor(t testing.TB, robots string, header http.Header, html, pageURL string) Signals {
	t.Helper()
	if pageURL == "" {
		pageURL = "https://example.com/page"
	}
	var rules *Robots
	if robots != "" {
		rules = ParseRobots([]byte(robots))
	}
	u, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	return readSignals(rules, testAgent, pageURL, header, htmlpass.Parse([]byte(html), u))
}

func statements(sigs []Signal) []string {
	var out []string
	for _, s := range sigs {
		out = append(out, s.String())
	}
	return out
}

// Every row of the decision table (reference/content-signals.md), from each
// place the signal can be given.
func TestSignalsDecisionTable(t *testing.T) {
	const ua = "User-agent: *\nAllow: /\n"
	tests := []struct {
		name     string
		robots   string
		header   http.Header
		html     string
		because  string   // the refusing signal; "" when AI input is allowed
		training []string // TrainingOptOut
	}{
		{name: "nothing said"},
		// Cloudflare Content-Signal.
		{name: "CS ai-input=no", robots: ua + "Content-Signal: ai-input=no",
			because: "ai-input=no (robots.txt line 3)"},
		{name: "CS ai-input=yes", robots: ua + "Content-Signal: ai-input=yes"},
		{name: "CS ai-train=no", robots: ua + "Content-Signal: ai-train=no",
			training: []string{"ai-train=no (robots.txt line 3)"}},
		{name: "CS search=no", robots: ua + "Content-Signal: search=no"},
		{name: "CS managed robots.txt", robots: ua + "Content-Signal: search=yes, ai-train=no",
			training: []string{"ai-train=no (robots.txt line 3)"}},
		{name: "CS the published example", robots: ua + "Content-Signal: search=yes, ai-input=no, ai-train=no",
			because: "ai-input=no (robots.txt line 3)", training: []string{"ai-train=no (robots.txt line 3)"}},
		{name: "CS use=immediate", robots: ua + "Content-Signal: use=immediate"},
		{name: "CS use=full", robots: ua + "Content-Signal: use=full"},
		{name: "CS use=reference", robots: ua + "Content-Signal: use=reference",
			because: "use=reference (robots.txt line 3)"},
		{name: "CS header", header: hdr("Content-Signal", "ai-input=no"),
			because: "ai-input=no (header Content-Signal)"},
		{name: "CS meta", html: meta("content-signal", "ai-input=no"),
			because: "ai-input=no (meta content-signal)"},
		// AIPREF Content-Usage.
		{name: "CU ai-use=n robots", robots: ua + "Content-Usage: ai-use=n",
			because: "ai-use=n (robots.txt line 3)"},
		{name: "CU ai-use=n header", header: hdr("Content-Usage", "ai-use=n"),
			because: "ai-use=n (header Content-Usage)"},
		{name: "CU ai-use=y", header: hdr("Content-Usage", "ai-use=y")},
		{name: "CU train-ai=n", header: hdr("Content-Usage", "train-ai=n"),
			training: []string{"train-ai=n (header Content-Usage)"}},
		{name: "CU train-genai genai ai", header: hdr("Content-Usage", "train-genai=n, genai=n, ai=n"),
			training: []string{"train-genai=n (header Content-Usage)", "genai=n (header Content-Usage)", "ai=n (header Content-Usage)"}},
		{name: "CU train-ai=n robots", robots: ua + "Content-Usage: train-ai=n",
			training: []string{"train-ai=n (robots.txt line 3)"}},
		{name: "CU ai-output=n", header: hdr("Content-Usage", "ai-output=n"),
			because: "ai-output=n (header Content-Usage)"},
		{name: "CU inference=n", header: hdr("Content-Usage", "inference=n"),
			because: "inference=n (header Content-Usage)"},
		{name: "CU bots=n", header: hdr("Content-Usage", "bots=n"), because: "bots=n (header Content-Usage)"},
		{name: "CU all=n", header: hdr("Content-Usage", "all=n"), because: "all=n (header Content-Usage)"},
		{name: "CU tdm=n", robots: ua + "Content-Usage: tdm=n", because: "tdm=n (robots.txt line 3)"},
		{name: "CU search=n", header: hdr("Content-Usage", "search=n")},
		{name: "CU everything allowed", header: hdr("Content-Usage", "train-ai=y, ai-use=y, search=y")},
		// Robots meta and X-Robots-Tag.
		{name: "nosnippet header", header: hdr("X-Robots-Tag", "nosnippet"),
			because: "nosnippet (header X-Robots-Tag)"},
		{name: "nosnippet meta", html: meta("robots", "nosnippet"), because: "nosnippet (meta robots)"},
		{name: "max-snippet:0 header", header: hdr("X-Robots-Tag", "max-snippet:0"),
			because: "max-snippet:0 (header X-Robots-Tag)"},
		{name: "max-snippet:0 meta", html: meta("robots", "max-snippet: 0"), because: "max-snippet:0 (meta robots)"},
		{name: "max-snippet:50", html: meta("robots", "max-snippet:50")},
		{name: "max-snippet:-1", header: hdr("X-Robots-Tag", "max-snippet:-1")},
		{name: "noarchive header", header: hdr("X-Robots-Tag", "noarchive"),
			because: "noarchive (header X-Robots-Tag)"},
		{name: "noarchive meta", html: meta("robots", "noarchive"), because: "noarchive (meta robots)"},
		{name: "nocache (Bing)", html: meta("robots", "nocache"), because: "nocache (meta robots)"},
		{name: "noindex", html: meta("robots", "noindex")},
		{name: "nofollow", header: hdr("X-Robots-Tag", "nofollow")},
		{name: "none", html: meta("robots", "none")},
		{name: "noai", html: meta("robots", "noai"), training: []string{"noai (meta robots)"}},
		{name: "noimageai", header: hdr("X-Robots-Tag", "noimageai"),
			training: []string{"noimageai (header X-Robots-Tag)"}},
		{name: "own meta name", html: meta("politecrawler", "nosnippet"), because: "nosnippet (meta politecrawler)"},
		// TDMRep.
		{name: "tdm-reservation 1 header", header: hdr("tdm-reservation", "1"),
			because: "tdm-reservation: 1 (header tdm-reservation)"},
		{name: "tdm-reservation 1 meta", html: meta("tdm-reservation", "1"),
			because: "tdm-reservation: 1 (meta tdm-reservation)"},
		{name: "tdm-reservation 0", header: hdr("tdm-reservation", "0")},
		{name: "tdm-reservation garbage", header: hdr("tdm-reservation", "yes")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := signalsFor(t, tt.robots, tt.header, tt.html, "")
			allowed, because := s.AIInput()
			switch {
			case tt.because == "" && (!allowed || because != nil):
				t.Errorf("AIInput() = %v, %v; want allowed (signals %v)", allowed, because, statements(s.All))
			case tt.because != "" && (allowed || because == nil || because.String() != tt.because):
				t.Errorf("AIInput() = %v, %v; want refused by %s (signals %v)", allowed, because, tt.because, statements(s.All))
			}
			if got := statements(s.TrainingOptOut()); !reflect.DeepEqual(got, tt.training) {
				t.Errorf("TrainingOptOut() = %q, want %q", got, tt.training)
			}
		})
	}
}

func TestSignalsNoFollowNoIndex(t *testing.T) {
	tests := []struct {
		name              string
		header            http.Header
		html              string
		noFollow, noIndex bool
	}{
		{"nothing", nil, "", false, false},
		{"meta nofollow", nil, meta("robots", "nofollow"), true, false},
		{"meta noindex", nil, meta("robots", "noindex"), false, true},
		{"meta none", nil, meta("robots", "NONE"), true, true},
		{"header", hdr("X-Robots-Tag", "noindex, nofollow"), "", true, true},
		{"header for another bot", hdr("X-Robots-Tag", "googlebot: noindex, nofollow"), "", false, false},
		{"meta for another bot", nil, meta("googlebot", "noindex"), false, false},
		{"own meta", nil, meta("PoliteCrawler", "nofollow"), true, false},
		{"index, follow", nil, meta("robots", "index, follow, all"), false, false},
	}
	for _, tt := range tests {
		s := signalsFor(t, "", tt.header, tt.html, "")
		if s.NoFollow() != tt.noFollow || s.NoIndex() != tt.noIndex {
			t.Errorf("%s: NoFollow %v NoIndex %v, want %v %v", tt.name, s.NoFollow(), s.NoIndex(), tt.noFollow, tt.noIndex)
		}
	}
}

// Statements combine per category: any no → no, else any yes → yes, else
// unknown; robots.txt and the header are both statements, neither
// overrides the other.
func TestSignalsCombine(t *testing.T) {
	tests := []struct {
		name     string
		robots   string
		header   http.Header
		category string
		want     Preference
		because  string
	}{
		{"unknown", "", nil, "ai-use", PreferenceUnknown, ""},
		{"header y", "", hdr("Content-Usage", "ai-use=y"), "ai-use", PreferenceYes, "ai-use=y (header Content-Usage)"},
		{"robots n, header y", "User-agent: *\nContent-Usage: ai-use=n", hdr("Content-Usage", "ai-use=y"),
			"ai-use", PreferenceNo, "ai-use=n (robots.txt line 2)"},
		{"robots y, header n", "User-agent: *\nContent-Usage: train-ai=y", hdr("Content-Usage", "train-ai=n"),
			"train-ai", PreferenceNo, "train-ai=n (header Content-Usage)"},
		{"both y", "User-agent: *\nContent-Usage: search=y", hdr("Content-Usage", "search=y"),
			"search", PreferenceYes, "search=y (robots.txt line 2)"},
		{"Content-Signal no", "User-agent: *\nContent-Signal: search=no", hdr("Content-Signal", "search=yes"),
			"search", PreferenceNo, "search=no (robots.txt line 2)"},
		{"categories are separate", "", hdr("Content-Usage", "train-ai=n, ai-use=y"),
			"ai-use", PreferenceYes, "ai-use=y (header Content-Usage)"},
		{"case of the name", "", hdr("Content-Usage", "ai-use=n"), "AI-Use", PreferenceNo, "ai-use=n (header Content-Usage)"},
	}
	for _, tt := range tests {
		s := signalsFor(t, tt.robots, tt.header, "", "")
		got, because := s.Category(tt.category)
		b := ""
		if because != nil {
			b = because.String()
		}
		if got != tt.want || b != tt.because {
			t.Errorf("%s: Category(%q) = %v, %q; want %v, %q", tt.name, tt.category, got, b, tt.want, tt.because)
		}
	}
	// A grant never outweighs a refusal, whichever comes first.
	s := signalsFor(t, "User-agent: *\nContent-Signal: ai-input=yes", hdr("Content-Usage", "ai-use=n"), "", "")
	if ok, because := s.AIInput(); ok || because.Name != "ai-use" {
		t.Errorf("ai-input=yes with ai-use=n: AIInput() = %v, %v; want refused by ai-use=n", ok, because)
	}
	// The first refusal in the order of All is the one named.
	s = signalsFor(t, "User-agent: *\nContent-Signal: ai-input=no", hdr("X-Robots-Tag", "nosnippet"), meta("robots", "noarchive"), "")
	if _, because := s.AIInput(); because == nil || because.Source != "robots.txt line 2" {
		t.Errorf("several refusals: because = %v, want the robots.txt one", because)
	}
	if len(s.All) != 3 {
		t.Errorf("All = %v, want three signals", statements(s.All))
	}
	for i, p := range []Preference{PreferenceUnknown, PreferenceYes, PreferenceNo} {
		if got := p.String(); got != []string{"unknown", "yes", "no"}[i] {
			t.Errorf("Preference(%d).String() = %q", p, got)
		}
	}
}

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
	if p, _ := s.Category("train-ai"); p != PreferenceUnknown {
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
		rules := ParseRobots([]byte(tt.robots))
		s := readSignals(rules, tt.agent, "https://example.com"+tt.path, nil, htmlpass.Page{})
		if got := statements(s.All); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}

	// The robots sample signals.txt: "*" refuses AI input; our group only
	// opts /blog/ out of training.
	body, err := os.ReadFile("internal/robotstxt/testdata/robots/signals.txt")
	if err != nil {
		t.Fatal(err)
	}
	rules := ParseRobots(body)
	s := readSignals(rules, testAgent, "https://example.com/blog/post", nil, htmlpass.Page{})
	if got, want := statements(s.All), []string{"train-ai=n (robots.txt line 9)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("signals.txt, PoliteCrawler, /blog/post: %q, want %q", got, want)
	}
	if ok, _ := s.AIInput(); !ok {
		t.Error("signals.txt: the '*' group's ai-input=no applied to PoliteCrawler")
	}
	if s := readSignals(rules, "PoliteCrawler/0.1.0", "https://example.com/docs/", nil, htmlpass.Page{}); len(s.All) != 0 {
		t.Errorf("signals.txt, PoliteCrawler, /docs/: %q, want nothing", statements(s.All))
	}
	s = readSignals(rules, "OtherBot", "https://example.com/blog/post", nil, htmlpass.Page{})
	if ok, because := s.AIInput(); ok || because.String() != "ai-input=no (robots.txt line 2)" {
		t.Errorf("signals.txt, OtherBot: AIInput() = %v, %v; want refused by line 2", ok, because)
	}
}

// X-Robots-Tag and robots meta: directives compared without case;
// "name: directives" speaks to that crawler only.
func TestSignalsRobotsDirectives(t *testing.T) {
	tests := []struct {
		name   string
		header http.Header
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
		header  http.Header
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

// Without robots.txt (an API host, an unrestricted run, a 404), the header
// and the page still speak.
func TestSignalsNilRobots(t *testing.T) {
	s := readSignals(nil, testAgent, "https://api.example.com/v1/x", hdr("Content-Usage", "ai-use=n"), htmlpass.Page{})
	if ok, because := s.AIInput(); ok || because.Source != "header Content-Usage" {
		t.Errorf("AIInput() = %v, %v; want refused by the header", ok, because)
	}
	var zero Signals
	if ok, because := zero.AIInput(); !ok || because != nil || zero.TrainingOptOut() != nil || zero.NoFollow() || zero.NoIndex() {
		t.Error("the zero Signals is not 'nothing said'")
	}
	if s := readSignals(nil, "", "", nil, htmlpass.Page{}); len(s.All) != 0 {
		t.Errorf("no agent, no URL, nothing: %v", s.All)
	}
}

// The pages in testdata/pages, end to end through the HTML pass.
func TestSignalsSeedPages(t *testing.T) {
	tests := []struct {
		file     string
		because  string
		training []string
		noFollow bool
	}{
		{"article.html", "", nil, false},
		{"nosnippet.html", "max-snippet:0 (meta robots)", []string{"noai (meta robots)"}, false},
		{"own-meta.html", "noarchive (meta politecrawler)", nil, false},
		{"tdm-reserved.html", "tdm-reservation: 1 (meta tdm-reservation)", nil, false},
		{"nofollow.html", "", nil, true},
		{"training-optout.html", "", []string{"noai (meta robots)", "noimageai (meta robots)"}, false},
	}
	for _, tt := range tests {
		body, err := os.ReadFile("testdata/pages/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		s := signalsFor(t, "", nil, string(body), "https://example.com/"+tt.file)
		ok, because := s.AIInput()
		if b := ""; because != nil {
			b = because.String()
			if b != tt.because {
				t.Errorf("%s: refused by %s, want %q", tt.file, b, tt.because)
			}
		} else if !ok || tt.because != "" {
			t.Errorf("%s: AIInput() = %v, want refused by %s", tt.file, ok, tt.because)
		}
		if got := statements(s.TrainingOptOut()); !reflect.DeepEqual(got, tt.training) {
			t.Errorf("%s: TrainingOptOut() = %q, want %q", tt.file, got, tt.training)
		}
		if s.NoFollow() != tt.noFollow {
			t.Errorf("%s: NoFollow() = %v, want %v", tt.file, s.NoFollow(), tt.noFollow)
		}
	}
}

// FuzzSignals reads arbitrary robots.txt files and Content-Usage and
// X-Robots-Tag values: never a panic, and the verdicts agree with the
// signals reported. The Dictionary's own properties are internal/sfv's
// FuzzParseDictionary.
func FuzzSignals(f *testing.F) {
	f.Add("User-agent: *\nContent-Signal: search=yes, ai-input=no, ai-train=no\nAllow: /", "ai-use=n", "noindex", "/")
	f.Add("User-Agent: *\nContent-Usage: train-ai=n\nContent-Usage: /news/ ai-use=n", "train-ai=y, ai-use=n;x=1", "googlebot: nosnippet", "/news/a")
	f.Add("Content-Signal: ai-input=no\nUser-agent: PoliteCrawler\nContent-Usage: /*.pdf$ bots=n", "Train-AI=n", "politecrawler: max-snippet:0", "/a.pdf")
	f.Add("", `x=%"caf%c3%a9", y=:aGk=:, z=(a b);p=@12, w=-1.5`, "", "")
	f.Fuzz(func(t *testing.T, robots, contentUsage, xRobots, path string) {
		rules := ParseRobots([]byte(robots))
		h := hdr("Content-Usage", contentUsage, "X-Robots-Tag", xRobots)
		s := readSignals(rules, testAgent, "https://example.com"+path, h, htmlpass.Page{})
		refusing := 0
		for _, sig := range s.All {
			if sig.Source == "" || sig.Name == "" || sig.Name != strings.ToLower(sig.Name) {
				t.Errorf("signal %+v: no source, or a name not in lower case", sig)
			}
			if holdsBackAIInput(sig) {
				refusing++
			}
			if holdsBackAIInput(sig) && refusesTraining(sig) {
				t.Errorf("signal %v both refuses AI input and is training-only", sig)
			}
		}
		ok, because := s.AIInput()
		if ok != (refusing == 0) || ok != (because == nil) {
			t.Errorf("AIInput() = %v, %v with %d refusing signals in %v", ok, because, refusing, statements(s.All))
		}
	})
}
