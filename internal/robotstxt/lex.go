package robotstxt

import "strings"

// MaxBytes is how much of a robots.txt body is read: 500 KiB, the least RFC
// 9309 (section 2.5) lets a crawler read (R5.2).
const MaxBytes = 500 << 10

// maxLine is how many bytes of one line are read; the rest of the line is
// ignored. It is Google's limit (eight times the 2,083-byte URL of old
// browsers, less a terminating byte), kept so long lines cut where Google's
// cut them.
const maxLine = 2083*8 - 1

// Record is one line of robots.txt that holds a key and a value. The records
// are the one reading of the file: the matcher groups them, and a reader of
// other lines (content signals, R7.1) walks them too.
type Record struct {
	Line  int    // 1-based line number
	Key   string // lower-case; the canonical spelling for known keys
	Value string // as written, trimmed of white space and comment
}

// Known record keys, in their canonical spelling.
const (
	KeyUserAgent  = "user-agent"  // starts or extends a group
	KeyAllow      = "allow"       // a rule
	KeyDisallow   = "disallow"    // a rule
	KeySitemap    = "sitemap"     // belongs to no group (R5.4)
	KeyCrawlDelay = "crawl-delay" // not in RFC 9309; feeds R2.3
)

// The keys of the content-signal lines read for R7.1, as records hold them
// (lower-case): their values are scoped to a path (Record.Scope).
const (
	KeyContentSignal = "content-signal" // Cloudflare's Content-Signal
	KeyContentUsage  = "content-usage"  // AIPREF's Content-Usage
)

// Lex reads body into records, one per line that holds a key and a value, in
// file order. This is the only pass over the bytes (R5.1): the matcher and
// any other reader work from the records. The records' strings share one
// copy of the body, so memory stays proportional to its size. Only the first
// MaxBytes are read, cut at the last line end within them.
func Lex(body []byte) []Record {
	text := readText(body)
	text = skipBOM(text)
	var recs []Record
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
		if len(raw) > maxLine {
			raw = raw[:maxLine]
		}
		if rec, ok := parseLine(raw); ok {
			rec.Line = line
			recs = append(recs, rec)
		}
	}
	return recs
}

// readText copies the part of body that is parsed: all of it, or up to the
// last line end within MaxBytes when body reaches the limit (a body of
// exactly MaxBytes may be a cut one: its unfinished last line is not read
// either).
func readText(body []byte) string {
	if len(body) >= MaxBytes {
		body = body[:MaxBytes]
		end := len(body) - 1
		for end >= 0 && body[end] != '\n' && body[end] != '\r' {
			end--
		}
		body = body[:end+1]
	}
	return string(body)
}

// skipBOM drops a UTF-8 byte order mark, or the first bytes of one, at the
// start of the text, as Google's parser does.
func skipBOM(s string) string {
	const bom = "\xef\xbb\xbf"
	i := 0
	for i < len(bom) && i < len(s) && s[i] == bom[i] {
		i++
	}
	return s[i:]
}

// parseLine reads one line: a comment starts at '#' anywhere; the key ends at
// the first colon; key and value are trimmed. A known key may be followed by
// white space instead of a colon when the line has exactly two words (Google
// does the same for any key; a colon-less line under an unknown key is more
// often prose or HTML than a directive, so it is dropped). A line without a
// key is dropped.
func parseLine(raw string) (Record, bool) {
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw = raw[:i]
	}
	raw = trimSpace(raw)
	if raw == "" {
		return Record{}, false
	}
	if c := strings.IndexByte(raw, ':'); c >= 0 {
		key := trimSpace(raw[:c])
		// A key has no white space, except for the "user agent" typo; "Sitemap
		// http://x" is a colon-less line whose value holds the colon.
		if key != "" && (indexSpace(key) < 0 || strings.EqualFold(key, "user agent")) {
			return Record{Key: canonicalKey(key), Value: trimSpace(raw[c+1:])}, true
		}
	}
	sp := indexSpace(raw)
	if sp < 0 {
		return Record{}, false
	}
	key, value := raw[:sp], trimSpace(raw[sp:])
	if indexSpace(value) >= 0 {
		return Record{}, false // more than two words
	}
	k := canonicalKey(key)
	switch k {
	case KeyUserAgent, KeyAllow, KeyDisallow, KeySitemap, KeyCrawlDelay:
		return Record{Key: k, Value: value}, true
	}
	return Record{}, false
}

// keySpellings maps the beginnings of keys, lower-case, to the key they
// spell, checked in order. Like Google's parser, a key matches when it
// begins with one of these, so "Sitemaps" is a Sitemap and "Disallowed" a
// Disallow. The misspellings are Google's, and "crawldelay" as many parsers
// accept it.
var keySpellings = []struct{ prefix, key string }{
	{"user-agent", KeyUserAgent},
	{"useragent", KeyUserAgent},
	{"user agent", KeyUserAgent},
	{"allow", KeyAllow},
	{"disallow", KeyDisallow},
	{"dissallow", KeyDisallow},
	{"dissalow", KeyDisallow},
	{"disalow", KeyDisallow},
	{"diasllow", KeyDisallow},
	{"disallaw", KeyDisallow},
	{"sitemap", KeySitemap},
	{"site-map", KeySitemap},
	{"crawl-delay", KeyCrawlDelay},
	{"crawldelay", KeyCrawlDelay},
}

// canonicalKey returns the canonical spelling of a known key, or the key in
// lower case.
func canonicalKey(key string) string {
	for _, k := range keySpellings {
		if len(key) >= len(k.prefix) && strings.EqualFold(key[:len(k.prefix)], k.prefix) {
			return k.key
		}
	}
	return strings.ToLower(key)
}

// isSpace reports ASCII white space other than line ends, which never reach
// a line.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f'
}

func trimSpace(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func indexSpace(s string) int {
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			return i
		}
	}
	return -1
}
