// Command revisit runs the fetcher twice on one store file, as a crawler
// that comes back would, and shows what it remembered:
//
//   - run 1 fetches the pages of a small loopback farm, keeps each page
//     with its headers, and meets a host that refuses it (403);
//   - run 2, a new Fetcher on the same store, asks for the same pages
//     with If-None-Match: the farm answers 304 and the Results carry the
//     stored copies, marked not modified (R6); robots.txt, fresh in the
//     store, is not asked again (R5.3); the refusing host is left alone,
//     cooling off (R3.3), and the farm sees no request for it.
//
// Run it with "go run ./examples/revisit" (about 10 s, no internet).
// -store names the file; by default a temporary one is used and removed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

func main() { os.Exit(run()) }

func run() int {
	storePath := flag.String("store", "", "the store file (default: a temporary file)")
	flag.Parse()
	if *storePath == "" {
		dir, err := os.MkdirTemp("", "polite-revisit")
		if err != nil {
			fmt.Fprintln(os.Stderr, "revisit:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		*storePath = filepath.Join(dir, "polite.db")
	}

	fm := politetest.New(nil)
	defer fm.Close()
	urls, err := buildFarm(fm)
	if err != nil {
		fmt.Fprintln(os.Stderr, "revisit: building the farm:", err)
		return 1
	}

	for round := 1; round <= 2; round++ {
		fmt.Printf("run %d, store %s\n", round, *storePath)
		fm.Audit().Reset()
		if err := crawl(urls, fm, *storePath); err != nil {
			fmt.Fprintln(os.Stderr, "revisit:", err)
			return 1
		}
		fmt.Printf("  the farm saw %d requests:", len(fm.Audit().Visits()))
		for _, v := range fm.Audit().Visits() {
			fmt.Printf(" %s%s", v.Host, v.Path)
			if inm := v.Header.Get("If-None-Match"); inm != "" {
				fmt.Printf(" (If-None-Match %s)", inm)
			}
			fmt.Print(";")
		}
		fmt.Print("\n\n")
	}
	return report(*storePath, urls)
}

// buildFarm serves two sites whose pages carry ETags, and one that
// refuses.
func buildFarm(fm *politetest.Farm) ([]string, error) {
	tagged := func(path string) politetest.Page {
		return politetest.Page{ETag: `"` + strings.Trim(path, "/") + `-v1"`,
			Body: []byte("<html><body><p>the page at " + path + "</p></body></html>")}
	}
	for _, s := range []politetest.Site{
		{Name: "news.test", Default: tagged},
		{Name: "docs.test", Default: tagged},
		{Name: "private.test", Default: func(string) politetest.Page { return politetest.Page{Status: 403} }},
	} {
		if _, err := fm.AddSite(s); err != nil {
			return nil, err
		}
	}
	var urls []string
	for _, h := range []string{"news.test", "docs.test", "private.test"} {
		for _, p := range []string{"/today", "/archive"} {
			urls = append(urls, fm.URL(h, p))
		}
	}
	return urls, nil
}

// crawl is one run: a new Fetcher on the store, every URL, every Result.
func crawl(urls []string, fm *politetest.Farm, path string) error {
	st, err := polite.OpenStore(path)
	if err != nil {
		return err
	}
	defer st.Close()
	f, err := polite.New(polite.Config{
		Store:    st,
		Resolver: fm.Resolver(),
		// The farm is on loopback: allowed for this demonstration only.
		AllowPrivateNetworks: true,
		Logger:               slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return err
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, u := range urls {
		if err := f.Add(ctx, u); err != nil {
			return err
		}
	}
	for range urls {
		r, err := f.Next(ctx)
		if err != nil {
			return err
		}
		switch {
		case errors.Is(r.Err, polite.ErrCoolingOff):
			fmt.Printf("  %-32s not asked: %v\n", politetest.ShortURL(r.URL), r.Err)
		case r.Err != nil:
			fmt.Printf("  %-32s %v\n", politetest.ShortURL(r.URL), r.Err)
		case r.NotModified:
			fmt.Printf("  %-32s 304 not modified: the stored copy, %d bytes, fetched %s\n", politetest.ShortURL(r.URL), len(r.Body), r.Header.Get("Date"))
		default:
			fmt.Printf("  %-32s %d, %d bytes, ETag %s: kept in the store\n", politetest.ShortURL(r.URL), r.Status, len(r.Body), r.Header.Get("ETag"))
		}
	}
	return nil
}

// report lists what the store holds after both runs.
func report(path string, urls []string) int {
	st, err := polite.OpenStore(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "revisit:", err)
		return 1
	}
	defer st.Close()
	fmt.Println("the store after both runs:")
	for _, u := range urls[:2] {
		h, err := st.PageHistory(u)
		if err != nil {
			fmt.Fprintln(os.Stderr, "revisit:", err)
			return 1
		}
		fmt.Printf("  %-32s %d version(s) in its history (a 304 adds none)\n", politetest.ShortURL(u), len(h))
	}
	refusals, err := st.Refusals()
	if err != nil {
		fmt.Fprintln(os.Stderr, "revisit:", err)
		return 1
	}
	for _, r := range refusals {
		fmt.Printf("  refusal: %s %s status %d (%s), %s\n", r.Host, politetest.ShortURL(r.URL), r.Status, r.Kind, r.At.Format(time.RFC3339))
	}
	if h, ok, _ := st.LoadHost("private.test"); ok {
		fmt.Printf("  private.test: stopped %d time(s), left alone until %s\n", h.Stops, h.CoolOffUntil.Format(time.RFC3339))
	}
	return 0
}
