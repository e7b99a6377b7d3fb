package polite

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Google's ID_LinesNumbersAreCountedCorrectly: CR, LF and CRLF each end a
// line (RFC 9309 section 2.2, R5.1), and line numbers agree.
func TestRobotsLineEnds(t *testing.T) {
	files := map[string]string{
		"unix":       "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
		"dos":        "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
		"mac":        "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
		"no final":   "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
		"mixed":      "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
		"mixed CRCR": "User-Agent: foo\r\nAllow: /some/path\r\rUser-Agent: bar\n\nDisallow: /",
	}
	for name, body := range files {
		recs := tokenizeRobots([]byte(body))
		if len(recs) != 4 || recs[3].line != 6 {
			t.Errorf("%s: %d records, last on line %d; want 4, line 6: %+v", name, len(recs), recs[len(recs)-1].line, recs)
		}
		d := ParseRobots([]byte(body)).Decide("bar", "/x")
		if d.Allowed || d.Line != 6 {
			t.Errorf("%s: bar /x: %+v, want disallowed by line 6", name, d)
		}
	}
}

func TestRobotsParseLine(t *testing.T) {
	tests := []struct {
		line, key, value string
		ok               bool
	}{
		{"User-agent: Foo", keyUserAgent, "Foo", true},
		{"  Disallow :  /a b  ", keyDisallow, "/a b", true},
		{"Disallow: /a # comment", keyDisallow, "/a", true},
		{"Disallow:/a#b", keyDisallow, "/a", true},
		{"# Disallow: /", "", "", false},
		{"Disallow:", keyDisallow, "", true},
		{"Disallow /tmp", keyDisallow, "/tmp", true}, // Google: colon-less, two words
		{"Disallow /a /b", "", "", false},            // three words
		{"Disallow /a:b", keyDisallow, "/a:b", true}, // the colon is in the value
		{"Foo bar", "", "", false},                   // colon-less unknown key
		{"Sitemap http://example.com/s.xml", keySitemap, "http://example.com/s.xml", true},
		{"Sitemap: http://example.com/s.xml", keySitemap, "http://example.com/s.xml", true},
		{"Site-map: /s.xml", keySitemap, "/s.xml", true},
		{"user agent: Foo", keyUserAgent, "Foo", true},
		{"user agent Foo", "", "", false},
		{"Content-Signal: search=yes, ai-train=no", "content-signal", "search=yes, ai-train=no", true},
		{"CONTENT-USAGE: /blog/ train-ai=n", "content-usage", "/blog/ train-ai=n", true},
		{"Crawl-Delay: 2.5", keyCrawlDelay, "2.5", true},
		{"crawldelay 3", keyCrawlDelay, "3", true},
		{": value", "", "", false},
		{"<html><body>", "", "", false},
		{"\t\v\f", "", "", false},
	}
	for _, tt := range tests {
		rec, ok := parseRobotsLine(tt.line)
		if ok != tt.ok || rec.key != tt.key || rec.value != tt.value {
			t.Errorf("parseRobotsLine(%q) = %q %q %v, want %q %q %v", tt.line, rec.key, rec.value, ok, tt.key, tt.value, tt.ok)
		}
	}
}

