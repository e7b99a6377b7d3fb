package polite

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// maxRobotsLine is how many bytes of one line are read; the rest of the line
// is ignored. It is Google's limit (eight times the 2,083-byte URL of old
// browsers, less a terminating byte), kept so long lines cut where Google's
// cut them.
const maxRobotsLine = 2083*8 - 1

// tokenizeRobots reads body into records, one per line that holds a key and
// a value, in file order. This is the only pass over the bytes (R5.1): the
// matcher and any other reader work from the records. The records' strings
// share one copy of the body, so memory stays proportional to its size.
func tokenizeRobots(body []byte) []robotsRecord {
	text := robotsText(body)
	text = skipRobotsBOM(text)
	var recs []robotsRecord
	line := 0
	for len(text) > 0 {
		end := strings.IndexAny(text, "\r\n")
		raw := text
		if end < 0 {
			text = ""
		} else {
			raw = text[:end]
			next := end + 1
			if text[end] == '\r' && next < len(text) && text[next] == '\n' {
				next++ // CRLF ends one line, not two
			}
			text = text[next:]
		}
		line++
		if len(raw) > maxRobotsLine {
			raw = raw[:maxRobotsLine]
		}
		if rec, ok := parseRobotsLine(raw); ok {
			rec.line = line
			recs = append(recs, rec)
		}
	}
	return recs
}

// robotsText copies the part of body that is parsed: all of it, or up to the
// last line end within MaxRobotsBytes when body reaches the limit (a body of
// exactly MaxRobotsBytes may be a cut one: its unfinished last line is not
// read either).
func robotsText(body []byte) string {
	if len(body) >= MaxRobotsBytes {
		body = body[:MaxRobotsBytes]
		end := len(body) - 1
		for end >= 0 && body[end] != '\n' && body[end] != '\r' {
			end--
		}
		body = body[:end+1]
	}
	return string(body)
}

// skipRobotsBOM drops a UTF-8 byte order mark, or the first bytes of one, at the
// start of the text, as Google's parser does.
func skipRobotsBOM(s string) string {
	const bom = "\xef\xbb\xbf"
	i := 0
	for i < len(bom) && i < len(s) && s[i] == bom[i] {
		i++
	}
	return s[i:]
}

// parseRobotsLine reads one line: a comment starts at '#' anywhere; the key
// ends at the first colon; key and value are trimmed. A known key may be
// followed by white space instead of a colon when the line has exactly two
// words (Google does the same for any key; a colon-less line under an
// unknown key is more often prose or HTML than a directive, so it is
// dropped). A line without a key is dropped.
func parseRobotsLine(raw string) (robotsRecord, bool) {
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw = raw[:i]
	}
	raw = trimRobotsSpace(raw)
	if raw == "" {
		return robotsRecord{}, false
	}
	if c := strings.IndexByte(raw, ':'); c >= 0 {
		key := trimRobotsSpace(raw[:c])
		// A key has no white space, except for the "user agent" typo; "Sitemap
		// http://x" is a colon-less line whose value holds the colon.
		if key != "" && (indexRobotsSpace(key) < 0 || strings.EqualFold(key, "user agent")) {
			return robotsRecord{key: robotsKey(key), value: trimRobotsSpace(raw[c+1:])}, true
		}
	}
	sp := indexRobotsSpace(raw)
	if sp < 0 {
		return robotsRecord{}, false
	}
	key, value := raw[:sp], trimRobotsSpace(raw[sp:])
	if indexRobotsSpace(value) >= 0 {
		return robotsRecord{}, false // more than two words
	}
	k := robotsKey(key)
	switch k {
	case keyUserAgent, keyAllow, keyDisallow, keySitemap, keyCrawlDelay:
		return robotsRecord{key: k, value: value}, true
	}
	return robotsRecord{}, false
}

// robotsKeys maps the beginnings of keys, lower-case, to the key they spell,
// checked in order. Like Google's parser, a key matches when it begins with
// one of these, so "Sitemaps" is a Sitemap and "Disallowed" a Disallow. The
// misspellings are Google's, and "crawldelay" as many parsers accept it.
var robotsKeys = []struct{ prefix, key string }{
	{"user-agent", keyUserAgent},
	{"useragent", keyUserAgent},
	{"user agent", keyUserAgent},
	{"allow", keyAllow},
	{"disallow", keyDisallow},
	{"dissallow", keyDisallow},
	{"dissalow", keyDisallow},
	{"disalow", keyDisallow},
	{"diasllow", keyDisallow},
	{"disallaw", keyDisallow},
	{"sitemap", keySitemap},
	{"site-map", keySitemap},
	{"crawl-delay", keyCrawlDelay},
	{"crawldelay", keyCrawlDelay},
}

// robotsKey returns the canonical spelling of a known key, or the key in
// lower case.
func robotsKey(key string) string {
	for _, k := range robotsKeys {
		if len(key) >= len(k.prefix) && strings.EqualFold(key[:len(k.prefix)], k.prefix) {
			return k.key
		}
	}
	return strings.ToLower(key)
}

// isRobotsSpace reports ASCII white space other than line ends, which never
// reach a line.
func isRobotsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f'
}

func trimRobotsSpace(s string) string {
	for len(s) > 0 && isRobotsSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isRobotsSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func indexRobotsSpace(s string) int {
	for i := 0; i < len(s); i++ {
		if isRobotsSpace(s[i]) {
			return i
		}
	}
	return -1
}

// agentToken returns the product token a User-agent value names: "*" for
// "*" (also when white space and more follow, as Google reads it), else the
// leading run of letters, '-' and '_' (RFC 9309 section 2.2.1), so
// "Googlebot/2.1" names Googlebot. It is "" when the value names no token.
func agentToken(v string) string {
	if len(v) > 0 && v[0] == '*' && (len(v) == 1 || isRobotsSpace(v[1])) {
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
