package polite_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
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

// A Config names the crawler and may make it more polite; no field makes
// it less. New refuses a name that is malformed or borrows another's.
func ExampleNew() {
	for _, cfg := range []polite.Config{
		{Name: "acme-indexer"}, // a custom name needs a page saying who runs it
		{Name: "Mozilla", InfoURL: "https://acme.example/bot"},
	} {
		_, err := polite.New(cfg)
		fmt.Println(errors.Is(err, polite.ErrUserAgent), errors.Is(err, polite.ErrImpersonation), errors.Is(err, polite.ErrConfig))
	}
	// Output:
	// true false false
	// false true false
}

// The fields that make a fetcher more polite than the rules, or say what
// it is allowed beyond them. Config.Store keeps pages across runs; APIs
// and Unrestricted name hosts whose robots.txt is not read, and why (R5.5,
// R5.6).
func ExampleConfig() {
	store := polite.NewMemoryStore()
	defer store.Close()
	f, err := polite.New(polite.Config{
		Name:           "acme-indexer",
		Version:        "1.0",
		InfoURL:        "https://acme.example/crawler",
		Store:          store,
		CoolOff:        2 * polite.DefaultCoolOff, // a refusing host is left alone 12 h, then 24 h…
		MinRest:        10 * time.Second,          // above the 3 s floor; below it, raised and logged
		DurationFactor: 10,                        // rest 10× the last request's duration
		MaxBodyBytes:   1 << 20,
		Types:          []string{"application/pdf"}, // read PDFs as well as pages
		APIs:           []polite.API{{Host: "api.acme.example", Terms: "https://acme.example/api-terms", Rate: 2}},
		Unrestricted:   polite.Unrestricted{Hosts: []string{"intranet.acme.example"}, Reason: "our own site"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
}

// What a Result's error says, read with errors.As (or errors.AsType) for
// the typed errors and errors.Is for the others: every
// accepted URL gets exactly one Result, a page or the reason there is none
// (R11.1).
func ExampleResult_errors() {
	explain := func(r *polite.Result) string {
		var (
			refusal   *polite.RefusalError
			stopped   *polite.StoppedError
			parked    *polite.ParkedError
			trap      *polite.TrapError
			robots    *polite.DisallowedError
			mediaType *polite.ContentTypeError
		)
		switch err := r.Err; {
		case err == nil:
			var hops []polite.Hop = r.Redirects
			var links []polite.Link = r.Links()
			_, err := r.TextForAI()
			if refused, ok := errors.AsType[*polite.AIInputRefusedError](err); ok {
				return "a page whose text the site keeps from AI input: " + refused.Signal.String()
			}
			return fmt.Sprintf("a page, after %d redirects, with %d links", len(hops), len(links))
		case errors.As(err, &robots):
			return "disallowed by robots.txt line " + fmt.Sprint(robots.Decision.Line)
		case errors.As(err, &refusal):
			return "refused, on " + refusal.Verdict.Evidence
		case errors.As(err, &stopped) && errors.Is(err, polite.ErrCoolingOff):
			return stopped.Host + " is cooling off after an earlier stop"
		case errors.As(err, &stopped):
			return stopped.Host + " was stopped: " + stopped.Cause.Error()
		case errors.As(err, &parked):
			return "the server asked to wait until " + parked.Until.String()
		case errors.As(err, &trap):
			var kind polite.TrapKind = trap.Kind
			return "a " + string(kind) + " trap"
		case errors.As(err, &mediaType):
			return "a type not read: " + mediaType.Type
		case errors.Is(err, polite.ErrCertificate):
			return "a certificate that does not verify"
		case errors.Is(err, polite.ErrClosed):
			return "the fetcher was closed first"
		}
		return r.Err.Error() // a network failure, a body cut short…
	}
	_ = explain
	// Add refuses a URL already added, in any spelling that normalises
	// the same: no Result comes for it.
	_ = polite.ErrDuplicate
}

// OpenStore keeps pages, robots.txt copies, refusals and host records in
// one file across runs; a second open of the same file is refused while
// the first holds it.
func ExampleOpenStore() {
	dir, err := os.MkdirTemp("", "polite-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "crawl.db")
	store, err := polite.OpenStore(path)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for _, body := range []string{"<p>v1</p>", "<p>v2</p>"} {
		if err := store.SavePage(polite.StoredPage{URL: "https://example.org/", Status: 200, Body: []byte(body), Fetched: at}); err != nil {
			log.Fatal(err)
		}
	}
	if err := store.SaveHost(polite.HostRecord{Host: "refusing.example", Stops: 1, CoolOffUntil: at.Add(polite.DefaultCoolOff)}); err != nil {
		log.Fatal(err)
	}
	robots := polite.StoredRobots{Origin: "https://example.org:443", Status: 200, Body: []byte("User-agent: *\nAllow: /\n"), Fetched: at}
	if err := store.SaveRobots(robots); err != nil {
		log.Fatal(err)
	}
	if err := store.AddRefusal(polite.RefusalRecord{Host: "refusing.example", Status: 403, Kind: polite.StopRefused, At: at}); err != nil {
		log.Fatal(err)
	}
	var pages polite.PageStore = store
	history, _ := pages.PageHistory("https://example.org/")
	refusals, _ := store.Refusals()
	var kind polite.StopKind = refusals[0].Kind
	host, _, _ := store.LoadHost("refusing.example")
	fmt.Println(len(history), "versions, latest", string(history[len(history)-1].Body))
	fmt.Println(host.Host, kind, "and left alone until", host.CoolOffUntil.Format(time.Kitchen))
	_, err = polite.OpenStore(path)
	fmt.Println(errors.Is(err, polite.ErrStoreLocked), errors.Is(err, polite.ErrStore))
	// Output:
	// 2 versions, latest <p>v2</p>
	// refusing.example refused and left alone until 4:00PM
	// true true
}

// A Verdict says what a response meant and whether it counts as a failure
// toward the five that stop a host (R3.2); a Rest names the term of R2
// that set it.
func ExampleVerdict() {
	v := polite.Classify(503, nil, nil)
	var kind polite.ResponseKind = v.Kind
	fmt.Println(kind, v.Failure())
	rest := polite.Rest{Wait: 8 * time.Second, Term: polite.RestBackoff}
	var term polite.RestTerm = rest.Term
	fmt.Println(rest, term == polite.RestBackoff)
	// Output:
	// server-failure true
	// 8s (backoff) true
}

// Signals weigh every statement a site made about a page: within a
// category the most restrictive wins (R7.1).
func ExampleSignals() {
	s := polite.Signals{All: []polite.Signal{
		{Source: "robots.txt line 3", Name: "train-ai", Value: "n"},
		{Source: "header Content-Signal", Name: "search", Value: "yes"},
		{Source: "meta robots", Name: "noindex"},
	}}
	var p polite.Preference
	p, because := s.Category("train-ai")
	fmt.Println(p, because)
	fmt.Println(len(s.TrainingOptOut()), s.NoIndex(), s.NoFollow())
	// Output:
	// no train-ai=n (robots.txt line 3)
	// 1 true false
}

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
		_, disallowed := errors.AsType[*polite.DisallowedError](r.Err)
		fmt.Println(strings.TrimPrefix(r.URL, farm.URL("news.test", "")), disallowed)
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
		_, refused := errors.AsType[*polite.AIInputRefusedError](err)
		fmt.Printf("%s: %q %v; allowed %v", hostOf(r.URL), text, refused, allowed)
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
// A page is read as a browser reads it (R8.4): here one in windows-1251,
// declared by its header, and one in Shift_JIS, declared only by its
// <meta>. Body keeps the bytes as sent; Title, HTML, TextForAI and Links
// read them decoded, and each link's path is UTF-8 while its query is in
// the page's encoding, as a browser requests it.
func ExampleResult_Charset() {
	cyrillic := "<title>\xcd\xee\xe2\xee\xf1\xf2\xe8</title><a href=\"/\xef\xf3\xf2\xfc?q=\xf1\xeb\xee\xe2\xee\">x</a>"
	japanese := "<meta charset=\"shift_jis\"><title>\x93\xfa\x96{</title><a href=\"/\x83p\x83X?q=\x8c\x9f\x8d\xf5\">x</a>"
	farm, cfg := farmOf(
		politetest.Site{Name: "ru.test", Pages: map[string]politetest.Page{
			"/": {Body: []byte(cyrillic), Header: http.Header{"Content-Type": {"text/html; charset=windows-1251"}}}}},
		politetest.Site{Name: "jp.test", Pages: map[string]politetest.Page{
			"/": {Body: []byte(japanese), Header: http.Header{"Content-Type": {"text/html"}}}}},
	)
	defer farm.Close()
	f := fetch(cfg, farm.URL("ru.test", "/"), farm.URL("jp.test", "/"))
	defer f.Close()
	for _, r := range readAll(f) {
		cs := r.Charset()
		link, _ := url.Parse(r.Links()[0].URL)
		fmt.Printf("%s: %s (from the %s), %q, %s\n", hostOf(r.URL), cs.Name, cs.Source, r.Title(), link.RequestURI())
	}
	// Unordered output:
	// ru.test: windows-1251 (from the header), "Новости", /%D0%BF%D1%83%D1%82%D1%8C?q=%F1%EB%EE%E2%EE
	// jp.test: shift_jis (from the meta), "日本", /%E3%83%91%E3%82%B9?q=%8C%9F%8D%F5
}

// DisplayURL prints a link as a person reads it; the fetcher requests it
// as a browser does, ASCII on the wire.
func ExampleDisplayURL() {
	link := "http://xn--e1afmkfd.example/%D0%BF%D1%83%D1%82%D1%8C?q=%D1%81%D0%BB%D0%BE%D0%B2%D0%BE&r=%F1%EB"
	fmt.Println(polite.DisplayURL(link))
	// Output:
	// http://пример.example/путь?q=слово&r=%F1%EB
}

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

// printExchanges is a Recorder that prints what each exchange was on the
// wire.
type printExchanges struct{}

func (printExchanges) Record(e polite.Exchange) {
	path := e.URL[strings.LastIndex(e.URL, "/"):]
	fmt.Printf("%s try %d: %s, Content-Encoding %q, %d bytes as sent\n",
		path, e.Try, e.StatusLine, e.Header.Get("Content-Encoding"), len(e.Body))
}

// A Recorder is given every exchange as it was on the wire — robots.txt
// first (R5.1), then the page — with the body still gzip as the server
// sent it, while the Result carries the page decoded.
func ExampleRecorder() {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte("<p>hello, archivist"))
	zw.Close()
	farm, cfg := farmOf(politetest.Site{Name: "archive.example", Pages: map[string]politetest.Page{
		"/page": {Body: zipped.Bytes(), Header: http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"gzip"}}},
	}})
	defer farm.Close()
	cfg.Recorder = printExchanges{}
	f := fetch(cfg, farm.URL("archive.example", "/page"))
	defer f.Close()
	for _, r := range readAll(f) {
		fmt.Printf("Result: %d, %q\n", r.Status, r.Body)
	}
	// Output:
	// /robots.txt try 1: HTTP/1.1 404 Not Found, Content-Encoding "", 19 bytes as sent
	// /page try 1: HTTP/1.1 200 OK, Content-Encoding "gzip", 43 bytes as sent
	// Result: 200, "<p>hello, archivist"
}

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
