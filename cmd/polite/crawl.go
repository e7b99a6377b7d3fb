package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
	"github.com/politecrawler/polite/sitemap"
)

// crawlCommand is polite crawl: a same-site crawl of each seed on the
// Fetcher. Everything that makes it polite — one request at a time per
// server address, the rests, robots.txt, refusals, traps — is the
// Fetcher's; the crawl only decides which links to follow.
func crawlCommand(fs *flag.FlagSet) func(env, []string) int {
	maxURLs := fs.Int("max", 100, "the most URLs to fetch, sitemaps included")
	sitemaps := fs.Bool("sitemaps", false, "also read the sitemaps each seed's robots.txt lists, and fetch their pages")
	warcPath := fs.String("o", "", "write every exchange to this WARC 1.1 file (.warc.gz: gzip per record), or to a WACZ 1.1.1 package (.wacz)")
	cdxj := fs.Bool("cdxj", false, "with -o of a WARC file, write its CDXJ index beside it (crawl.warc.gz → crawl.cdxj)")
	storePath := fs.String("store", "", "a store file: page copies (conditional requests), robots.txt and refusals across runs")
	serveAddr := fs.String("serve", "", "show the crawl live on a web page at this address (\":8080\" binds loopback)")
	var ff fetcherFlags
	ff.register(fs, true)
	return func(e env, seeds []string) int {
		c := crawler{env: e, max: *maxURLs, sitemaps: *sitemaps}
		logs := e.errOut
		if isTerminal(e.out) && isTerminal(e.errOut) {
			logs = clearingLine{e.errOut} // a log line over the progress line, not in it
		}
		cfg, seeds, done, err := ff.prepare(logs, seeds)
		if err != nil {
			return fail(e, "crawl", err)
		}
		defer done()
		if len(seeds) == 0 {
			return fail(e, "crawl", fmt.Errorf("%w: want one seed URL or more (or -demo)", errUsage))
		}
		if c.max < 1 {
			return fail(e, "crawl", fmt.Errorf("%w: -max %d: want at least 1", errUsage, c.max))
		}
		for _, s := range seeds {
			u, err := url.Parse(s)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fail(e, "crawl", fmt.Errorf("%q is not an http or https URL", s))
			}
			c.sites = append(c.sites, u)
		}
		if c.sitemaps {
			cfg.Types = append(cfg.Types, sitemapTypes...)
			cfg.MaxBodyBytes = sitemap.MaxBytes
		}
		if *storePath != "" {
			st, err := polite.OpenStore(*storePath)
			if err != nil {
				return fail(e, "crawl", err)
			}
			defer st.Close()
			cfg.Store = st
		}
		if *warcPath != "" {
			a, err := openOutput(*warcPath, "polite/"+polite.DefaultVersion, *cdxj)
			if err != nil {
				return fail(e, "crawl", err)
			}
			defer func() {
				if err := a.Close(); err != nil {
					fmt.Fprintf(e.errOut, "polite crawl: %v\n", err)
				}
			}()
			c.archive = a
			cfg.Recorder = a
		}
		if *serveAddr != "" {
			ln, err := listenLive(*serveAddr)
			if err != nil {
				return fail(e, "crawl", err)
			}
			c.live = newLive("polite crawl of " + strings.Join(seeds, " "))
			srv := &http.Server{Handler: c.live, ReadHeaderTimeout: 10 * time.Second}
			go srv.Serve(ln)
			defer srv.Close()
			cfg.OnRequest = c.live.observe
			fmt.Fprintf(e.out, "live page: http://%s/\n", ln.Addr())
		}
		f, err := polite.New(cfg)
		if err != nil {
			return fail(e, "crawl", err)
		}
		defer f.Close()
		fmt.Fprintf(e.out, "crawling %s as %s\n", strings.Join(seeds, " "), f.UserAgent())
		sum, err := c.crawl(f, seeds)
		if err != nil && e.ctx.Err() != nil { // interrupted: what was done, then why it ended
			sum.print(e.out)
			return fail(e, "crawl", errors.New("interrupted"))
		}
		if err != nil {
			return fail(e, "crawl", err)
		}
		sum.print(e.out)
		status := 0
		for _, r := range sum.failedSeeds {
			status = fail(e, "crawl", fmt.Errorf("seed %s: %s", r.URL, failure(r)))
		}
		if c.live != nil {
			c.live.finish(sum.line())
			fmt.Fprintln(e.out, "the live page stays up until interrupted (Ctrl-C)")
			<-e.ctx.Done()
		}
		return status
	}
}

// sitemapTypes are the media types sitemaps come in, read besides HTML
// when -sitemaps is set (R8.1).
var sitemapTypes = []string{"application/xml", "text/xml", "application/gzip", "application/x-gzip", "text/plain"}

// crawler is one crawl's frontier and its outputs.
type crawler struct {
	env
	max      int
	sitemaps bool
	sites    []*url.URL // the seeds: their hosts and the hosts under them
	archive  output     // nil without -o
	live     *live

	added    map[string]bool // every URL added: a crawler keeps its own frontier
	sitemap  map[string]bool // the added URLs that are sitemaps
	progress *progress
}

