// Command demo runs the polite fetcher against a small loopback farm of
// virtual web hosts and shows, request by request, what a site owner would
// see: who asked, when, how often, how long the crawler stayed away, and
// why.
//
// The farm has eight host names on seven addresses:
//
//   - fast.test answers at once: it is asked every 3 s, the floor (R2.1);
//     its robots.txt disallows /private/, so that URL is never requested
//     (R5.4), and lists a sitemap;
//   - slow.test takes about 1 s per answer: 5 × that, about 5 s, is its
//     rest (R2.2);
//   - blog.shared.test and shop.shared.test live on ONE address, so they
//     share one budget: one request at a time and 3 s between any two of
//     them, whichever name is asked (R1.1);
//   - moved.test redirects /old-home to fast.test: the second hop is a new
//     request that waits for fast.test's own rest (R8.3);
//   - slowbody.test streams one body slowly (about 0.8 s): that request
//     buys a 4 s rest instead of 3 s (R2.2), counted from the last byte
//     (R1.3);
//   - careful.test asks for Crawl-delay: 5 in its robots.txt (R2.3);
//   - closed.test answers 403: the host is stopped at once, its other URLs
//     are never requested, and the refusal is logged (R3.1, R3.4).
//
// Run it with "go run ./examples/demo"; it takes about 20 s. Each line of
// the log is one HTTP request, printed as it ends:
//
//	at      time since the start when the request was sent
//	address the server address dialled; the budget is per address
//	request host and path
//	status  the HTTP status, or ERROR
//	took    from sending the request to the last byte of the body
//	gap     from the end of the previous request to the same address to
//	        the start of this one ("first" for the first); it is never
//	        shorter than the rest of that previous request
//	rest    the wait this response imposes on its address, and the rule
//	        term that set it: floor, duration, crawl-delay, retry-after or
//	        backoff
//
// Lines without a time are URLs that were answered without a request of
// their own: disallowed by robots.txt, or on a stopped host.
//
// At the end the farm's own audit, taken on the server side, counts the
// requests, the overlaps (two requests at once on one address) and the
// gaps shorter than R2 allows. The run is polite when both are zero; the
// demo exits with status 1 otherwise, or when anything failed unexpectedly.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

func main() { os.Exit(run()) }

// run is the demo; it returns the exit status so that deferred Closes run.
func run() int {
	fm := politetest.New(nil) // the real clock: the demo runs in real time
	defer fm.Close()

	urls, err := buildFarm(fm)
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo: building the farm:", err)
		return 1
	}

	log := &requestLog{start: time.Now()}
	f, err := polite.New(polite.Config{
		Resolver: fm.Resolver(),
		// The farm listens on 127.x.y.z. The fetcher refuses loopback and
		// private addresses by default (R10.1), since links written by
		// strangers may point there; this demo's hosts are ours.
		AllowPrivateNetworks: true,
		// Refusals are logged here (R3.4), as a site operator's log would.
		Logger:    slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelWarn})),
		OnRequest: log.request,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo: creating the fetcher:", err)
		return 1
	}
	defer f.Close()

	fmt.Printf("User-Agent: %s\n", f.UserAgent())
	fmt.Printf("%d URLs on %d addresses\n\n", len(urls), len(fm.Addrs()))

	// A bound on the whole run, so a fetcher that never answers cannot
	// hang the demo.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	log.header()
	added := 0
	for _, u := range urls {
		if err := f.Add(ctx, u); err != nil {
			fmt.Printf("ERROR adding %s: %v\n", u, err)
			continue
		}
		added++
	}
	failed, results := 0, 0
	for range added {
		r, err := f.Next(ctx)
		if err != nil {
			fmt.Printf("ERROR waiting for a result: %v\n", err)
			failed += added - results
			break
		}
		results++
		if !log.result(r) {
			failed++
		}
	}
	elapsed := time.Since(log.start)

	// Close before reading the audit, so every request has ended on the
	// server side too.
	f.Close()
	if rules, ok := f.Robots(urls[0]); ok {
		fmt.Printf("\nSitemaps listed in fast.test's robots.txt: %v\n", rules.Sitemaps())
	}
	fmt.Printf("\n%d URLs answered in %.1fs, %d unexpected errors, %d requests made (robots.txt included)\n",
		results, elapsed.Seconds(), failed, log.requests)

	wasPolite := printAudit(fm, log.requests)
	switch {
	case !wasPolite:
		fmt.Println("NOT POLITE: the server saw overlapping requests or gaps shorter than R2 allows")
		return 1
	case failed > 0:
		fmt.Println("polite, but some URLs failed")
		return 1
	}
	fmt.Println("polite: no overlaps and no short gaps, as the server saw it")
	return 0
}

