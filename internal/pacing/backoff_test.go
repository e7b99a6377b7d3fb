package pacing

import (
	"testing"
	"time"
)

// R2.5: the backoff grows with each failure in a row, stays within its
// jitter bounds [d/2, d], and never passes the cap: 5 min by default,
// 30 min when raised.
func TestBackoffBoundsAndCaps(t *testing.T) {
	for _, ceiling := range []time.Duration{DefaultMaxBackoff, MaxBackoffLimit} {
		prevHigh := time.Duration(0)
		for n := 1; n <= 70; n++ {
			low, high := BackoffAfter(n, ceiling, 0), BackoffAfter(n, ceiling, 0.999999999)
			d := min(backoffBase<<min(n-1, 20), ceiling) // 10 s << 20 is far past any cap
			if low != d/2 || high > d || high < d-time.Millisecond {
				t.Fatalf("cap %v, failure %d: jitter range [%v, %v], want [%v, %v]", ceiling, n, low, high, d/2, d)
			}
			if high > ceiling {
				t.Fatalf("cap %v, failure %d: %v over the cap", ceiling, n, high)
			}
			if high < prevHigh {
				t.Fatalf("cap %v, failure %d: shrank from %v to %v", ceiling, n, prevHigh, high)
			}
			prevHigh = high
		}
		if prevHigh < ceiling-time.Millisecond {
			t.Errorf("cap %v never reached: %v", ceiling, prevHigh)
		}
	}
	if got := BackoffAfter(0, DefaultMaxBackoff, 0.5); got != 0 {
		t.Errorf("no failure, backoff %v", got)
	}
}

// R3.3: the cool-off grows with each stop: 6 h, 12 h, 24 h.
func TestCoolOffGrows(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 6 * time.Hour, 2: 12 * time.Hour, 3: 24 * time.Hour} {
		if got := CoolOffAfter(n, DefaultCoolOff); got != want {
			t.Errorf("stop %d: %v, want %v", n, got, want)
		}
	}
	if got := CoolOffAfter(1, 9*time.Hour); got != 9*time.Hour {
		t.Errorf("a raised cool-off: %v", got)
	}
	// A long cool-off saturates as stops pile up; it never wraps short.
	for n, prev := 1, time.Duration(0); n <= 40; n++ {
		got := CoolOffAfter(n, 1000*time.Hour)
		if got < prev || got < 1000*time.Hour {
			t.Fatalf("stop %d: cool-off %v after %v", n, got, prev)
		}
		prev = got
	}
}
