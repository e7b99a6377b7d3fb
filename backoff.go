package polite

import (
	"math"
	"net/http"
	"strings"
	"time"
)

// Bounds of R2.4–R2.5 that no option can loosen.
const (
	// DefaultMaxBackoff caps the backoff after failures (R2.5).
	DefaultMaxBackoff = 5 * time.Minute
	// MaxBackoffLimit is the highest the cap may be raised to.
	MaxBackoffLimit = 30 * time.Minute
	// DefaultHorizon is the longest wait a host is kept waiting in a run;
	// a Retry-After beyond it parks the host (R2.4).
	DefaultHorizon = time.Hour
	// FailuresToStop is how many failures in a row stop a host (R3.2).
	FailuresToStop = 5
	// backoffBase is the backoff after the first failure, before jitter;
	// it doubles with each further failure in a row.
	backoffBase = 10 * time.Second
)

// maxRetryAfter bounds a parsed Retry-After so that arithmetic on it
// cannot overflow; anything this long is far past any horizon.
const maxRetryAfter = 100 * 365 * 24 * time.Hour

// ParseRetryAfter reads a Retry-After value (RFC 9110 §10.2.3): either
// delay-seconds, or an HTTP-date in any of the three forms a recipient
// must accept (IMF-fixdate, RFC 850, asctime). A date counts from the
// response's Date header when that is valid (the server's clock, so skew
// does not matter), else from now. A date that is not ahead of that — in
// the past, or equal to it, which asks for no wait at all — is absent
// (R2.4): ok is false, so a failure gets the growing backoff of R2.5
// rather than a wait of 0. So is anything else that is not the grammar:
// negative, fractional, empty, several values, garbage. Delay-seconds of
// 0 is the grammar: wait 0, ok.
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
	if t, err := time.Parse(http.TimeFormat, v); err == nil {
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

// backoffAfter is the wait after the n-th failure in a row (n ≥ 1) without
// Retry-After (R2.5): base·2^(n−1), capped, then jittered into its upper
// half, [d/2, d], so that hosts failing together do not return together,
// and the wait still grows with n. u is uniform in [0, 1).
func backoffAfter(n int, ceiling time.Duration, u float64) time.Duration {
	if n < 1 {
		return 0
	}
	d := ceiling
	if n-1 < 62 {
		if grown := float64(backoffBase) * math.Exp2(float64(n-1)); grown < float64(ceiling) {
			d = time.Duration(grown)
		}
	}
	half := d / 2
	return half + time.Duration(u*float64(d-half))
}
