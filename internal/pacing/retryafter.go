package pacing

import (
	"strings"
	"time"
)

// maxRetryAfter bounds a parsed Retry-After so that arithmetic on it
// cannot overflow; anything this long is far past any horizon.
const maxRetryAfter = 100 * 365 * 24 * time.Hour

// imfFixdate is the preferred HTTP-date form (RFC 9110 §5.6.7), the layout
// net/http calls TimeFormat.
const imfFixdate = "Mon, 02 Jan 2006 15:04:05 GMT"

// ParseRetryAfter reads a Retry-After value (RFC 9110 §10.2.3),
// delay-seconds or an HTTP-date counted from the Date header, else from
// now; a date not ahead of that, or anything not the grammar, is absent
// (R2.4). polite.ParseRetryAfter documents it in full.
func ParseRetryAfter(value, date string, now time.Time) (wait time.Duration, ok bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return 0, false
	}
	if isDigits(v) {
		// delay-seconds = 1*DIGIT; leading zeros are fine, size is capped.
		secs := 0.0
		for i := 0; i < len(v); i++ {
			secs = secs*10 + float64(v[i]-'0')
			if secs > maxRetryAfter.Seconds() {
				return maxRetryAfter, true
			}
		}
		return time.Duration(secs) * time.Second, true
	}
	at, ok := parseHTTPDate(v, now)
	if !ok {
		return 0, false
	}
	from := now
	if d, ok := parseHTTPDate(strings.TrimSpace(date), now); ok {
		from = d
	}
	wait = at.Sub(from)
	if wait <= 0 {
		return 0, false
	}
	return min(wait, maxRetryAfter), true
}

// parseHTTPDate accepts the three HTTP-date forms. For the two-digit years
// of RFC 850, a date more than 50 years ahead of now means the most recent
// past year with those digits (RFC 9110 §5.6.7).
func parseHTTPDate(v string, now time.Time) (time.Time, bool) {
	if v == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(imfFixdate, v); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.RFC850, v); err == nil {
		yy := t.Year() % 100
		year := now.Year() - now.Year()%100 + yy
		if year > now.Year()+50 {
			year -= 100
		}
		return t.AddDate(year-t.Year(), 0, 0), true
	}
	if t, err := time.Parse(time.ANSIC, v); err == nil {
		return t, true
	}
	return time.Time{}, false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