// buildFarm adds the demo's hosts to fm and returns the URLs to fetch, in
// the order they are added to the fetcher.
func buildFarm(fm *politetest.Farm) ([]string, error) {
	shared, err := fm.NewAddr()
	if err != nil {
		return nil, err
	}
	// fast.test goes first: moved.test's redirect names its port, which
	// the farm picks when the site is added.
	if _, err := fm.AddSite(politetest.Site{Name: "fast.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /private/\nSitemap: http://fast.test/sitemap.xml\n"),
	}}); err != nil {
		return nil, err
	}
	// Paths not listed in Pages get the farm's small default HTML page;
	// sites without a scripted robots.txt answer it with 404 (allow all).
	sites := []politetest.Site{
		{Name: "slow.test", Latency: time.Second},
		{Name: "blog.shared.test", Addr: shared},
		{Name: "shop.shared.test", Addr: shared},
		{Name: "moved.test", Pages: map[string]politetest.Page{
			"/old-home": {Status: 301, Redirect: fm.URL("fast.test", "/new-home")},
		}},
		{Name: "slowbody.test", Pages: map[string]politetest.Page{
			"/big": {Size: 64 << 10, BodyDelay: 800 * time.Millisecond},
		}},
		{Name: "careful.test", Pages: map[string]politetest.Page{
			politetest.RobotsPath: politetest.Robots("User-agent: PoliteCrawler\nCrawl-delay: 5\n"),
		}},
		{Name: "closed.test", Pages: map[string]politetest.Page{"/": {Status: 403}}},
	}
	for _, site := range sites {
		if _, err := fm.AddSite(site); err != nil {
			return nil, err
		}
	}

	var urls []string
	add := func(host string, paths ...string) {
		for _, p := range paths {
			urls = append(urls, fm.URL(host, p))
		}
	}
	add("fast.test", "/", "/about", "/private/drafts")
	add("slow.test", "/", "/page/1", "/page/2")
	for _, p := range []string{"/", "/page/1", "/page/2"} {
		add("blog.shared.test", p)
		add("shop.shared.test", p)
	}
	add("moved.test", "/", "/old-home")
	add("slowbody.test", "/big", "/page/1")
	add("careful.test", "/", "/page/1")
	add("closed.test", "/", "/page/1", "/page/2")
	return urls, nil
}

// requestLog prints the run as it happens: one line per HTTP request, as
// the fetcher reports it ending (Config.OnRequest), and one line per URL
// that ended without a request of its own (disallowed, host stopped).
type requestLog struct {
	mu       sync.Mutex
	start    time.Time
	requests int
}

// printLine prints one row of the log in fixed-width columns.
func printLine(at, addr, req, status, took, gap, rest, note string) {
	line := fmt.Sprintf("%-7s  %-11s  %-28s  %-6s  %-7s  %-7s  %-20s  %s", at, addr, req, status, took, gap, rest, note)
	fmt.Println(strings.TrimRight(line, " "))
}

func (l *requestLog) header() {
	printLine("at", "address", "request", "status", "took", "gap", "rest (R2 term)", "note")
}

// request prints one request: called by the fetcher as each one ends.
func (l *requestLog) request(q polite.RequestEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests++
	gap := "first"
	if !q.First {
		gap = seconds(q.Gap)
	}
	status := fmt.Sprint(q.Status)
	var note string
	switch {
	case q.Robots:
		note = "robots.txt, before any page of the site (R5.1)"
	case q.Verdict.Kind == polite.ResponseRedirect:
		note = "redirect: the next hop waits for its own host's rest (R8.3)"
	}
	if q.Err != nil {
		status, note = "ERROR", q.Err.Error()
		if q.Status != 0 {
			status = fmt.Sprint(q.Status)
		}
	}
	at := fmt.Sprintf("+%.2fs", q.Started.Sub(l.start).Seconds())
	printLine(at, q.Addr.String(), politetest.ShortURL(q.URL), status, took(q.Duration), gap, q.Rest.String(), note)
}

