package politetest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// A farm of a few scripted hosts, a polite.Fetcher pointed at it, and the
// audit of what the hosts saw. Each host is asked for its robots.txt and
// one page, so the run takes one rest: about 3 s.
func Example() {
	farm := politetest.New(nil)
	defer farm.Close()
	for _, s := range []politetest.Site{
		{Name: "shop.test", Pages: map[string]politetest.Page{
			politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /cart\n"),
		}},
		{Name: "news.test", Latency: 50 * time.Millisecond, Pages: map[string]politetest.Page{
			"/today": {Body: []byte("<html><body><p>Nothing happened.</p></body></html>"),
				Header: http.Header{"Content-Type": {"text/html"}}},
		}},
		{Name: "gone.test", Pages: map[string]politetest.Page{"/old": {Status: http.StatusGone}}},
		{Name: "closed.test", Pages: map[string]politetest.Page{"/": {Status: http.StatusForbidden}}},
	} {
		if _, err := farm.AddSite(s); err != nil {
			log.Fatal(err)
		}
	}

	f, err := polite.New(polite.Config{
		Resolver:             farm.Resolver(), // the farm's names, not DNS
		AllowPrivateNetworks: true,            // the farm is on loopback
		Logger:               slog.New(slog.DiscardHandler),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	for _, u := range []string{
		farm.URL("shop.test", "/"), farm.URL("shop.test", "/cart"),
		farm.URL("news.test", "/today"), farm.URL("gone.test", "/old"), farm.URL("closed.test", "/"),
	} {
		if err := f.Add(ctx, u); err != nil {
			log.Fatal(err)
		}
	}
	var lines []string
	for r, err := range f.Results(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		what := fmt.Sprint(r.Status)
		switch {
		case errors.Is(r.Err, polite.ErrDisallowed):
			what = "disallowed"
		case errors.Is(r.Err, polite.ErrRefused):
			what = "refused"
		}
		lines = append(lines, politetest.ShortURL(r.URL)+" "+what)
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}

	rep := farm.Audit().Report(politetest.AtLeast(3 * time.Second))
	fmt.Println("requests:", rep.Requests, "addresses:", rep.Addresses)
	fmt.Println("overlaps:", rep.Overlaps, "short gaps:", len(rep.ShortGaps), "polite:", rep.Polite())
	fmt.Println("shop.test asked:", farm.Audit().Count("shop.test"))
	// Output:
	// closed.test/ refused
	// gone.test/old 410
	// news.test/today 200
	// shop.test/ 200
	// shop.test/cart disallowed
	// requests: 8 addresses: 4
	// overlaps: 0 short gaps: 0 polite: true
	// shop.test asked: 2
}

// The audit catches a client that is not polite: two requests to one
// host with no rest between them make a short gap.
func ExampleAudit_Report() {
	farm := politetest.New(nil)
	defer farm.Close()
	if _, err := farm.AddSite(politetest.Site{Name: "a.test"}); err != nil {
		log.Fatal(err)
	}
	// Any client reaches the farm by dialling what its Resolver says.
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		ips, err := farm.Resolver().LookupNetIP(ctx, "ip4", host)
		if err != nil {
			return nil, err
		}
		var d net.Dialer
		return d.DialContext(ctx, network, net.JoinHostPort(ips[0].String(), port))
	}
	tr := &http.Transport{DialContext: dial}
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
