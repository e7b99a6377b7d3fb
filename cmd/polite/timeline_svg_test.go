package main

import (
	"encoding/xml"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
)

func TestTimelineSVG(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := netip.MustParseAddr("127.20.0.1"), netip.MustParseAddr("127.20.0.2")
	reqs := []polite.RequestEvent{
		{URL: "http://x.test/robots.txt", Addr: a, Robots: true, Status: 404, Started: t0, Duration: 10 * time.Millisecond, Rest: polite.Rest{Wait: 3 * time.Second}},
		{URL: "http://x.test/p", Addr: a, Status: 200, Started: t0.Add(3 * time.Second), Duration: time.Second, Rest: polite.Rest{Wait: 5 * time.Second, Term: polite.RestDuration}},
		{URL: "http://y.test/p", Addr: b, Status: 429, Started: t0, Duration: 5 * time.Millisecond, Rest: polite.Rest{Wait: 8 * time.Second, Term: polite.RestRetryAfter}},
	}
	svg := timelineSVG(reqs)
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	for _, want := range []string{"127.20.0.1", "127.20.0.2", "x.test", "y.test", `fill="#718096"`, `fill="#c53030"`, `fill="#2b6cb0"`, "retry-after", "duration"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the picture lacks %q", want)
		}
	}
	if n := strings.Count(svg, `fill="url(#rest)"><title>`); n != 3 {
		t.Errorf("%d rests drawn, want 3", n)
	}
}
