package polite_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"strings"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// farmOf starts a loopback farm serving sites, for the examples: the
// fetcher reaches it through the farm's Resolver, with private networks
// allowed since the farm is on loopback.
func farmOf(sites ...politetest.Site) (*politetest.Farm, polite.Config) {
	farm := politetest.New(nil)
	for _, s := range sites {
		if _, err := farm.AddSite(s); err != nil {
			log.Fatal(err)
		}
	}
	return farm, polite.Config{Resolver: farm.Resolver(), AllowPrivateNetworks: true}
}

// fetch starts a Fetcher for cfg and Adds urls.
func fetch(cfg polite.Config, urls ...string) *polite.Fetcher {
	f, err := polite.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range urls {
		if err := f.Add(context.Background(), u); err != nil {
			log.Fatal(err)
		}
	}
	return f
}

// hostOf is the host name of a URL.
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		log.Fatal(err)
	}
	return p.Hostname()
}

// readAll reads every Result, failing on the loop's own error (ctx's end).
func readAll(f *polite.Fetcher) []*polite.Result {
	var out []*polite.Result
	for r, err := range f.Results(context.Background()) {
		if err != nil {
			log.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// Config.OnRequest sees every request as it ends, robots.txt first (R5.1),
// with the rest it imposes on its server address (R2). Fetcher.Robots
// gives the rules the fetcher read.
func ExampleRequestEvent() {
	farm, cfg := farmOf(politetest.Site{Name: "news.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /drafts/\nCrawl-delay: 4\n"),
	}})
	defer farm.Close()
	cfg.OnRequest = func(q polite.RequestEvent) {
		fmt.Println(strings.TrimPrefix(q.URL, farm.URL("news.test", "")), q.Status, "robots:", q.Robots, "rest:", q.Rest)
	}
	f := fetch(cfg, farm.URL("news.test", "/today"), farm.URL("news.test", "/drafts/tomorrow"))
	defer f.Close()
	for _, r := range readAll(f) {
		fmt.Println(strings.TrimPrefix(r.URL, farm.URL("news.test", "")), errors.Is(r.Err, polite.ErrDisallowed))
	}
	rules, ok := f.Robots(farm.URL("news.test", "/"))
	fmt.Println(ok, rules.CrawlDelay(f.UserAgent()))
	// Unordered output:
	// /robots.txt 200 robots: true rest: 4s (crawl-delay)
	// /today 200 robots: false rest: 4s (crawl-delay)
	// /drafts/tomorrow true
	// /today false
	// true 4s
}

// A Store makes the second run's requests conditional (R6): the page
// unchanged since the stored copy comes back NotModified, with the stored
// body, and robots.txt, fresh in the store, is not asked again (R5.3).
func ExampleNewMemoryStore() {
	farm, cfg := farmOf(politetest.Site{Name: "blog.test", Pages: map[string]politetest.Page{
		"/post": {ETag: `"v1"`, Body: []byte("<p>a post</p>")},
	}})
	defer farm.Close()
	store := polite.NewMemoryStore()
	defer store.Close()
	cfg.Store = store
	u := farm.URL("blog.test", "/post")
	for run := 1; run <= 2; run++ {
		f := fetch(cfg, u)
		for _, r := range readAll(f) {
			fmt.Printf("run %d: %d not-modified=%v %s\n", run, r.Status, r.NotModified, r.Body)
		}
		f.Close()
	}
	history, _ := store.PageHistory(u)
	fmt.Println(len(history), "version kept;", len(farm.Audit().VisitsTo("blog.test")), "requests in all")
	// Output:
	// run 1: 200 not-modified=false <p>a post</p>
	// run 2: 200 not-modified=true <p>a post</p>
	// 1 version kept; 3 requests in all
}

// Stats counts what the run met: here a host that refuses with 403 is
// stopped (R3.1), a calendar URL is dropped as a trap (R9) without a
// request, and a page is fetched. Each host was asked for its robots.txt
// first (a 403 there allows everything, RFC 9309 2.3.1.3).
func ExampleFetcher_Stats() {
	farm, cfg := farmOf(
		politetest.Site{Name: "open.test"},
		politetest.Site{Name: "closed.test", Default: func(string) politetest.Page { return politetest.Page{Status: http.StatusForbidden} }},
	)
	defer farm.Close()
	f := fetch(cfg, farm.URL("open.test", "/"), farm.URL("open.test", "/calendar/1492/10/12"), farm.URL("closed.test", "/"))
	defer f.Close()
	readAll(f)
	st, err := f.Stats(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("requests:", st.Requests, "stopped:", st.Stopped)
	fmt.Println("refused:", st.Refusals[polite.StopRefused], "calendar traps:", st.Traps[polite.TrapCalendar])
	// Output:
	// requests: 4 stopped: 1
	// refused: 1 calendar traps: 1
}

// Shutdown lets the request in flight finish and answers what waits with
// ErrClosed; Close would cancel the request too.
func ExampleFetcher_Shutdown() {
	farm, cfg := farmOf(politetest.Site{Name: "big.test"})
	defer farm.Close()
	f := fetch(cfg, farm.URL("big.test", "/1"), farm.URL("big.test", "/2"), farm.URL("big.test", "/3"))
	ctx := context.Background()
	first, err := f.Next(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.TrimPrefix(first.URL, farm.URL("big.test", "")), first.Status)
	if err := f.Shutdown(ctx); err != nil {
		log.Fatal(err)
	}
	for {
		r, err := f.Next(ctx)
		if err != nil {
			fmt.Println(err) // io.EOF: every Result was read
			break
		}
		fmt.Println(strings.TrimPrefix(r.URL, farm.URL("big.test", "")), errors.Is(r.Err, polite.ErrClosed))
	}
	// Output:
	// /1 200
	// /2 true
	// /3 true
	// EOF
}

// A site's content signals decide whether a page's text may reach an AI
// model answering a question now (R7.2): here Content-Signal says
// ai-input=no, so TextForAI refuses while the page itself is kept.
func ExampleResult_TextForAI() {
	farm, cfg := farmOf(
		politetest.Site{Name: "open.test", Pages: map[string]politetest.Page{"/": {Body: []byte("<p>read me</p>")}}},
		politetest.Site{Name: "closed.test", Pages: map[string]politetest.Page{
			"/": {Body: []byte("<p>not for AI</p>"), Header: http.Header{"Content-Signal": {"search=yes, ai-input=no"}}},
		}},
	)
	defer farm.Close()
	f := fetch(cfg, farm.URL("open.test", "/"), farm.URL("closed.test", "/"))
	defer f.Close()
	for _, r := range readAll(f) {
		text, err := r.TextForAI()
		allowed, because := r.Signals.AIInput()
		fmt.Printf("%s: %q %v; allowed %v", hostOf(r.URL), text, errors.Is(err, polite.ErrAIInputRefused), allowed)
		if because != nil {
			fmt.Printf(" (%s)", because)
		}
		fmt.Println()
	}
	// Unordered output:
	// open.test: "read me" false; allowed true
	// closed.test: "" true; allowed false (ai-input=no (header Content-Signal))
}

// Fetch waits for one URL's Result, under the same rules as Add: here
// robots.txt first, then the page. Its Result comes back to the caller
// alone, not through Results.
func ExampleFetcher_Fetch() {
	farm, cfg := farmOf(politetest.Site{Name: "docs.test"})
	defer farm.Close()
	f := fetch(cfg)
	defer f.Close()
	r, err := f.Fetch(context.Background(), farm.URL("docs.test", "/guide"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Status, r.Err, f.Pending())
	for _, v := range farm.Audit().Visits() {
		fmt.Println(v.Path)
	}
	// Output:
	// 200 <nil> 0
	// /robots.txt
	// /guide
}

// FetchRobots reads a site's robots.txt as the fetcher would before its
// first page, and asks no page: here to check paths against it.
func ExampleFetcher_FetchRobots() {
	farm, cfg := farmOf(politetest.Site{Name: "docs.example", Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /drafts/\nCrawl-delay: 5\nContent-Signal: ai-input=no\n"),
	}})
	defer farm.Close()
	f, err := polite.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	rules, err := f.FetchRobots(context.Background(), farm.URL("docs.example", "/"))
	if err != nil {
		log.Fatal(err)
	}
	for _, path := range []string{"/guide", "/drafts/next"} {
		d := rules.Decide(polite.DefaultName, path)
		fmt.Printf("%s allowed=%v line=%d pattern=%q\n", path, d.Allowed, d.Line, d.Pattern)
	}
	fmt.Println("crawl-delay", rules.CrawlDelay(polite.DefaultName))
	ok, because := rules.Signals(polite.DefaultName, "/guide").AIInput()
	fmt.Println("ai-input allowed:", ok, "because", because)
	fmt.Println("requests:", farm.Audit().Count("docs.example"))
	// Output:
	// /guide allowed=true line=0 pattern=""
	// /drafts/next allowed=false line=2 pattern="/drafts/"
	// crawl-delay 5s
	// ai-input allowed: false because ai-input=no (robots.txt line 4)
	// requests: 1
}
