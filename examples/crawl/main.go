// Command crawl is a polite site crawler built on polite.Fetcher: it
// starts from a seed URL, follows the links of each page within the
// seed's site (its host and the hosts under it), and stops after -max URLs
// or when the site has nothing new.
// Everything that makes it polite — one request at a time per server, the
// rests, robots.txt, refusals, traps — is the Fetcher's; this program only
// decides which links to follow.
//
//	go run ./examples/crawl -seed https://example.org/ -max 100 -store crawl.db
//	go run ./examples/crawl -demo
//
// A progress line shows hosts active, resting and stopped, pages, errors
// and traps; a summary follows at the end. -demo crawls a loopback farm
// site full of traps — an endless calendar, session ids in every link,
// endlessly deeper paths, one listing served under ever more page numbers
// — and shows the crawl ending by itself with every real page fetched.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

func main() { os.Exit(run()) }

func run() int {
	seed := flag.String("seed", "", "the URL to start from")
	maxPages := flag.Int("max", 100, "the most URLs to fetch")
	storePath := flag.String("store", "", "a store file: pages, robots.txt and refusals across runs (optional)")
	demo := flag.Bool("demo", false, "crawl a loopback farm site full of traps instead of -seed")
	flag.Parse()

	cfg := polite.Config{Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if *demo {
		fm := politetest.New(nil)
		defer fm.Close()
		var err error
		if *seed, err = fm.AddTrapSite(); err != nil {
			fmt.Fprintln(os.Stderr, "crawl:", err)
			return 1
		}
		cfg.Resolver = fm.Resolver()
		cfg.AllowPrivateNetworks = true // the farm is on loopback
	}
	if *seed == "" {
		fmt.Fprintln(os.Stderr, "crawl: -seed URL or -demo is needed")
		flag.Usage()
		return 2
	}
	if *storePath != "" {
		st, err := polite.OpenStore(*storePath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "crawl:", err)
			return 1
		}
		defer st.Close()
		cfg.Store = st
	}
	f, err := polite.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crawl:", err)
		return 1
	}
	defer f.Close()

	fmt.Printf("crawling %s as %s\n", *seed, f.UserAgent())
	sum, err := crawl(context.Background(), f, *seed, *maxPages, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "\ncrawl:", err)
		return 1
	}
	sum.print(os.Stdout)
	if *demo {
		got := map[string]bool{}
		for _, u := range sum.fetched {
			if p, err := url.Parse(u); err == nil && p.Hostname() == "traps.test" {
				got[p.Path] = true
			}
		}
		missing := 0
		for _, p := range politetest.TrapPages {
			if !got[p] {
				fmt.Printf("  MISSING: the real page traps.test%s was not fetched\n", p)
				missing++
			}
		}
		if missing > 0 {
			return 1
		}
		fmt.Printf("  every real page of traps.test was fetched (%d), and the crawl ended by itself\n", len(politetest.TrapPages))
	}
	return 0
}

// summary is what a crawl did.
type summary struct {
	pages, notModified, errors int
	traps                      map[polite.TrapKind][]string // kind → URLs
	stopped                    []string
	fetched                    []string
	elapsed                    time.Duration
	requests                   int
}

// crawl fetches seed and the links it leads to within its site, until max
// URLs were added or nothing is left. It prints a progress line to w.
func crawl(ctx context.Context, f *polite.Fetcher, seed string, max int, w io.Writer) (summary, error) {
	start := time.Now()
	sum := summary{traps: map[polite.TrapKind][]string{}}
	site, err := url.Parse(seed)
	if err != nil {
		return sum, err
	}
	// The crawler keeps the links it has added, as any frontier does; the
	// Fetcher still catches the same page under other spellings (case,
	// session ids, dot segments…) and refuses those with ErrDuplicate.
	added := map[string]bool{}
	add := func(u string) {
		if len(added) >= max || added[u] {
			return
		}
		if err := f.Add(ctx, u); err == nil {
			added[u] = true
		}
	}
	add(seed)

	// One loop in one goroutine: a Result counts as pending until its
	// iteration is over, so the links added below keep the loop going and
	// it ends when the site has nothing new. The progress line is redrawn
	// between Results, at most twice a second.
	var drawn time.Time
	for r, err := range f.Results(ctx) {
		if err != nil {
			return sum, err
		}
		if time.Since(drawn) >= 500*time.Millisecond {
			progress(ctx, f, &sum, w)
			drawn = time.Now()
		}
		var trap *polite.TrapError
		switch {
		case errors.As(r.Err, &trap):
			sum.traps[trap.Kind] = append(sum.traps[trap.Kind], r.URL)
			continue
		case errors.Is(r.Err, polite.ErrHostStopped), errors.Is(r.Err, polite.ErrRefused):
			sum.stopped = append(sum.stopped, r.URL)
			continue
		case r.Err != nil:
			sum.errors++
			continue
		}
		sum.pages++
		sum.fetched = append(sum.fetched, r.FinalURL)
		if r.NotModified {
			sum.notModified++
		}
		for _, l := range r.Links() {
			if !l.NoFollow && sameSite(l.URL, site) {
				add(l.URL)
			}
		}
	}
	progress(ctx, f, &sum, w)
	fmt.Fprintln(w)
	st, _ := f.Stats(ctx)
	sum.requests = st.Requests
	sum.elapsed = time.Since(start)
	return sum, nil
}

// progress rewrites the progress line.
func progress(ctx context.Context, f *polite.Fetcher, sum *summary, w io.Writer) {
	st, err := f.Stats(ctx)
	if err != nil {
		return
	}
	traps := 0
	for _, n := range st.Traps {
		traps += n
	}
	fmt.Fprintf(w, "\rhosts %d active, %d resting, %d stopped | pages %d | errors %d | traps %d | queued %d   ",
		st.Active, st.Resting, st.Stopped, sum.pages, sum.errors, traps, st.Queued)
}

func (s summary) print(w io.Writer) {
	fmt.Fprintf(w, "\n%d pages (%d not modified since the store's copy), %d errors, %d requests in %.1fs\n",
		s.pages, s.notModified, s.errors, s.requests, s.elapsed.Seconds())
	kinds := make([]polite.TrapKind, 0, len(s.traps))
	for k := range s.traps {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "  trap %-19s %3d URLs dropped, e.g. %s\n", k, len(s.traps[k]), politetest.ShortURL(s.traps[k][0]))
	}
	if len(s.stopped) > 0 {
		fmt.Fprintf(w, "  %d URLs on stopped hosts\n", len(s.stopped))
	}
}

// sameSite reports whether u is on the seed's host or a host under it.
func sameSite(u string, site *url.URL) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	h, s := strings.ToLower(p.Hostname()), strings.ToLower(site.Hostname())
	return h == s || strings.HasSuffix(h, "."+s)
}
