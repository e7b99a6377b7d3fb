package polite

import (
	"math"
	"testing"
	"time"
)

// R2.1–R2.3: each term, each cap, and who wins a tie.
func TestRestAfter(t *testing.T) {
	def := pacing{floor: MinRest, factor: MinDurationFactor}
	cases := []struct {
		name       string
		p          pacing
		last       time.Duration
		crawlDelay time.Duration
		want       Rest
	}{
		{"R2.1 fast response rests the floor", def, 10 * time.Millisecond, 0, Rest{3 * time.Second, RestFloor}},
		{"R2.1 zero duration", def, 0, 0, Rest{3 * time.Second, RestFloor}},
		{"R2.2 tie with the floor names the floor", def, 600 * time.Millisecond, 0, Rest{3 * time.Second, RestFloor}},
		{"R2.2 five times the duration", def, 2 * time.Second, 0, Rest{10 * time.Second, RestDuration}},
		{"R2.2 capped at 30s", def, 7 * time.Second, 0, Rest{30 * time.Second, RestDuration}},
		{"R2.2 cap holds for huge durations", def, 1 << 62, 0, Rest{30 * time.Second, RestDuration}},
		{"R2.2 raised factor", pacing{floor: MinRest, factor: 10}, 1 * time.Second, 0, Rest{10 * time.Second, RestDuration}},
		{"R2.3 crawl-delay beats floor", def, 0, 10 * time.Second, Rest{10 * time.Second, RestCrawlDelay}},
		{"R2.3 crawl-delay capped at 60s", def, 0, 10 * time.Minute, Rest{60 * time.Second, RestCrawlDelay}},
		{"R2.3 crawl-delay beats duration cap", def, time.Minute, 45 * time.Second, Rest{45 * time.Second, RestCrawlDelay}},
		{"R2.3 duration beats shorter crawl-delay", def, 4 * time.Second, 5 * time.Second, Rest{20 * time.Second, RestDuration}},
		{"R2.1 raised floor", pacing{floor: 20 * time.Second, factor: 5}, time.Second, 10 * time.Second, Rest{20 * time.Second, RestFloor}},
		{"R2.2 a huge factor saturates, never wraps", pacing{floor: MinRest, factor: 1 << 40}, 3 * time.Second, 0, Rest{30 * time.Second, RestDuration}},
		{"R2.2 a huge factor on a tiny duration", pacing{floor: MinRest, factor: math.MaxInt64 / 2}, 7, 0, Rest{30 * time.Second, RestDuration}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := restAfter(c.p, outcome{duration: c.last, crawlDelay: c.crawlDelay}); got != c.want {
				t.Errorf("restAfter(%+v, %v, %v) = %v, want %v", c.p, c.last, c.crawlDelay, got, c.want)
			}
		})
	}
}

// The first principle: no option lowers a floor; a value below is raised.
func TestSettleRaisesFloors(t *testing.T) {
	s, err := Config{MinRest: time.Millisecond, DurationFactor: 1, Timeout: 24 * time.Hour}.settle()
	if err != nil {
		t.Fatal(err)
	}
	if s.pacing.floor != MinRest || s.pacing.factor != MinDurationFactor {
		t.Errorf("pacing = %+v, want floor %v factor %d", s.pacing, MinRest, MinDurationFactor)
	}
	if s.timeout != MaxTimeout {
		t.Errorf("timeout = %v, want %v", s.timeout, MaxTimeout)
	}
	s, err = Config{MinRest: 7 * time.Second, DurationFactor: 8}.settle()
	if err != nil {
		t.Fatal(err)
	}
	if s.pacing.floor != 7*time.Second || s.pacing.factor != 8 {
		t.Errorf("more polite values were not kept: %+v", s.pacing)
	}
	z, _ := Config{}.settle()
	if z.maxInFlight != DefaultMaxInFlight || z.maxBody != DefaultMaxBodyBytes || z.timeout != DefaultTimeout || z.allowPrivate {
		t.Errorf("zero Config defaults = %+v", z)
	}
}
