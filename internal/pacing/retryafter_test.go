package pacing

import (
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		value, date string
		wait        time.Duration
		ok          bool
	}{
		{"120", "", 120 * time.Second, true},
		{" 7 ", "", 7 * time.Second, true},
		{"0", "", 0, true},
		{"000030", "", 30 * time.Second, true},
		{"99999999999999999999999", "", maxRetryAfter, true},
		{"-5", "", 0, false},
		{"1.5", "", 0, false},
		{"", "", 0, false},
		{"  ", "", 0, false},
		{"soon", "", 0, false},
		{"120, 30", "", 0, false},
		{"+120", "", 0, false},
		{"0x10", "", 0, false},
		// IMF-fixdate, from the response's Date header: the server's clock.
		{"Thu, 01 Jan 2026 00:02:00 GMT", "Thu, 01 Jan 2026 00:00:00 GMT", 2 * time.Minute, true},
		// No Date header: from now.
		{"Sun, 29 Nov 2026 12:01:30 GMT", "", 90 * time.Second, true},
		// A garbage Date header is ignored: from now.
		{"Sun, 29 Nov 2026 12:01:30 GMT", "yesterday", 90 * time.Second, true},
		// RFC 850 and asctime, which recipients must accept.
		{"Sunday, 29-Nov-26 12:10:00 GMT", "", 10 * time.Minute, true},
		{"Sun Nov 29 12:00:45 2026", "", 45 * time.Second, true},
		// A date in the past counts as absent (R2.4): the backoff of
		// R2.5 applies, not a wait of 0.
		{"Thu, 01 Jan 2026 00:00:00 GMT", "", 0, false},
		{"Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 29 Nov 2026 12:00:00 GMT", 0, false},
		// Past by the server's clock, though ahead of ours: absent.
		{"Sun, 29 Nov 2026 12:01:00 GMT", "Sun, 29 Nov 2026 12:05:00 GMT", 0, false},
		// A date equal to the Date header, or to now, asks for no wait at
		// all: absent too.
		{"Sun, 29 Nov 2026 12:05:00 GMT", "Sun, 29 Nov 2026 12:05:00 GMT", 0, false},
		{"Sun, 29 Nov 2026 12:00:00 GMT", "", 0, false},
		// One second ahead is a wait.
		{"Sun, 29 Nov 2026 12:00:01 GMT", "", time.Second, true},
		// RFC 850 two-digit year more than 50 years ahead means the past.
		{"Friday, 01-Jan-77 00:00:00 GMT", "", 0, false},
		{"Mon, 32 Jan 2026 00:00:00 GMT", "", 0, false},
	}
	for _, c := range cases {
		wait, ok := ParseRetryAfter(c.value, c.date, now)
		if wait != c.wait || ok != c.ok {
			t.Errorf("ParseRetryAfter(%q, %q) = %v, %v; want %v, %v", c.value, c.date, wait, ok, c.wait, c.ok)
		}
	}
}

// The RFC 850 year rule: 50 years ahead is still the future; 51 is the past.
func TestRFC850Century(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for yy, want := range map[string]int{"76": 2076, "77": 1977, "30": 2030, "00": 2000, "99": 1999} {
		at, ok := parseHTTPDate("Monday, 01-Jan-"+yy+" 00:00:00 GMT", now)
		if !ok || at.Year() != want {
			t.Errorf("year %s: %v %v, want %d", yy, at, ok, want)
		}
	}
}

// FuzzRetryAfter: any value and Date give a non-negative, bounded wait,
// never a panic, and never a wait of 0 from a date.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "-5", "1.5", "", "Thu, 01 Jan 2026 00:02:00 GMT",
		"Sunday, 29-Nov-26 12:10:00 GMT", "Sun Nov 29 12:00:45 2026", "99999999999999999999"} {
		f.Add(s, "Thu, 01 Jan 2026 00:00:00 GMT")
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, value, date string) {
		wait, ok := ParseRetryAfter(value, date, now)
		if wait < 0 || wait > maxRetryAfter || (!ok && wait != 0) {
			t.Fatalf("ParseRetryAfter(%q, %q) = %v, %v", value, date, wait, ok)
		}
		// Only delay-seconds can ask for no wait: a date that is not
		// ahead counts as absent (R2.4).
		if ok && wait == 0 && !isDigits(strings.TrimSpace(value)) {
			t.Fatalf("ParseRetryAfter(%q, %q) = 0, true for a date", value, date)
		}
	})
}
