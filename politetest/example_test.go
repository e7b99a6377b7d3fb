package politetest_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// A farm of two scripted hosts, a polite.Fetcher pointed at it, and the
// audit of what the hosts saw. Each host is asked for its robots.txt and
// one page, so the run takes one rest: about 3 s.
func Example() {
	farm := politetest.New(nil) // in a test: politetest.Start(t, sites...)
	defer farm.Close()
	for _, s := range []politetest.Site{
		{Name: "shop.test", Pages: map[string]politetest.Page{
			politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /cart\n"),
		}},
		{Name: "slow.test", Latency: 100 * time.Millisecond},
	} {
		if _, err := farm.AddSite(s); err != nil {
			log.Fatal(err)
		}
	}

	f, err := polite.New(polite.Config{
		Resolver:             farm.Resolver(), // the farm's names, not DNS
		AllowPrivateNetworks: true,            // the farm is on loopback
	})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	for _, u := range []string{farm.URL("shop.test", "/"), farm.URL("shop.test", "/cart"), farm.URL("slow.test", "/")} {
		if err := f.Add(ctx, u); err != nil {
			log.Fatal(err)
		}
	}
	for _, err := range f.Results(ctx) {
		if err != nil {
			log.Fatal(err)
		}
	}

	rep := farm.Audit().Report(politetest.AtLeast(3 * time.Second))
	fmt.Println(rep.Requests, "requests to", rep.Addresses, "addresses; polite:", rep.Polite())
	for _, v := range farm.Audit().VisitsTo("shop.test") {
		fmt.Println(v.Method, v.Host, v.Path)
	}
	// Output:
	// 4 requests to 2 addresses; polite: true
	// GET shop.test /robots.txt
	// GET shop.test /
}

// A Site scripts its answers by path: here a 503 with Retry-After, then
// a page; a redirect; and an ETag that earns a 304. Any net/http client
// reaches the farm through its DialContext.
func ExampleSite() {
	farm := politetest.New(nil)
	defer farm.Close()
	_, err := farm.AddSite(politetest.Site{Name: "a.test", Pages: map[string]politetest.Page{
		"/busy": {Sequence: []politetest.Page{
			{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"120"}}},
			{Body: []byte("<p>now</p>")},
		}},
		"/old":  {Redirect: "/new", Status: http.StatusMovedPermanently},
		"/same": {ETag: `"v1"`},
	}})
	if err != nil {
		log.Fatal(err)
	}
	tr := &http.Transport{DialContext: farm.DialContext}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	ask := func(path, ifNoneMatch string) (*http.Response, string) {
		req, err := http.NewRequest("GET", farm.URL("a.test", path), nil)
		if err != nil {
			log.Fatal(err)
		}
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		resp, err := client.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			log.Fatal(err)
		}
		return resp, string(body)
	}
	resp, _ := ask("/busy", "")
	fmt.Println(resp.StatusCode, "Retry-After:", resp.Header.Get("Retry-After"))
	resp, body := ask("/busy", "")
	fmt.Println(resp.StatusCode, body)
	resp, _ = ask("/old", "")
	fmt.Println(resp.StatusCode, "Location:", resp.Header.Get("Location"))
	resp, _ = ask("/same", `"v1"`)
	fmt.Println(resp.StatusCode, "ETag:", resp.Header.Get("ETag"))
	// Output:
	// 503 Retry-After: 120
	// 200 <p>now</p>
	// 301 Location: /new
	// 304 ETag: "v1"
}

// The audit catches a client that is not polite: two requests to one
// host with no rest between them make a short gap.
func ExampleAudit_Report() {
	farm := politetest.New(nil)
	defer farm.Close()
	if _, err := farm.AddSite(politetest.Site{Name: "a.test"}); err != nil {
		log.Fatal(err)
	}
	tr := &http.Transport{DialContext: farm.DialContext}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for _, path := range []string{"/1", "/2"} {
		resp, err := client.Get(farm.URL("a.test", path))
		if err != nil {
			log.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	rep := farm.Audit().Report(politetest.AtLeast(3 * time.Second))
	fmt.Println("polite:", rep.Polite())
	fmt.Println("short gaps:", len(rep.ShortGaps))
	for _, g := range rep.ShortGaps {
		fmt.Printf("%s %s then %s: rested under %v\n", g.Next.Host, g.Prev.Path, g.Next.Path, g.Want)
	}
	// Output:
	// polite: false
	// short gaps: 1
	// a.test /1 then /2: rested under 3s
}
