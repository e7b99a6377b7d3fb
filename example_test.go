package polite_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/politecrawler/polite"
)

// A Fetcher is a queue in and a queue out: Add URLs, range over Results
// for one Result per URL, Close at the end.
func Example() {
	// A site on loopback stands in for the web. Loopback is a private
	// address, so this one run allows private networks; a crawler of the
	// public web leaves AllowPrivateNetworks off.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<p>hello from %s</p>", r.URL.Path)
	}))
	defer site.Close()

	f, err := polite.New(polite.Config{
		Name:                 "example-reader",
		Version:              "1.0",
		InfoURL:              "https://example.org/about-our-crawler",
		AllowPrivateNetworks: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	ctx := context.Background()
	if err := f.Add(ctx, site.URL+"/hello"); err != nil {
		log.Fatal(err)
	}
	for r, err := range f.Results(ctx) {
		if err != nil {
			log.Fatal(err) // ctx ended
		}
		fmt.Println(r.Status, string(r.Body), "rest:", r.Rest)
	}
	// Output: 200 <p>hello from /hello</p> rest: 3s (floor)
}

// The identity a site owner sees, said once, in Config. With no name
// given, the default; with a contact, the address goes in the User-Agent
// and in the From header. A name that borrows another's is refused.
func ExampleFetcher_UserAgent() {
	for _, cfg := range []polite.Config{
		{},
		{Name: "acme-indexer", Version: "2.1", InfoURL: "https://acme.example/bot", Contact: "bot@acme.example"},
		{Name: "Googlebot", InfoURL: "https://acme.example/bot"},
	} {
		f, err := polite.New(cfg)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(f.UserAgent())
		f.Close()
	}
	// Output:
	// PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)
	// acme-indexer/2.1 (+https://acme.example/bot; bot@acme.example)
	// polite: user agent name pretends to be a browser or another bot: name "Googlebot" contains "googlebot"
}

// Add turns away what can never be fetched; everything it accepts comes
// back through Results (or Next), errors included.
func ExampleFetcher_Add() {
	f, err := polite.New(polite.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	fmt.Println(f.Add(ctx, "ftp://example.org/file"))
	fmt.Println(f.Add(ctx, "http://169.254.169.254/latest/meta-data/"))
	// Output:
	// polite: unsupported URL scheme: "ftp" in "ftp://example.org/file": only http and https
	// polite: http://169.254.169.254/latest/meta-data/: address not allowed: 169.254.169.254 is not a public address
}

// A small site crawler: the Fetcher does the politeness (one request at a
// time per server, the rests, robots.txt, refusals, traps); the crawler
// only chooses which links to follow. cmd/polite's crawl is the full program.
func ExampleResult_Links() {
	f, err := polite.New(polite.Config{
		Name:    "example-crawler",
		Version: "1.0",
		InfoURL: "https://example.org/about-our-crawler",
	})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	seed, _ := url.Parse("https://example.org/")
	added := map[string]bool{}
	add := func(u string) {
		p, err := url.Parse(u)
		if err != nil || p.Host != seed.Host || added[u] || len(added) >= 100 {
			return // stay on the site, add each link once, stop at 100
		}
		if f.Add(ctx, u) == nil {
			added[u] = true
		}
	}
	add(seed.String())
	for r, err := range f.Results(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		if r.Err != nil {
			log.Printf("%s: %v", r.URL, r.Err) // disallowed, refused, a trap…
			continue
		}
		for _, l := range r.Links() {
			if !l.NoFollow {
				add(l.URL)
			}
		}
	}
}

// Results is the loop to read a Fetcher with. A Result counts as pending
// until the body that received it returns, so the links a crawler Adds
// from the body extend the loop, and it ends by itself when the site has
// nothing new. Each Result is for one URL; the loop's own error is only
// ctx's end.
func ExampleFetcher_Results() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<p><a href="/about">about</a> <a href="/">home</a></p>`)
		case "/about":
			fmt.Fprint(w, `<p><a href="/">home</a></p>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	f, err := polite.New(polite.Config{
		Name:                 "example-crawler",
		Version:              "1.0",
		InfoURL:              "https://example.org/about-our-crawler",
		AllowPrivateNetworks: true, // the site is on loopback
	})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	ctx := context.Background()
	added := map[string]bool{}
	add := func(u string) {
		if !added[u] && f.Add(ctx, u) == nil {
			added[u] = true
		}
	}
	add(site.URL + "/")
	for r, err := range f.Results(ctx) {
		if err != nil {
			log.Fatal(err) // ctx ended; the URLs still pending stay pending
		}
		fmt.Println(r.Status, strings.TrimPrefix(r.URL, site.URL), r.Err)
		for _, l := range r.Links() {
			add(l.URL) // the loop goes on for these
		}
	}
	fmt.Println("pending:", f.Pending())
	// Output:
	// 200 / <nil>
	// 200 /about <nil>
	// pending: 0
}
