// Command demo runs the polite fetcher against a small loopback farm of
// virtual web hosts and shows, request by request, what a site owner would
// see: who asked, when, how often, and how long the crawler stayed away.
//
// The farm has six host names on five addresses:
//
//   - fast.test answers at once: it is asked every 3 s, the floor (R2.1);
//   - slow.test takes about 1 s per answer: 5 × that, about 5 s, is its
//     rest (R2.2);
//   - blog.shared.test and shop.shared.test live on ONE address, so they
//     share one budget: one request at a time and 3 s between any two of
//     them, whichever name is asked (R1.1);
//   - moved.test redirects /old-home to fast.test: the second hop is a new
//     request that waits for fast.test's own rest (R8.3);
//   - slowbody.test streams one body slowly (about 0.8 s): that request
//     buys a 4 s rest instead of 3 s (R2.2).
//
// Run it with "go run ./examples/demo"; it takes about 15 s. Each line of
// the log is one HTTP request, printed when its URL's Result arrives (the
// hops of a redirect arrive with the final page, so they may print a little
// after requests that started later):
//
//	at      time since the start when the request was sent
//	address the server address dialled; the budget is per address
//	request host and path
//	status  the HTTP status, or ERROR (the error follows at the end)
//	took    from sending the request to the last byte of the body
//	gap     from the end of the previous request to the same address to
//	        the start of this one ("first" for the first); it must be at
//	        least the rest of that previous request
//	rest    the wait this response imposes on its address, and the rule
//	        term that set it: floor (3 s) or duration (5 × took)
//
// At the end the farm's own audit, taken on the server side, counts the
// requests, the overlaps (two requests at once on one address) and the
// gaps shorter than R2 allows. The run is polite when both are zero; the
// demo exits with status 1 otherwise, or when anything failed.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/farm"
)

func main() { os.Exit(run()) }

