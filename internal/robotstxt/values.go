package robotstxt

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// AgentToken returns the product token a User-agent value names: "*" for
// "*" (also when white space and more follow, as Google reads it), else the
// leading run of letters, '-' and '_' (RFC 9309 section 2.2.1), so
// "Googlebot/2.1" names Googlebot. It is "" when the value names no token.
func AgentToken(v string) string {
	if len(v) > 0 && v[0] == '*' && (len(v) == 1 || isSpace(v[1])) {
		return "*"
	}
	i := 0
	for i < len(v) && (v[i] >= 'a' && v[i] <= 'z' || v[i] >= 'A' && v[i] <= 'Z' || v[i] == '-' || v[i] == '_') {
		i++
	}
	return v[:i]
}

// parseCrawlDelay reads a Crawl-delay value: a decimal number of seconds,
// fractions allowed. Anything else (a sign, a unit, an exponent, "inf") is
// not a delay. A delay too long for a Duration is the longest Duration.
func parseCrawlDelay(v string) (time.Duration, bool) {
	digits, dots := 0, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return 0, false
		}
	}
	if digits == 0 || dots > 1 {
		return 0, false
	}
	secs, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, false
	}
	if secs >= float64(math.MaxInt64)/float64(time.Second) {
		return math.MaxInt64, true
	}
	return time.Duration(math.Round(secs * float64(time.Second))), true
}

// Scope splits the value of a path-scoped line (Content-Usage, Content-Signal)
// into the path it applies to and the rest: a value that starts with '/' has
// a path up to the first SP or HTAB; otherwise the path is "" (the whole
// site) and the whole value is the rest.
func (r Record) Scope() (path, rest string) {
	v := r.Value
	if !strings.HasPrefix(v, "/") {
		return "", v
	}
	end := strings.IndexAny(v, " \t")
	if end < 0 {
		return v, ""
	}
	return v[:end], strings.TrimLeft(v[end:], " \t")
}
