package polite_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/politecrawler/polite"
)

// A robots.txt read as RFC 9309 reads it: the group of the crawler's
// product token, the longest matching rule, Allow on a tie. Only the
// first MaxRobotsBytes (500 KiB) of a file are read.
func ExampleParseRobots() {
	rules := polite.ParseRobots([]byte(`User-agent: *
Disallow: /private
Allow: /private/press
Crawl-delay: 5
Sitemap: https://example.org/sitemap.xml
`))
	for _, u := range []string{"https://example.org/", "https://example.org/private/x", "/private/press/2026"} {
		fmt.Println(u, rules.Allowed("acme-indexer", u))
	}
	fmt.Println(rules.CrawlDelay("acme-indexer"), rules.Sitemaps(), polite.MaxRobotsBytes)
	// Output:
	// https://example.org/ true
	// https://example.org/private/x false
	// /private/press/2026 true
	// 5s [https://example.org/sitemap.xml] 512000
}

// Decide says why: the rule, its line and the group it came from.
func ExampleRobots_Decide() {
	rules := polite.ParseRobots([]byte("User-agent: acme-indexer\nDisallow: /drafts/\n\nUser-agent: *\nDisallow: /\n"))
	d := rules.Decide("acme-indexer", "/drafts/plan.html")
	fmt.Println(d.Allowed, d.Rule, d.Pattern, "line", d.Line, d.Group)
	// Output: false disallow /drafts/ line 2 [acme-indexer]
}

// What a response means to a polite fetcher (R3.5), and so what it does
// next: keep a page, wait for the server, or stop asking the host.
func ExampleClassify() {
	for _, c := range []struct {
		status int
		header http.Header
		body   string
	}{
		{200, http.Header{"Content-Type": {"text/html"}}, "<p>an article</p>"},
		{429, http.Header{"Retry-After": {"120"}}, ""},
		{403, http.Header{"Cf-Mitigated": {"challenge"}}, "<title>Just a moment...</title>"},
	} {
		v := polite.Classify(c.status, c.header, []byte(c.body))
		fmt.Printf("%d: %s, retry after %v, challenge %v\n", c.status, v.Kind, v.RetryAfter, v.Challenge)
		fmt.Println("  ", v.Kind.Meaning())
	}
	// Output:
	// 200: ok, retry after 0s, challenge false
	//    content: the page is kept
	// 429: rate-limited, retry after 2m0s, challenge false
	//    the host limits the rate: the next request waits for Retry-After, or for a growing backoff with jitter
	// 403: refused, retry after 0s, challenge true
	//    the host refuses the crawler: it is stopped for the run, and nothing more is asked of it
}

// Retry-After in seconds or as an HTTP date, read against the response's
// Date; a date in the past or a malformed value asks for no wait (R2.4).
func ExampleParseRetryAfter() {
	date := "Wed, 02 Dec 2026 10:00:00 GMT"
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for _, v := range []string{"90", "Wed, 02 Dec 2026 10:05:00 GMT", "Tue, 01 Dec 2026 10:00:00 GMT", "soon"} {
		wait, ok := polite.ParseRetryAfter(v, date, now)
		fmt.Println(v+":", wait, ok)
	}
	// Output:
	// 90: 1m30s true
	// Wed, 02 Dec 2026 10:05:00 GMT: 5m0s true
	// Tue, 01 Dec 2026 10:00:00 GMT: 0s false
	// soon: 0s false
}
