package pacing

import (
	"math"
	"testing"
	"time"
)

// R2.1–R2.3: each term, each cap, and who wins a tie.
func TestRestAfter(t *testing.T) {
	def := Policy{Floor: MinRest, Factor: MinDurationFactor}
	cases := []struct {
		name       string
		p          Policy
		last       time.Duration
		crawlDelay time.Duration
		want       Rest
	}{
		{"R2.1 fast response rests the floor", def, 10 * time.Millisecond, 0, Rest{3 * time.Second, Floor}},
		{"R2.1 zero duration", def, 0, 0, Rest{3 * time.Second, Floor}},
		{"R2.2 tie with the floor names the floor", def, 600 * time.Millisecond, 0, Rest{3 * time.Second, Floor}},
		{"R2.2 five times the duration", def, 2 * time.Second, 0, Rest{10 * time.Second, Duration}},
		{"R2.2 capped at 30s", def, 7 * time.Second, 0, Rest{30 * time.Second, Duration}},
		{"R2.2 cap holds for huge durations", def, 1 << 62, 0, Rest{30 * time.Second, Duration}},
		{"R2.2 raised factor", Policy{Floor: MinRest, Factor: 10}, 1 * time.Second, 0, Rest{10 * time.Second, Duration}},
		{"R2.3 crawl-delay beats floor", def, 0, 10 * time.Second, Rest{10 * time.Second, CrawlDelay}},
		{"R2.3 crawl-delay capped at 60s", def, 0, 10 * time.Minute, Rest{60 * time.Second, CrawlDelay}},
		{"R2.3 crawl-delay beats duration cap", def, time.Minute, 45 * time.Second, Rest{45 * time.Second, CrawlDelay}},
		{"R2.3 duration beats shorter crawl-delay", def, 4 * time.Second, 5 * time.Second, Rest{20 * time.Second, Duration}},
		{"R2.1 raised floor", Policy{Floor: 20 * time.Second, Factor: 5}, time.Second, 10 * time.Second, Rest{20 * time.Second, Floor}},
		{"R2.2 a huge factor saturates, never wraps", Policy{Floor: MinRest, Factor: 1 << 40}, 3 * time.Second, 0, Rest{30 * time.Second, Duration}},
		{"R2.2 a huge factor on a tiny duration", Policy{Floor: MinRest, Factor: math.MaxInt64 / 2}, 7, 0, Rest{30 * time.Second, Duration}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := RestAfter(c.p, Outcome{Duration: c.last, CrawlDelay: c.crawlDelay}); got != c.want {
				t.Errorf("RestAfter(%+v, %v, %v) = %v, want %v", c.p, c.last, c.crawlDelay, got, c.want)
			}
		})
	}
}