// run is the demo; it returns the exit status so that deferred Closes run.
func run() int {
	fm := farm.New(nil) // the real clock: the demo runs in real time
	defer fm.Close()

	urls, err := buildFarm(fm)
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo: building the farm:", err)
		return 1
	}

	f, err := polite.New(polite.Config{
		Resolver: fm.Resolver(),
		// The farm listens on 127.x.y.z. The fetcher refuses loopback and
		// private addresses by default (R10.1), since links written by
		// strangers may point there; this demo's hosts are ours.
		AllowPrivateNetworks: true,
		Logger:               slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
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
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	start := time.Now()
	added := 0
	for _, u := range urls {
		if err := f.Add(ctx, u); err != nil {
			fmt.Printf("ERROR adding %s: %v\n", u, err)
			continue
		}
		added++
	}

	log := newLog(start)
	log.header()
	failed := 0
	for range added {
		r, err := f.Next(ctx)
		if err != nil {
			fmt.Printf("ERROR waiting for a result: %v\n", err)
			failed += added - log.results
			break
		}
		if !log.result(r) {
			failed++
		}
	}
	elapsed := time.Since(start)

	// Close before reading the audit, so every request has ended on the
	// server side too.
	f.Close()
	fmt.Printf("\n%d URLs fetched in %.1fs, %d with errors, %d requests made\n",
		log.results, elapsed.Seconds(), failed, log.requests)

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
func buildFarm(fm *farm.Farm) ([]string, error) {
	shared, err := fm.NewAddr()
	if err != nil {
		return nil, err
	}
	// fast.test goes first: moved.test's redirect names its port, which
	// the farm picks when the site is added.
	if _, err := fm.AddSite(farm.Site{Name: "fast.test"}); err != nil {
		return nil, err
	}
	// Paths not listed in Pages get the farm's small default HTML page.
	sites := []farm.Site{
		{Name: "slow.test", Latency: time.Second},
		{Name: "blog.shared.test", Addr: shared},
		{Name: "shop.shared.test", Addr: shared},
		{Name: "moved.test", Pages: map[string]farm.Page{
			"/old-home": {Status: 301, Redirect: fm.URL("fast.test", "/new-home")},
		}},
		{Name: "slowbody.test", Pages: map[string]farm.Page{
			"/big": {Size: 64 << 10, BodyDelay: 800 * time.Millisecond},
		}},
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
	add("fast.test", "/", "/about", "/news")
	add("slow.test", "/", "/page/1", "/page/2")
	// Added in turn. The fetcher queues a name's URLs on the address once
	// that name is resolved, so they may still come out grouped by name;
	// what the two names always share is one request at a time and the rest.
	for _, p := range []string{"/", "/page/1", "/page/2"} {
		add("blog.shared.test", p)
		add("shop.shared.test", p)
	}
	// The redirect goes last on its host, so its first hop is moved.test's
	// last request and the log stays in order per address.
	add("moved.test", "/", "/contact", "/old-home")
	add("slowbody.test", "/", "/big", "/page/1")
	return urls, nil
}

// request is one request as the fetcher reported it.
type request struct {
	addr  netip.Addr
	start time.Time
	took  time.Duration
	rest  polite.Rest
}

func (q request) end() time.Time { return q.start.Add(q.took) }

// requestLog prints requests and remembers, per address, the ones already
// seen, to work out the gap before each new one.
type requestLog struct {
	start    time.Time
	seen     map[netip.Addr][]request
	results  int
	requests int
}

func newLog(start time.Time) *requestLog {
	return &requestLog{start: start, seen: make(map[netip.Addr][]request)}
}

// printLine prints one row of the request log in fixed-width columns.
func printLine(at, addr, req, status, took, gap, rest, note string) {
	line := fmt.Sprintf("%-7s  %-11s  %-24s  %-6s  %-7s  %-7s  %-17s  %s", at, addr, req, status, took, gap, rest, note)
	fmt.Println(strings.TrimRight(line, " "))
}

func (l *requestLog) header() {
	printLine("at", "address", "request", "status", "took", "gap", "rest", "")
}

// result prints one line per request of r: each redirect hop, then the
// final request. It reports whether r is a success.
func (l *requestLog) result(r *polite.Result) bool {
	l.results++
	for _, h := range r.Redirects {
		note := "redirect to " + shortURL(h.Location)
		l.line(request{addr: h.Addr, start: h.Started, took: h.Duration, rest: h.Rest}, h.URL, fmt.Sprint(h.Status), note)
	}
	if r.Err == nil {
		var note string
		if len(r.Redirects) > 0 {
			note = "end of the redirect from " + shortURL(r.URL)
		}
		l.line(request{addr: r.Addr, start: r.Started, took: r.Duration, rest: r.Rest}, r.FinalURL, fmt.Sprint(r.Status), note)
		return true
	}
	// No request was made when the name did not resolve or the fetcher
	// closed first; otherwise the last request (a refused page, or a
	// redirect the fetcher would not follow) is shown with its error.
	if r.Started.IsZero() {
		printLine("-", "-", shortURL(r.FinalURL), "ERROR", "-", "-", "-", r.Err.Error())
		return false
	}
	l.line(request{addr: r.Addr, start: r.Started, took: r.Duration, rest: r.Rest}, r.FinalURL, "ERROR", r.Err.Error())
	return false
}

// line prints one request. Its gap is measured from the request to the
// same address that ended last before it started, which need not be the
// last one printed: redirect hops are reported late.
func (l *requestLog) line(q request, url, status, note string) {
	l.requests++
	gap := "first"
	var prev *request
	for i, p := range l.seen[q.addr] {
		if p.start.Before(q.start) && (prev == nil || p.end().After(prev.end())) {
			prev = &l.seen[q.addr][i]
		}
	}
	if prev != nil {
		g := q.start.Sub(prev.end())
		gap = seconds(g)
		if g < prev.rest.Wait {
			note = strings.TrimSpace("SHORT GAP: the rest was " + seconds(prev.rest.Wait) + " " + note)
		}
	}
	l.seen[q.addr] = append(l.seen[q.addr], q)
	at := fmt.Sprintf("+%.2fs", q.start.Sub(l.start).Seconds())
	printLine(at, q.addr.String(), shortURL(url), status, took(q.took), gap, q.rest.String(), note)
}

// printAudit prints the farm's view of the run and reports whether it was
// polite. made is how many requests the fetcher reported making.
func printAudit(fm *farm.Farm, made int) bool {
	audit := fm.Audit()
	// R2.1 and R2.2 as the server can check them: at least the 3 s floor,
	// and at least 5 × how long the server spent on the previous request,
	// capped at 30 s. The server's view of a request is a little shorter
	// than the fetcher's, so this bound never asks for more than R2 does.
	minRest := func(prev farm.Visit) time.Duration {
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
	return rep.Overlaps == 0 && len(rep.ShortGaps) == 0
}

// shortURL drops the scheme and the farm's port: the address column
// already says where the request went.
func shortURL(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
	host, path, _ := strings.Cut(u, "/")
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return host + "/" + path
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