// crawl fetches the seeds and what they lead to within their sites,
// until max URLs were added or nothing is left.
func (c *crawler) crawl(f *polite.Fetcher, seeds []string) (sum summary, err error) {
	start := time.Now()
	sum.traps = map[polite.TrapKind][]string{}
	c.added, c.sitemap = map[string]bool{}, map[string]bool{}
	c.progress = newProgress(c.out, f, c.live)
	defer c.progress.stop()
	for _, s := range seeds {
		if err := f.Add(c.ctx, s); err != nil { // never fetchable: no crawl from here
			sum.failedSeeds = append(sum.failedSeeds, &polite.Result{URL: s, Err: hint(err)})
			continue
		}
		c.added[s] = true
	}
	// One loop in one goroutine: a Result counts as pending until its
	// iteration is over, so the URLs added below keep the loop going,
	// and it ends when the sites have nothing new.
	defer func() {
		st, _ := f.Stats(context.Background())
		sum.requests, sum.elapsed = st.Requests, time.Since(start)
	}()
	for r, err := range f.Results(c.ctx) {
		if err != nil {
			return sum, err
		}
		if c.archive != nil {
			if err := c.archive.Err(); err != nil {
				return sum, err
			}
			c.archive.page(r, slices.Index(seeds, r.URL))
		}
		c.progress.result(r)
		if slices.Contains(seeds, r.URL) {
			if r.Err != nil || r.Status >= 400 {
				sum.failedSeeds = append(sum.failedSeeds, r)
			}
			if c.sitemaps {
				c.addSitemaps(f, r.URL)
			}
		}
		var trap *polite.TrapError
		switch {
		case errors.As(r.Err, &trap):
			sum.traps[trap.Kind] = append(sum.traps[trap.Kind], r.URL)
			continue
		case isRefusal(r.Err):
			sum.stopped++
			if c.live != nil {
				c.live.logRefusal(r.URL, r.Err)
			}
			continue
		case r.Err != nil, r.Status >= 400: // an error page is no page: its links are not followed
			sum.errors++
			continue
		}
		if c.sitemap[r.URL] {
			sum.sitemaps++
			c.readSitemap(f, r, &sum)
			continue
		}
		sum.pages++
		if r.NotModified {
			sum.notModified++
		}
		for _, l := range r.Links() {
			if !l.NoFollow {
				c.add(f, l.URL, false)
			}
		}
	}
	return sum, nil
}

// add adds u if it is on a seed's site, new, and within -max.
func (c *crawler) add(f *polite.Fetcher, u string, isSitemap bool) {
	if len(c.added) >= c.max || c.added[u] || !c.onSite(u) {
		return
	}
	// The Fetcher still catches the same page under other spellings
	// (case, session ids, dot segments…) and refuses it with ErrDuplicate.
	if err := f.Add(c.ctx, u); err != nil {
		return
	}
	c.added[u] = true
	if isSitemap {
		c.sitemap[u] = true
	}
}

// addSitemaps adds the sitemaps robots.txt lists for seed's origin, read
// before the seed itself was asked (R5.1).
func (c *crawler) addSitemaps(f *polite.Fetcher, seed string) {
	rules, ok := f.Robots(seed)
	if !ok {
		return
	}
	for _, s := range rules.Sitemaps() {
		c.add(f, s, true)
	}
}

// readSitemap adds the pages a sitemap lists, or the sitemaps an index
// lists.
func (c *crawler) readSitemap(f *polite.Fetcher, r *polite.Result, sum *summary) {
	sm, err := sitemap.Parse(r.Body)
	if err != nil {
		fmt.Fprintf(c.errOut, "polite crawl: sitemap %s: %v\n", polite.DisplayURL(r.URL), err)
	}
	if sm.Truncated {
		fmt.Fprintf(c.errOut, "polite crawl: sitemap %s: over the protocol's caps (%d URLs, %d bytes); the rest is not read\n", polite.DisplayURL(r.URL), sitemap.MaxURLs, sitemap.MaxBytes)
	}
	for _, loc := range sm.Locs {
		c.add(f, loc, sm.Kind == sitemap.Index)
	}
	sum.listed += len(sm.Locs)
}

// onSite reports whether u is on a seed's host or a host under it.
func (c *crawler) onSite(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	h := strings.ToLower(p.Hostname())
	for _, s := range c.sites {
		sh := strings.ToLower(s.Hostname())
		if h == sh || strings.HasSuffix(h, "."+sh) {
			return true
		}
	}
	return false
}

// summary is what a crawl did.
type summary struct {
	pages, notModified, errors int
	sitemaps, listed           int
	traps                      map[polite.TrapKind][]string // kind → URLs
	stopped                    int                          // URLs on refused or stopped hosts
	failedSeeds                []*polite.Result             // seeds with an error or a status of 400 or more
	requests                   int
	elapsed                    time.Duration
}

// line is the summary's first line.
func (s summary) line() string {
	return fmt.Sprintf("%s (%d not modified since the store's copy), %s, %s on stopped hosts, %s in %.1fs",
		count(s.pages, "page"), s.notModified, count(s.errors, "error"), count(s.stopped, "URL"), count(s.requests, "request"), s.elapsed.Seconds())
}

func (s summary) print(w io.Writer) {
	fmt.Fprintln(w, s.line())
	if s.sitemaps > 0 {
		fmt.Fprintf(w, "  %d sitemaps read, listing %d URLs\n", s.sitemaps, s.listed)
	}
	kinds := make([]polite.TrapKind, 0, len(s.traps))
	for k := range s.traps {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "  trap %-19s %3d URLs dropped, e.g. %s\n", k, len(s.traps[k]), politetest.ShortURL(polite.DisplayURL(s.traps[k][0])))
	}
}

// isRefusal reports whether err is a refusal: the host refused, or is
// stopped (R3).
func isRefusal(err error) bool {
	return isA[*polite.StoppedError](err) || isA[*polite.RefusalError](err)
}

// isA reports whether err's tree holds an E.
func isA[E error](err error) bool {
	_, ok := errors.AsType[E](err)
	return ok
}

// count is "1 page", "2 pages".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// failure says why r is no page: its error, or its status.
func failure(r *polite.Result) string {
	if r.Err != nil {
		return r.Err.Error()
	}
	return fmt.Sprintf("status %d", r.Status)
}
