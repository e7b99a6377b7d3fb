package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"time"

	"github.com/politecrawler/polite/politetest"
)

// buildDemo adds the demo's sites to fm and returns their home pages:
//
//   - traps.test, whose links lead into every common crawler trap, each
//     on a host of its own (R9);
//   - news.test, whose robots.txt lists a sitemap index with a gzipped
//     child sitemap, and refuses AI input with a Content-Signal (R7);
//   - slow.test, which takes 0.8 s an answer: its rest is 5 × that (R2.2);
//   - careful.test, which asks for a Crawl-delay of 5 s (R2.3);
//   - blog.shared.test and shop.shared.test, two names on one address:
//     one budget, one request at a time between them (R1.1);
//   - closed.news.test, which answers 403: refused, stopped, logged
//     (R3). It is no seed: news.test's home page links to it.
func buildDemo(fm *politetest.Farm) ([]string, error) {
	traps, err := fm.AddTrapSite()
	if err != nil {
		return nil, err
	}
	shared, err := fm.NewAddr()
	if err != nil {
		return nil, err
	}
	news, err := newsSites(fm)
	if err != nil {
		return nil, err
	}
	for _, s := range news[1:] { // no seeds: reached by links
		if _, err := fm.AddSite(s); err != nil {
			return nil, err
		}
	}
	sites := []politetest.Site{
		news[0],
		{Name: "slow.test", Latency: 800 * time.Millisecond},
		{Name: "careful.test", Pages: map[string]politetest.Page{
			politetest.RobotsPath: politetest.Robots("User-agent: *\nCrawl-delay: 5\n"),
		}},
		{Name: "blog.shared.test", Addr: shared},
		{Name: "shop.shared.test", Addr: shared},
	}
	seeds := []string{traps}
	for _, s := range sites {
		if _, err := fm.AddSite(s); err != nil {
			return nil, err
		}
		seeds = append(seeds, fm.URL(s.Name, "/"))
	}
	return seeds, nil
}

// newsSites are news.test, with a sitemap index in robots.txt whose child
// sitemap is gzipped and lists pages no link leads to, and the site its
// home page links to, closed.news.test.
func newsSites(fm *politetest.Farm) ([]politetest.Site, error) {
	const name = "news.test"
	addr, err := fm.NewAddr()
	if err != nil {
		return nil, err
	}
	// A site's sitemaps name its pages as the site knows them: here with
	// the port the farm serves news.test on.
	site := fmt.Sprintf("http://%s:%d", name, fm.Port(addr))
	closed, err := fm.NewAddr()
	if err != nil {
		return nil, err
	}
	var posts bytes.Buffer
	posts.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&posts, "<url><loc>%s/posts/%d</loc></url>\n", site, i)
	}
	posts.WriteString("</urlset>\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(posts.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	index := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>%s/sitemap-posts.xml.gz</loc></sitemap>
</sitemapindex>
`, site)
	robots := fmt.Sprintf("User-agent: *\nContent-Signal: search=yes, ai-input=no\nAllow: /\n\nSitemap: %s/sitemap_index.xml\n", site)
	closedSite := politetest.Site{Name: "closed.news.test", Addr: closed, Pages: map[string]politetest.Page{"/": {Status: 403}}}
	return []politetest.Site{{Name: name, Addr: addr, Pages: map[string]politetest.Page{
		politetest.RobotsPath:   politetest.Robots(robots),
		"/sitemap_index.xml":    {Body: []byte(index), Header: http.Header{"Content-Type": {"application/xml"}}},
		"/sitemap-posts.xml.gz": {Body: gz.Bytes(), Header: http.Header{"Content-Type": {"application/gzip"}}},
		"/posts/1":              {Body: []byte(`<!doctype html><title>Post 1</title><h1>Post 1</h1><a href="/">home</a>`)},
		"/":                     {Body: []byte(fmt.Sprintf(`<!doctype html><title>News</title><h1>News</h1><a href="/posts/1">post 1</a> <a href="http://closed.news.test:%d/">closed</a>`, fm.Port(closed)))},
	}}, closedSite}, nil
}
