package polite_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/politecrawler/polite"
)

// A Fetcher is a queue in and a queue out: Add URLs, read one Result per
// URL with Next, Close at the end.
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
	for f.Pending() > 0 {
		r, err := f.Next(ctx)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.Status, string(r.Body), "rest:", r.Rest)
	}
	// Output: 200 <p>hello from /hello</p> rest: 3s (floor)
}

// The identity a site owner sees. With no name given, the default; with a
// contact, the address goes in the User-Agent and in the From header.
func ExampleUserAgent() {
	fmt.Println(polite.UserAgent{})
	ua := polite.UserAgent{Name: "acme-indexer", Version: "2.1", InfoURL: "https://acme.example/bot", Contact: "bot@acme.example"}
	fmt.Println(ua)
	fmt.Println(polite.UserAgent{Name: "Googlebot", InfoURL: "https://acme.example/bot"}.Validate())
	// Output:
	// PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)
	// acme-indexer/2.1 (+https://acme.example/bot; bot@acme.example)
	// polite: user agent name pretends to be a browser or another bot: name "Googlebot" contains "googlebot"
}

// Add turns away what can never be fetched; everything it accepts comes
// back through Next, errors included.
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
	// http://169.254.169.254/latest/meta-data/: polite: address not allowed: 169.254.169.254 is not a public address
}

// A small site crawler: the Fetcher does the politeness (one request at a
// time per server, the rests, robots.txt, refusals, traps); the crawler
// only chooses which links to follow. examples/crawl is the full program.
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
	for f.Pending() > 0 {
		r, err := f.Next(ctx)
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
