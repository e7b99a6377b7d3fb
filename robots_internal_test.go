package polite

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// robotsSample is one of the robots.txt samples kept beside the parser, in
// internal/robotstxt/testdata/robots.
func robotsSample(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("internal", "robotstxt", "testdata", "robots", name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// R5.4: a disallowed URL's error names the rule; Decide carries it.
func TestRobotsDecision(t *testing.T) {
	r := ParseRobots([]byte(robotsSample(t, "seed002.txt") + "User-agent: PoliteCrawler\nUser-agent: politecrawler/2\nuser-agent: Other\nDISALLOW: /p*\n\nUser-agent: PoliteCrawler\nallow: /pub\n"))
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
	if !r.Allowed("PoliteCrawler", "/x") || r.CrawlDelay("PoliteCrawler") != 0 || r.Sitemaps() != nil || r.file().Group("x") != nil {
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
	if ParseRobots([]byte(robotsSample(t, "seed002.txt"))).Sitemaps()[0] != "http://mysite.com/sitemap.xml.gz" {
		t.Error("seed 002's sitemap missing")
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
	// microseconds (BenchmarkPathological in internal/robotstxt measures
	// it); the test sets no wall-clock bound of its own.
}

// A Robots is read-only after ParseRobots: safe from many goroutines (run
// with -race).
func TestRobotsConcurrentUse(t *testing.T) {
	r := ParseRobots([]byte(robotsSample(t, "rfc9309-simple.txt") + "Sitemap: /s.xml\nUser-agent: *\nCrawl-delay: 1\n"))
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
				_ = r.file().Group("foobot")
			}
		}()
	}
	wg.Wait()
}
