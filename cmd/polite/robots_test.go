package main

import (
	"os"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
)

// The textbook's example file (seed 002), checked as a person would read it.
func TestReportSeed002(t *testing.T) {
	body, err := os.ReadFile("../../internal/robotstxt/testdata/robots/seed002.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	report(&out, polite.ParseRobots(body), "PoliteCrawler", []string{
		"https://mysite.com/private/a.html",
		"/other/public/c.html",
		"/otherwise.html",
		"/robots.txt",
	})
	want := "group: User-agent: *\n" +
		"crawl-delay: none\n" +
		"sitemaps: http://mysite.com/sitemap.xml.gz\n" +
		"https://mysite.com/private/a.html: disallowed (line 2: Disallow: /private/)\n" +
		"/other/public/c.html: allowed (line 5: Allow: /other/public/)\n" +
		"/otherwise.html: allowed (no rule matched)\n" +
		"/robots.txt: allowed (no rule matched)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestReportOwnGroupAndDelay(t *testing.T) {
	r := polite.ParseRobots([]byte("User-agent: *\nDisallow: /\n\nUser-agent: FavoredCrawler\nUser-agent: favoredcrawler/2\nCrawl-delay: 0.5\nDisallow: /tmp\n"))
	var out strings.Builder
	report(&out, r, "FavoredCrawler", []string{"/tmp/x", "/"})
	want := "group: User-agent: FavoredCrawler, favoredcrawler/2\n" +
		"crawl-delay: 500ms\n" +
		"sitemaps: none\n" +
		"/tmp/x: disallowed (line 7: Disallow: /tmp)\n" +
		"/: allowed (no rule matched)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	report(&out, polite.ParseRobots([]byte("User-agent: Other\nDisallow: /\n")), "PoliteCrawler", []string{"/x"})
	if !strings.HasPrefix(out.String(), "group: none applies, so no rules\ncrawl-delay: none\nsitemaps: none\n/x: allowed") {
		t.Errorf("no group:\n%s", out.String())
	}
}
