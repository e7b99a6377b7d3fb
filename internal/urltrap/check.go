package urltrap

import (
	"fmt"
	"strings"
	"time"
)

// Check reports whether a normalised URL looks like a trap by its shape
// alone, which trap, and a short reason naming the evidence ("date
// 2031-04-01 runs 5 years from today"). It returns ("", "", false) for a
// URL that looks like a page. now is the fetcher's clock, so that tests of
// calendars need not change with the year.
//
// The checks, cheapest and surest first:
//
//   - TooLong: more than l.MaxLength bytes (R10.2); checked first, so the
//     others never scan a huge string.
//   - TooDeep: more than l.MaxDepth path segments (a trailing '/' adds
//     none: "/a/b/" has two).
//   - SessionID: an ASP.NET cookieless session segment "(S(…))", which
//     Normalize cannot strip (see SessionID).
//   - RepeatingSegments: a path segment that is not all digits occurring
//     three or more times anywhere in the path ("/a/b/a/b/a/b",
//     "/x/x/x", "/p/q/p/r/p"). A relative link resolved against its own
//     page grows the path by the same segments each round, so the third
//     occurrence is the evidence; two ("/docs/docs/") happen on real
//     sites. Segments of digits are left out, because dates and ids
//     repeat innocently ("/2011/11/11/", "/tiles/3/3/3/").
//   - Calendar: a date in the path or query whose year is more than
//     l.CalendarYears from now's year, either way: calendars run forever
//     into the future and the past. A date is a 4-digit year from 1000 to
//     2999 in one of the forms: path segments /YYYY/MM/ or /YYYY/MM/DD/; a
//     path segment YYYY-MM or YYYY-MM-DD (optionally with an extension,
//     ".html"); a path segment YYYYMMDD; a query value that starts with
//     YYYY-MM, YYYY-MM-DD, YYYY/MM or YYYY/MM/DD; a query value YYYYMMDD;
//     a query parameter year= or yr= with a 4-digit value. A bare year in
//     the path does not count, nor a date inside a slug
//     ("/1998-03-12-my-post"): product ids and article titles look like
//     that. Old articles under dated paths ("/1998/03/12/story.html") do
//     count; a caller crawling an archive sets CalendarYears higher or
//     negative.
//
// A field of l that is zero means its default; a negative one turns its
// check off.
func Check(normalised string, now time.Time, l Limits) (Kind, string, bool) {
	l = l.withDefaults()
	if l.MaxLength >= 0 && len(normalised) > l.MaxLength {
		return TooLong, fmt.Sprintf("URL is %d bytes, limit %d", len(normalised), l.MaxLength), true
	}
	path, query := splitURL(normalised)

	// The segments, held on the stack in the common case.
	var buf [32]string
	segs := buf[:0]
	for rest := strings.TrimPrefix(path, "/"); rest != ""; {
		seg, more, next := nextSegment(rest)
		segs = append(segs, seg)
		if !more {
			break
		}
		rest = next
	}
	if l.MaxDepth >= 0 && len(segs) > l.MaxDepth {
		return TooDeep, fmt.Sprintf("path has %d segments, limit %d", len(segs), l.MaxDepth), true
	}
	for _, seg := range segs {
		if isCookielessSession(seg) {
			return SessionID, fmt.Sprintf("cookieless session segment %q", clip(seg)), true
		}
	}
	if seg, n := repeatedSegment(segs); n >= 3 {
		return RepeatingSegments, fmt.Sprintf("segment %q occurs %d times", clip(seg), n), true
	}
	if l.CalendarYears >= 0 {
		if d, ok := farDate(segs, query, now.Year(), l.CalendarYears); ok {
			return Calendar, d.reason(now.Year()), true
		}
	}
	return "", "", false
}

// splitURL returns the path and query of a normalised URL. It is lenient
// with input that is not normalised (no scheme, a fragment), so that Check
// never panics on what a caller hands it.
func splitURL(u string) (path, query string) {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		end := strings.IndexAny(u, "/?")
		if end < 0 {
			return "", ""
		}
		u = u[end:]
	}
	path, query, _ = strings.Cut(u, "?")
	return path, query
}

// isCookielessSession reports whether a segment is ASP.NET's cookieless
// state, "(S(x))" or several such as "(A(x)S(y)F(z))": one letter, then
// an id in parentheses, all in parentheses.
func isCookielessSession(seg string) bool {
	inner, ok := strings.CutPrefix(seg, "(")
	if !ok {
		return false
	}
	inner, ok = strings.CutSuffix(inner, ")")
	if !ok || inner == "" {
		return false
	}
	for inner != "" {
		if len(inner) < 4 || !isLetter(inner[0]) || inner[1] != '(' {
			return false
		}
		end := strings.IndexByte(inner, ')')
		if end < 3 || strings.IndexByte(inner[2:end], '(') >= 0 {
			return false
		}
		inner = inner[end+1:]
	}
	return true
}

// repeatedSegment returns the non-numeric, non-empty segment that occurs
// most often, and how often. Quadratic in the number of segments, which
// MaxDepth keeps small; past 64 segments it counts with a map instead.
func repeatedSegment(segs []string) (string, int) {
	best, bestN := "", 0
	if len(segs) > 64 {
		counts := make(map[string]int, len(segs))
		for _, s := range segs {
			if s == "" || allDigits(s) {
				continue
			}
			counts[s]++
			if n := counts[s]; n > bestN {
				best, bestN = s, n
			}
		}
		return best, bestN
	}
	for i, s := range segs {
		if s == "" || allDigits(s) {
			continue
		}
		n := 1
		for _, t := range segs[i+1:] {
			if t == s {
				n++
			}
		}
		if n > bestN {
			best, bestN = s, n
		}
	}
	return best, bestN
}

