// Command timeline draws what politeness looks like from the servers'
// side: it crawls a small loopback farm and writes an SVG with one row per
// server address, each request a bar as long as it took, each enforced
// rest hatched after it, labelled with the term of R2 that set it.
//
//	go run ./examples/timeline -o timeline.svg
//
// It takes about 25 s (the rests are real) and needs no internet.
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

func main() {
	out := flag.String("o", "timeline.svg", "the SVG file to write")
	flag.Parse()
	reqs, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "timeline:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, []byte(render(reqs)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "timeline:", err)
		os.Exit(1)
	}
	fmt.Printf("%d requests drawn in %s\n", len(reqs), *out)
}

// run crawls the farm and returns every request the fetcher reported.
func run() ([]polite.RequestEvent, error) {
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
		{Name: "busy.test", Pages: map[string]politetest.Page{"/p1": {Status: 429, Header: map[string][]string{"Retry-After": {"8"}}}}},
		{Name: "flaky.test", Pages: map[string]politetest.Page{"/p0": {Status: 503}, "/p1": {Status: 503}}},
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
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