// result prints a URL's Result when it says something the request lines
// did not: a URL that was never requested, or a redirect's end. It
// reports whether the URL ended well, or as the rules say it must.
func (l *requestLog) result(r *polite.Result) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case r.Err == nil:
		if len(r.Redirects) > 0 {
			printLine("", "", politetest.ShortURL(r.URL), "done", "", "", "", fmt.Sprintf("%d redirect(s), ended at %s", len(r.Redirects), politetest.ShortURL(r.FinalURL)))
		}
		return true
	case isA[*polite.DisallowedError](r.Err):
		printLine("", "", politetest.ShortURL(r.URL), "-", "", "", "", "not requested: "+r.Err.Error())
		return true
	case isA[*polite.RefusalError](r.Err):
		if isA[*polite.StoppedError](r.Err) {
			printLine("", "", politetest.ShortURL(r.URL), "-", "", "", "", "not requested: the host refused earlier and is stopped (R3.1)")
		}
		return true
	}
	printLine("", "", politetest.ShortURL(r.URL), "ERROR", "", "", "", r.Err.Error())
	return false
}

// printAudit prints the farm's view of the run and reports whether it was
// polite. made is how many requests the fetcher reported making.
func printAudit(fm *politetest.Farm, made int) bool {
	audit := fm.Audit()
	// R2.1 and R2.2 as the server can check them: at least the 3 s floor,
	// and at least 5 × how long the server spent on the previous request,
	// capped at 30 s. The server's view of a request is a little shorter
	// than the fetcher's, so this bound never asks for more than R2 does.
	minRest := func(prev politetest.Visit) time.Duration {
		return max(polite.MinRest, min(polite.MinDurationFactor*prev.End.Sub(prev.Start), polite.DurationRestCap))
	}
	rep := audit.Report(minRest)

	hosts := make(map[netip.Addr][]string)
	count := make(map[netip.Addr]int)
	for _, v := range audit.Visits() {
		count[v.Addr]++
		if !slices.Contains(hosts[v.Addr], v.Host) {
			hosts[v.Addr] = append(hosts[v.Addr], v.Host)
		}
	}
	addrs := make([]netip.Addr, 0, len(count))
	for a := range count {
		addrs = append(addrs, a)
	}
	slices.SortFunc(addrs, netip.Addr.Compare)

	fmt.Printf("\nThe farm's audit (server side):\n")
	fmt.Printf("  requests:   %d", rep.Requests)
	if rep.Requests != made {
		fmt.Printf(" (the fetcher reported %d: the two counts should agree)", made)
	}
	fmt.Printf("\n  overlaps:   %d\n", rep.Overlaps)
	fmt.Printf("  short gaps: %d (gap < max(3s, min(5 × duration, 30s)))\n", len(rep.ShortGaps))
	for _, g := range rep.ShortGaps {
		fmt.Printf("    %v: %s before %s%s, wanted %s\n", g.Addr, seconds(g.Gap), g.Next.Host, g.Next.Path, seconds(g.Want))
	}
	fmt.Printf("\n  %-11s  %-8s  %-9s  %s\n", "address", "requests", "min gap", "hosts")
	for _, a := range addrs {
		gap := "-"
		if g, ok := rep.MinGap[a]; ok {
			gap = seconds(g)
		}
		slices.Sort(hosts[a])
		fmt.Printf("  %-11s  %-8d  %-9s  %s\n", a, count[a], gap, strings.Join(hosts[a], ", "))
	}
	fmt.Println()
	return rep.Polite()
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3fs", d.Seconds()) }

// took shows short requests in milliseconds, so a fast answer does not
// read as "0.000s".
func took(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return seconds(d)
}

// isA reports whether err's tree holds an E.
func isA[E error](err error) bool {
	_, ok := errors.AsType[E](err)
	return ok
}