// date is a date found in a URL; month and day are 0 when absent.
type date struct{ year, month, day int }

// reason names the date and how far it runs from today's year.
func (d date) reason(thisYear int) string {
	var ev string
	switch {
	case d.day > 0:
		ev = fmt.Sprintf("%04d-%02d-%02d", d.year, d.month, d.day)
	case d.month > 0:
		ev = fmt.Sprintf("%04d-%02d", d.year, d.month)
	default:
		ev = fmt.Sprintf("%04d", d.year)
	}
	if d.year > thisYear {
		return fmt.Sprintf("date %s runs %d years from today", ev, d.year-thisYear)
	}
	return fmt.Sprintf("date %s runs %d years before today", ev, thisYear-d.year)
}

// farDate returns the first date in the path or query more than window
// years from thisYear.
func farDate(segs []string, query string, thisYear, window int) (date, bool) {
	far := func(d date) bool {
		diff := d.year - thisYear
		return diff > window || -diff > window
	}
	for i, seg := range segs {
		d, ok := segmentDate(seg)
		if !ok && isYear(seg) && i+1 < len(segs) {
			// /YYYY/MM/ and /YYYY/MM/DD/: a year alone may be an id, a year
			// and a month make a date.
			if m := smallNumber(segs[i+1], 12); m > 0 {
				d, ok = date{year: atoi(seg), month: m}, true
				if i+2 < len(segs) {
					d.day = smallNumber(segs[i+2], 31)
				}
			}
		}
		if ok && far(d) {
			return d, true
		}
	}
	var byKey date // from year= and month=, which may come in any order
	for q := query; q != ""; {
		piece, rest, _ := strings.Cut(q, "&")
		q = rest
		name, value, _ := strings.Cut(piece, "=")
		if d, ok := valueDate(value); ok {
			if far(d) {
				return d, true
			}
			continue
		}
		switch {
		case strings.EqualFold(name, "year"), strings.EqualFold(name, "yr"):
			if isYear(value) {
				byKey.year = atoi(value)
			}
		case strings.EqualFold(name, "month"), strings.EqualFold(name, "mon"):
			byKey.month = smallNumber(value, 12)
		}
	}
	if byKey.year > 0 && far(byKey) {
		return byKey, true
	}
	return date{}, false
}

// segmentDate parses a path segment that is a date by itself: YYYYMMDD,
// YYYY-MM or YYYY-MM-DD, the last two optionally with an extension.
func segmentDate(seg string) (date, bool) {
	if len(seg) == 8 && allDigits(seg) {
		return compactDate(seg)
	}
	d, n, ok := leadingDate(seg, '-')
	if !ok {
		return date{}, false
	}
	if rest := seg[n:]; rest != "" && (rest[0] != '.' || strings.IndexByte(rest, '-') >= 0) {
		return date{}, false // a slug or something else, not a date page
	}
	return d, true
}

// valueDate parses a query value that is a date: YYYYMMDD, or one that
// starts with YYYY-MM[-DD] or YYYY/MM[/DD] and goes on with a non-digit
// (a time, "T10:00", is fine).
func valueDate(v string) (date, bool) {
	if len(v) == 8 && allDigits(v) {
		return compactDate(v)
	}
	for _, sep := range []byte{'-', '/'} {
		if d, _, ok := leadingDate(v, sep); ok {
			return d, true
		}
	}
	return date{}, false
}

// leadingDate parses YYYY<sep>MM[<sep>DD] at the start of s, not followed
// by a digit, and returns how many bytes it took.
func leadingDate(s string, sep byte) (date, int, bool) {
	if len(s) < 6 || !isYear(s[:4]) || s[4] != sep {
		return date{}, 0, false
	}
	d := date{year: atoi(s[:4])}
	n := 5
	if d.month, n = number(s, n, 12); d.month == 0 {
		return date{}, 0, false
	}
	if n+1 < len(s) && s[n] == sep {
		if day, m := number(s, n+1, 31); day > 0 {
			d.day, n = day, m
		}
	}
	if n < len(s) && isDigit(s[n]) {
		return date{}, 0, false
	}
	return d, n, true
}

// number parses one or two digits at s[i:] as a value from 1 to max and
// returns it with the index after it; 0 when there is none.
func number(s string, i, max int) (int, int) {
	j := i
	for j < len(s) && j < i+2 && isDigit(s[j]) {
		j++
	}
	if j == i || (j < len(s) && isDigit(s[j])) {
		return 0, i
	}
	if v := atoi(s[i:j]); v >= 1 && v <= max {
		return v, j
	}
	return 0, i
}

// smallNumber parses a whole string of one or two digits from 1 to max;
// 0 otherwise.
func smallNumber(s string, max int) int {
	if v, n := number(s, 0, max); n == len(s) {
		return v
	}
	return 0
}

// compactDate parses YYYYMMDD; month and day must be valid, which rules
// out most 8-digit ids.
func compactDate(s string) (date, bool) {
	if !isYear(s[:4]) {
		return date{}, false
	}
	m, d := atoi(s[4:6]), atoi(s[6:8])
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return date{}, false
	}
	return date{year: atoi(s[:4]), month: m, day: d}, true
}

// isYear: four digits from 1000 to 2999, the only years taken as dates.
func isYear(s string) bool {
	return len(s) == 4 && (s[0] == '1' || s[0] == '2') && allDigits(s)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// atoi parses a short run of digits already checked by the caller.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
