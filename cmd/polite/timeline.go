package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// timelineCommand is polite timeline: what politeness looks like from
// the servers' side. It crawls a small loopback farm (no internet, about
// 25 s: the rests are real) and writes an SVG with one row per server
// address, each request a bar as long as it took, each enforced rest
// hatched after it, labelled with the term of R2 that set it.
func timelineCommand(fs *flag.FlagSet) func(env, []string) int {
	out := fs.String("o", "timeline.svg", "the SVG file to write")
	return func(e env, args []string) int {
		if len(args) > 0 {
			return fail(e, "timeline", fmt.Errorf("%w: unexpected arguments %q", errUsage, args))
		}
		file, err := os.Create(*out) // before the crawl: a bad path fails at once
		if err != nil {
			return fail(e, "timeline", pathError(*out, err))
		}
		defer file.Close()
		reqs, err := timelineCrawl(e.ctx)
		if err != nil {
			return fail(e, "timeline", err)
		}
		if _, err := file.WriteString(timelineSVG(reqs)); err != nil {
			return fail(e, "timeline", pathError(*out, err))
		}
		if err := file.Close(); err != nil {
			return fail(e, "timeline", pathError(*out, err))
		}
		fmt.Fprintf(e.out, "%d requests drawn in %s\n", len(reqs), *out)
		return 0
	}
}

// timelineCrawl crawls the farm and returns every request the fetcher
// reported.
func timelineCrawl(ctx context.Context) ([]polite.RequestEvent, error) {
	fm := politetest.New(nil)
	defer fm.Close()
	shared, err := fm.NewAddr()
	if err != nil {
		return nil, err
	}
	sites := []politetest.Site{
		{Name: "fast.test"},
		{Name: "slow.test", Latency: 900 * time.Millisecond},
		{Name: "careful.test", Pages: map[string]politetest.Page{politetest.RobotsPath: politetest.Robots("User-agent: *\nCrawl-delay: 6\n")}},
		// A failed request is tried again after the rest it imposed
		// (R11.3): the 429 once, after its Retry-After; the 503 twice, on
		// a growing backoff.
		{Name: "busy.test", Pages: map[string]politetest.Page{"/p1": {Sequence: []politetest.Page{
			{Status: 429, Header: map[string][]string{"Retry-After": {"8"}}}, {}}}}},
		{Name: "flaky.test", Pages: map[string]politetest.Page{"/p0": {Sequence: []politetest.Page{{Status: 503}, {Status: 503}, {}}}}},
		{Name: "a.shared.test", Addr: shared},
		{Name: "b.shared.test", Addr: shared},
	}
	for _, s := range sites {
		if _, err := fm.AddSite(s); err != nil {
			return nil, err
		}
	}
	var mu sync.Mutex
	var reqs []polite.RequestEvent
	f, err := polite.New(polite.Config{
		Resolver:             fm.Resolver(),
		AllowPrivateNetworks: true, // the farm is on loopback
		Logger:               slog.New(slog.DiscardHandler),
		OnRequest: func(q polite.RequestEvent) {
			mu.Lock()
			reqs = append(reqs, q)
			mu.Unlock()
		},
	})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := 0
	for _, s := range sites {
		pages := 3
		if s.Addr.IsValid() {
			pages = 2
		}
		for i := range pages {
			if err := f.Add(ctx, fm.URL(s.Name, fmt.Sprintf("/p%d", i))); err != nil {
				return nil, err
			}
			n++
		}
	}
	for range n {
		if _, err := f.Next(ctx); err != nil {
			return nil, err
		}
	}
	f.Close()
	mu.Lock()
	defer mu.Unlock()
	return reqs, nil
}