func TestRobotsAgentToken(t *testing.T) {
	for in, want := range map[string]string{
		"Googlebot":           "Googlebot",
		"Googlebot/2.1":       "Googlebot",
		"Googlebot-Image":     "Googlebot-Image",
		"Foo_Bar baz":         "Foo_Bar",
		"*":                   "*",
		"* everyone":          "*",
		"*bot":                "",
		"ツ":                   "",
		"":                    "",
		"PoliteCrawler/0.1.0": "PoliteCrawler",
	} {
		if got := agentToken(in); got != want {
			t.Errorf("agentToken(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRobotsRequestPath(t *testing.T) {
	tests := []struct{ url, path, only string }{
		{"", "/", "/"},
		{"http://www.example.com", "/", "/"},
		{"http://www.example.com/", "/", "/"},
		{"http://www.example.com/a", "/a", "/a"},
		{"http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/", "/a/b"},
		{"http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f", "/a/b"},
		{"https://user@host:8080/a?b", "/a?b", "/a"},
		{"http://host?q=1", "/?q=1", "/"},
		{"//host/a/b", "/a/b", "/a/b"},
		{"/a/b?c", "/a/b?c", "/a/b"},
		{"?q", "/?q", "/"},
		{"example.com/a", "/a", "/a"},
		{"/a#/b", "/a", "/a"},
		{"/%7Efoo/caf%c3%a9", "/~foo/caf%C3%A9", "/~foo/caf%C3%A9"},
		{"/a*b$", "/a%2Ab%24", "/a%2Ab%24"},
		{"/robots.txt?x=1", "/robots.txt?x=1", "/robots.txt"},
	}
	for _, tt := range tests {
		path, only := requestPath(tt.url)
		if path != tt.path || only != tt.only {
			t.Errorf("requestPath(%q) = %q, %q; want %q, %q", tt.url, path, only, tt.path, tt.only)
		}
	}
}

// R5.1: percent-encoding compared in canonical form (RFC 9309 section 2.2.2).
func TestRobotsCanonical(t *testing.T) {
	tests := []struct {
		in      string
		pattern string // as a pattern
		path    string // as a URL path
	}{
		{"/a/b", "/a/b", "/a/b"},
		{"/%7Efoo", "/~foo", "/~foo"},
		{"/%41%2d%5F", "/A-_", "/A-_"},
		{"/%2f%3a", "/%2F%3A", "/%2F%3A"},
		{"/café", "/caf%C3%A9", "/caf%C3%A9"},
		{"/a b", "/a%20b", "/a%20b"},
		{"/100%", "/100%25", "/100%25"},
		{"/%zz", "/%25zz", "/%25zz"},
		{"/a|b{c}", "/a%7Cb%7Bc%7D", "/a%7Cb%7Bc%7D"},
		{"/*.php$", "/*.php$", "/%2A.php%24"},
		{"/a$b$", "/a%24b$", "/a%24b%24"},
		{"/%2A", "/%2A", "/%2A"},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := robotsCanonical(tt.in, false); got != tt.pattern {
			t.Errorf("robotsCanonical(%q, pattern) = %q, want %q", tt.in, got, tt.pattern)
		}
		if got := robotsCanonical(tt.in, true); got != tt.path {
			t.Errorf("robotsCanonical(%q, path) = %q, want %q", tt.in, got, tt.path)
		}
	}
}

func TestRobotsPatternMatches(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/", true},
		{"/a", "/abc", true},
		{"/a$", "/a", true},
		{"/a$", "/ab", false},
		{"*", "/x", true},
		{"*$", "/x", true},
		{"$", "/", false},
		{"/*", "/", true},
		{"/a*", "/a", true},
		{"/a*b", "/axxb", true},
		{"/a*b", "/xab", false},
		{"/a*b$", "/ab/b", true},
		{"/a*b$", "/ab/bc", false},
		{"/a**b", "/ab", true},
		{"/*a*a*b", "/aaab", true},
		{"/*a*a*b", "/ab", false},
		{"/*ab$", "/abab", true},
		{"/a*ba$", "/aba", true},
		{"/a*ab$", "/ab", false}, // the last piece may not overlap the first
		{"private", "/private", false},
	}
	for _, tt := range tests {
		if got := patternMatches(tt.pattern, tt.path); got != tt.want {
			t.Errorf("patternMatches(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// R5.4: a disallowed URL's error names the rule; Decide carries it.
func TestRobotsDecision(t *testing.T) {
	r := ParseRobots([]byte(robotsSeed002 + "User-agent: PoliteCrawler\nUser-agent: politecrawler/2\nuser-agent: Other\nDISALLOW: /p*\n\nUser-agent: PoliteCrawler\nallow: /pub\n"))
	tests := []struct {
		agent, url string
		want       Decision
	}{
		{"SomeBot", "/private/x", Decision{Allowed: false, Rule: "disallow", Pattern: "/private/", Line: 2, Group: []string{"*"}}},
		{"SomeBot", "/other/public/x", Decision{Allowed: true, Rule: "allow", Pattern: "/other/public/", Line: 5, Group: []string{"*"}}},
		{"SomeBot", "/nothing", Decision{Allowed: true, Group: []string{"*"}}},
		{"SomeBot", "/robots.txt", Decision{Allowed: true}},
		{"FavoredCrawler", "/private/x", Decision{Allowed: true, Group: []string{"FavoredCrawler"}}},
		{"PoliteCrawler", "/private", Decision{Allowed: false, Rule: "disallow", Pattern: "/p*", Line: 14, Group: []string{"PoliteCrawler", "politecrawler/2", "Other"}}},
		{"PoliteCrawler/0.1.0 (+https://example.com/bot)", "/pub", Decision{Allowed: true, Rule: "allow", Pattern: "/pub", Line: 17, Group: []string{"PoliteCrawler", "politecrawler/2", "Other"}}},
	}
	for _, tt := range tests {
		if got := r.Decide(tt.agent, tt.url); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Decide(%q, %q) = %+v, want %+v", tt.agent, tt.url, got, tt.want)
		}
		if got := r.Allowed(tt.agent, tt.url); got != tt.want.Allowed {
			t.Errorf("Allowed(%q, %q) = %v", tt.agent, tt.url, got)
		}
	}
	if d := ParseRobots(nil).Decide("PoliteCrawler", "/x"); !reflect.DeepEqual(d, Decision{Allowed: true}) {
		t.Errorf("empty file: %+v", d)
	}
}

// R5.1: the nil *Robots and the empty file allow everything.
func TestRobotsNil(t *testing.T) {
	var r *Robots
	if !r.Allowed("PoliteCrawler", "/x") || r.CrawlDelay("PoliteCrawler") != 0 || r.Sitemaps() != nil || r.groupRecords("x") != nil {
		t.Error("nil *Robots does not allow all")
	}
	if d := r.Decide("PoliteCrawler", "/x"); !reflect.DeepEqual(d, Decision{Allowed: true}) {
		t.Errorf("nil *Robots: %+v", d)
	}
	for _, body := range []string{"", " \n\n", "\ufeff", "<html><body>Not found</body></html>"} {
		if r := ParseRobots([]byte(body)); !r.Allowed("PoliteCrawler", "/x") {
			t.Errorf("%q disallows", body)
		}
	}
}

// R2.3, R5.4: Crawl-delay of the group that applies.
func TestRobotsCrawlDelay(t *testing.T) {
	tests := []struct {
		robots, agent string
		want          time.Duration
	}{
		{"User-agent: *\nCrawl-delay: 10\n", "PoliteCrawler", 10 * time.Second},
		{"User-agent: *\nCrawl-delay: 0.5\n", "PoliteCrawler", 500 * time.Millisecond},
		{"User-agent: *\nCrawl-delay: .25\n", "PoliteCrawler", 250 * time.Millisecond},
		{"User-agent: *\nCrawl-delay: -3\n", "PoliteCrawler", 0},
		{"User-agent: *\nCrawl-delay: soon\n", "PoliteCrawler", 0},
		{"User-agent: *\nCrawl-delay: 1e3\n", "PoliteCrawler", 0},
		{"User-agent: *\nCrawl-delay: inf\n", "PoliteCrawler", 0},
		{"User-agent: *\nCrawl-delay: 5 seconds\n", "PoliteCrawler", 0},
		{"User-agent: *\nCrawl-delay: 1.2.3\n", "PoliteCrawler", 0},
		{"User-agent: *\nCrawl-delay:\n", "PoliteCrawler", 0},
		{"User-agent: *\nCrawl-delay: 99999999999999999999\n", "PoliteCrawler", math.MaxInt64},
		{"Crawl-delay: 7\nUser-agent: *\nDisallow: /\n", "PoliteCrawler", 0},                                                      // before any group
		{"User-agent: *\nCrawl-delay: 9\nDisallow: /y\n\nUser-agent: PoliteCrawler\nDisallow: /x\n", "PoliteCrawler", 0},          // own group has none
		{"User-agent: *\nCrawl-delay: 9\nDisallow: /y\n\nUser-agent: PoliteCrawler\nDisallow: /x\n", "OtherBot", 9 * time.Second}, // * group
		{"User-agent: *\nCrawl-delay: 9\n\nUser-agent: PoliteCrawler\nDisallow: /x\n", "PoliteCrawler", 9 * time.Second},          // one group: Crawl-delay does not end it
		{"User-agent: SlowBot\nCrawl-delay: 5\nUser-agent: PoliteCrawler\nDisallow: /x\n", "PoliteCrawler", 5 * time.Second},
		{"User-agent: PoliteCrawler\nCrawl-delay: 2\nCrawl-delay: 1\n\nUser-agent: PoliteCrawler\nCrawl-delay: 4\n", "PoliteCrawler", 4 * time.Second},
		{"User-agent: PoliteCrawler\ncrawldelay 3\n", "politecrawler", 3 * time.Second},
	}
	for _, tt := range tests {
		if got := ParseRobots([]byte(tt.robots)).CrawlDelay(tt.agent); got != tt.want {
			t.Errorf("CrawlDelay(%q) = %v, want %v in\n%s", tt.agent, got, tt.want, tt.robots)
		}
	}
}

// R5.4: Sitemap lines belong to no group and are all listed, in order.
func TestRobotsSitemaps(t *testing.T) {
	r := ParseRobots([]byte("Sitemap: https://a.example/1.xml\nUser-agent: *\nSitemap: https://a.example/2.xml\nDisallow: /\n" +
		"User-agent: Other\nsite-map: /3.xml\nSitemap\thttps://a.example/4.xml\nSitemap:\nSitemaps: https://a.example/5.xml # comment\n"))
	want := []string{"https://a.example/1.xml", "https://a.example/2.xml", "/3.xml", "https://a.example/4.xml", "https://a.example/5.xml"}
	got := r.Sitemaps()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sitemaps() = %q, want %q", got, want)
	}
	got[0] = "changed"
	if r.Sitemaps()[0] != want[0] {
		t.Error("Sitemaps returns the Robots' own slice")
	}
	if ParseRobots([]byte(robotsSeed002)).Sitemaps()[0] != "http://mysite.com/sitemap.xml.gz" {
		t.Error("seed 002's sitemap missing")
	}
}

// R7.1: the group's other lines (Content-Signal, Content-Usage) are kept for
// the signal reader, from the same records the matcher used.
func TestRobotsGroupRecords(t *testing.T) {
	body := "Content-Signal: ai-train=no\n" +
		"User-agent: *\n" +
		"Content-Signal: search=yes, ai-input=no\n" +
		"Allow: /\n" +
		"Sitemap: https://example.com/s.xml\n" +
		"\n" +
		"User-agent: PoliteCrawler\n" +
		"Content-Usage: /blog/ train-ai=n\n" +
		"Disallow: /private\n" +
		"\n" +
		"User-agent: Other\n" +
		"Content-signal: ai-input=yes\n" +
		"\n" +
		"User-agent: politecrawler\n" +
		"Crawl-delay: 2\n"
	r := ParseRobots([]byte(body))
	want := []robotsRecord{
		{7, keyUserAgent, "PoliteCrawler"},
		{8, "content-usage", "/blog/ train-ai=n"},
		{9, keyDisallow, "/private"},
		// Other and politecrawler share a group: Content-signal does not end
		// a run of User-agent lines.
		{11, keyUserAgent, "Other"},
		{12, "content-signal", "ai-input=yes"},
		{14, keyUserAgent, "politecrawler"},
		{15, keyCrawlDelay, "2"},
	}
	if got := r.groupRecords("PoliteCrawler"); !reflect.DeepEqual(got, want) {
		t.Errorf("groupRecords(PoliteCrawler) = %+v, want %+v", got, want)
	}
	want = []robotsRecord{
		{2, keyUserAgent, "*"},
		{3, "content-signal", "search=yes, ai-input=no"},
		{4, keyAllow, "/"},
	}
	if got := r.groupRecords("SomeBot"); !reflect.DeepEqual(got, want) {
		t.Errorf("groupRecords(SomeBot) = %+v, want %+v", got, want)
	}
	if got := r.records[0]; got != (robotsRecord{1, "content-signal", "ai-train=no"}) {
		t.Errorf("the record before any group is not kept: %+v", got)
	}
	if got := ParseRobots([]byte("User-agent: A\nDisallow: /\n")).groupRecords("B"); got != nil {
		t.Errorf("no group applies, got %+v", got)
	}
}

// R5.2: at most MaxRobotsBytes are parsed, cut at a line end.
func TestRobotsSizeLimit(t *testing.T) {
	head := "User-agent: *\nDisallow: /early\n"
	body := head + strings.Repeat("# padding\n", (MaxRobotsBytes-len(head)-100)/10)
	body += strings.Repeat("#", MaxRobotsBytes-len(body)-len("\nDisallow: /x")) + "\n"
	body += "Disallow: /xyz\nDisallow: /late\n" // the first line crosses the limit after /x
	r := ParseRobots([]byte(body))
	if r.Allowed("PoliteCrawler", "/early") {
		t.Error("a rule within the limit was not read")
	}
	if !r.Allowed("PoliteCrawler", "/late") {
		t.Error("a rule beyond the limit was read")
	}
	if !r.Allowed("PoliteCrawler", "/x") {
		t.Error("the line crossing the limit was read in part")
	}
	// A body cut at exactly the limit (as the fetcher reads it) loses its
	// unfinished last line, not a part of it.
	cut := []byte(body[:MaxRobotsBytes])
	if !ParseRobots(cut).Allowed("PoliteCrawler", "/x") {
		t.Error("the unfinished last line of a cut body was read")
	}
	exact := head + strings.Repeat("#", MaxRobotsBytes-len(head)-len("\nDisallow: /z\n")) + "\nDisallow: /z\n"
	if len(exact) != MaxRobotsBytes || ParseRobots([]byte(exact)).Allowed("PoliteCrawler", "/z") {
		t.Error("a complete line ending at the limit was not read")
	}
}

// Google's GoogleOnly_LineTooLong: a line is read up to 16,663 bytes.
func TestRobotsLongLine(t *testing.T) {
	// Google's test builds a value of this length; the 16,663 bytes kept of
	// "disallow: " + long + "/qux" end just after long's final "/".
	longLen := (maxRobotsLine + 1) - len("/x/") - len("disallow: ") + len("\n")
	long := "/x/" + strings.Repeat("a", longLen-len("/x/"))
	r := ParseRobots([]byte("user-agent: FooBot\ndisallow: " + long + "/qux\n"))
	if !r.Allowed("FooBot", "/fux") {
		t.Error("/fux disallowed")
	}
	if r.Allowed("FooBot", long+"/fux") {
		t.Error("the cut rule does not match")
	}
	longLen = (maxRobotsLine + 1) - len("/x/") - len("allow: ") + len("\n")
	longA := "/x/" + strings.Repeat("a", longLen-len("/x/"))
	longB := "/x/" + strings.Repeat("b", longLen-len("/x/"))
	r = ParseRobots([]byte("user-agent: FooBot\ndisallow: /\nallow: " + longA + "/qux\nallow: " + longB + "/qux\n"))
	if r.Allowed("FooBot", "/") {
		t.Error("/ allowed")
	}
	if !r.Allowed("FooBot", longA+"/qux") || !r.Allowed("FooBot", longB+"/fux") {
		t.Error("the cut allow rules do not match")
	}
}

// The matcher must not backtrack: a pattern with many stars against a long
// path that almost matches is linear work (R5.1, robots notes).
func TestRobotsPathologicalWildcard(t *testing.T) {
	r := ParseRobots([]byte("User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*b\nDisallow: /*a*a*a*a*a*a*a*a*a$\n"))
	path := "/" + strings.Repeat("a", 4096)
	for range 100 {
		if d := r.Decide("PoliteCrawler", path+"c"); !d.Allowed {
			t.Fatalf("matched: %+v", d)
		}
		if r.Allowed("PoliteCrawler", path) {
			t.Fatal("anchored pattern missed")
		}
	}
	// A backtracking matcher needs on the order of 4096^8 steps: the test
	// would not end, which go test's -timeout reports. A linear one takes
	// microseconds (BenchmarkRobotsPathological measures it); the test
	// sets no wall-clock bound of its own.
}

// A 500 KiB file of hostile lines: parse memory stays proportional to the
// input, and matching every rule stays bounded (R5.2, R10.2).
func TestRobotsPathologicalFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for b.Len() < MaxRobotsBytes+1000 {
		b.WriteString("Disallow: /*a*a*a*a*a*a*a*a*b\nc:\n")
	}
	body := []byte(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := ParseRobots(body)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 40*MaxRobotsBytes {
		t.Errorf("parsing %d bytes allocated %d bytes", len(body), alloc)
	}
	// A backtracking matcher would not end here (go test's -timeout).
	if !r.Allowed("PoliteCrawler", "/"+strings.Repeat("a", 4096)) {
		t.Error("matched")
	}
	// Many tiny lines: records only for the lines that hold a key.
	tiny := ParseRobots([]byte(strings.Repeat("\n", MaxRobotsBytes)))
	if len(tiny.records) != 0 {
		t.Errorf("%d records from empty lines", len(tiny.records))
	}
}

// A Robots is read-only after ParseRobots: safe from many goroutines (run
// with -race).
func TestRobotsConcurrentUse(t *testing.T) {
	r := ParseRobots([]byte(robotsRFCSimple + "Sitemap: /s.xml\nUser-agent: *\nCrawl-delay: 1\n"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				url := fmt.Sprintf("/example/%d/%d.gif", i, j)
				if r.Allowed("PoliteCrawler", url) || r.CrawlDelay("x") != time.Second || len(r.Sitemaps()) != 1 {
					t.Error("wrong answer under concurrency")
					return
				}
				_ = r.groupRecords("foobot")
			}
		}()
	}
	wg.Wait()
}

// robotsSeedFiles are our own robots.txt samples in testdata/robots.
func robotsSeedFiles(tb testing.TB) map[string][]byte {
	tb.Helper()
	names, err := filepath.Glob("testdata/robots/*.txt")
	if err != nil || len(names) == 0 {
		tb.Fatalf("no testdata/robots/*.txt: %v", err)
	}
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(n)] = b
	}
	return out
}

// The samples in testdata/robots say what their comments and names promise.
func TestRobotsSeedFiles(t *testing.T) {
	files := robotsSeedFiles(t)
	seed := ParseRobots(files["seed002.txt"])
	for _, c := range robotsConformance {
		if strings.HasPrefix(c.source, "seed 002") && c.robots == robotsSeed002 {
			if got := seed.Allowed(c.agent, c.url); got != c.want {
				t.Errorf("seed002.txt: %s %s: %v", c.agent, c.url, got)
			}
		}
	}
	rfc := ParseRobots(files["rfc9309-simple.txt"])
	if rfc.Allowed("x", "/a.gif") || !rfc.Allowed("quxbot", "/example/") {
		t.Error("rfc9309-simple.txt misread")
	}
	sig := ParseRobots(files["signals.txt"])
	if d := sig.Decide("PoliteCrawler", "/docs/index.html"); !d.Allowed || d.Line != 13 {
		t.Errorf("signals.txt: %+v", d)
	}
	if !sig.Allowed("PoliteCrawler", "/docs/") || sig.Allowed("PoliteCrawler", "/docs/a") || sig.CrawlDelay("PoliteCrawler") != 2*time.Second {
		t.Error("signals.txt: PoliteCrawler's group misread")
	}
	if sig.CrawlDelay("other") != 500*time.Millisecond || sig.Allowed("other", "/private/x") || !sig.Allowed("other", "/private/press/x") {
		t.Error("signals.txt: the * group misread")
	}
	q := ParseRobots(files["quirks.txt"])
	for _, tt := range []struct {
		agent, url string
		want       bool
	}{
		{"Typo", "/a", false}, {"typo", "/b", false}, {"Spaced", "/c~", false}, {"Spaced", "/d", false},
		{"Spaced", "/caf%C3%A9", true}, {"Spaced", "/ツ", false}, {"other", "/x", false}, {"other", "/", true},
	} {
		if got := q.Allowed(tt.agent, tt.url); got != tt.want {
			t.Errorf("quirks.txt: %s %s: allowed = %v", tt.agent, tt.url, got)
		}
	}
	if q.CrawlDelay("Typo") != 0 || !reflect.DeepEqual(q.Sitemaps(), []string{"/s.xml"}) {
		t.Error("quirks.txt: Crawl-delay or Sitemap misread")
	}
	p := ParseRobots(files["pathological.txt"])
	if !p.Allowed("x", "/"+strings.Repeat("a", 3000)) || p.Allowed("x", "/"+strings.Repeat("a", 10)+"b") {
		t.Error("pathological.txt misread")
	}
}

// FuzzParseRobots: no input makes the parser or the matcher panic, and the
// answers hang together (R5.1). Seeds: testdata/robots, the conformance
// table, and about 200 files of the shared corpus when it is there (its
// files are third-party content and are not copied into the repository).
func FuzzParseRobots(f *testing.F) {
	for _, b := range robotsSeedFiles(f) {
		f.Add(b, "PoliteCrawler", "/private/x?y=1")
	}
	for i, c := range robotsConformance {
		if i%4 == 0 {
			f.Add([]byte(c.robots), c.agent, c.url)
		}
	}
	if entries, err := os.ReadDir(robotsCorpusDir); err == nil {
		for i, e := range entries {
			if i%20 != 0 || e.IsDir() {
				continue
			}
			if b, err := os.ReadFile(filepath.Join(robotsCorpusDir, e.Name())); err == nil && len(b) <= 32<<10 {
				f.Add(b, "Googlebot", "https://example.com/search?q=1")
			}
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, agent, url string) {
		r := ParseRobots(body)
		d := r.Decide(agent, url)
		if r.Allowed(agent, url) != d.Allowed {
			t.Fatal("Allowed and Decide disagree")
		}
		switch d.Rule {
		case "":
			if !d.Allowed || d.Line != 0 || d.Pattern != "" {
				t.Fatalf("no rule, yet %+v", d)
			}
		case keyAllow, keyDisallow:
			if d.Allowed != (d.Rule == keyAllow) || d.Line <= 0 || d.Group == nil {
				t.Fatalf("inconsistent decision %+v", d)
			}
			found := false
			for _, rec := range r.records {
				found = found || rec.line == d.Line && rec.key == d.Rule && rec.value == d.Pattern
			}
			if !found {
				t.Fatalf("decision names no record: %+v", d)
			}
		default:
			t.Fatalf("rule %q", d.Rule)
		}
		if !r.Allowed(agent, "/robots.txt") {
			t.Fatal("/robots.txt disallowed")
		}
		if cd := r.CrawlDelay(agent); cd < 0 {
			t.Fatalf("negative Crawl-delay %v", cd)
		}
		for _, s := range r.Sitemaps() {
			if s == "" {
				t.Fatal("empty sitemap")
			}
		}
		last := 0
		for _, rec := range r.groupRecords(agent) {
			if rec.line <= last || rec.key != strings.ToLower(rec.key) || rec.key == keySitemap {
				t.Fatalf("group records out of order or unnormalised: %+v", rec)
			}
			last = rec.line
		}
		// Canonical form is canonical, and the matcher agrees with a regular
		// expression (linear in Go) on every rule of the group that applied.
		path, _ := requestPath(url)
		if again := robotsCanonical(path, true); again != path {
			t.Fatalf("path of %q not canonical: %q → %q", url, path, again)
		}
		checked := 0
		for _, gi := range r.groupsFor(agent) {
			for _, rule := range r.groups[gi].rules {
				if checked++; checked > 50 {
					break
				}
				if c := robotsCanonical(rule.pattern, false); c != rule.pattern {
					t.Fatalf("pattern %q not canonical: %q", rule.pattern, c)
				}
				if rule.pattern == "" {
					continue
				}
				re := regexp.QuoteMeta(rule.pattern)
				re = strings.ReplaceAll(re, `\*`, `.*`)
				if strings.HasSuffix(re, `\$`) {
					re = strings.TrimSuffix(re, `\$`) + `$`
				}
				want := regexp.MustCompile(`^(?s:` + re + `)`).MatchString(path)
				if got := patternMatches(rule.pattern, path); got != want {
					t.Fatalf("patternMatches(%q, %q) = %v, regexp says %v", rule.pattern, path, got, want)
				}
			}
		}
	})
}
