package robotstxt

import (
	"strings"
	"testing"
)

// Google's ID_LinesNumbersAreCountedCorrectly: CR, LF and CRLF each end a
// line (RFC 9309 section 2.2, R5.1), and line numbers agree.
func TestLineEnds(t *testing.T) {
	files := map[string]string{
		"unix":       "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
		"dos":        "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
		"mac":        "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
		"no final":   "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
		"mixed":      "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
		"mixed CRCR": "User-Agent: foo\r\nAllow: /some/path\r\rUser-Agent: bar\n\nDisallow: /",
	}
	for name, body := range files {
		recs := Lex([]byte(body))
		if len(recs) != 4 || recs[3].Line != 6 {
			t.Errorf("%s: %d records, last on line %d; want 4, line 6: %+v", name, len(recs), recs[len(recs)-1].Line, recs)
		}
		d := Parse([]byte(body)).Decide("bar", "/x")
		if d.Allowed || d.Line != 6 {
			t.Errorf("%s: bar /x: %+v, want disallowed by line 6", name, d)
		}
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line, key, value string
		ok               bool
	}{
		{"User-agent: Foo", KeyUserAgent, "Foo", true},
		{"  Disallow :  /a b  ", KeyDisallow, "/a b", true},
		{"Disallow: /a # comment", KeyDisallow, "/a", true},
		{"Disallow:/a#b", KeyDisallow, "/a", true},
		{"# Disallow: /", "", "", false},
		{"Disallow:", KeyDisallow, "", true},
		{"Disallow /tmp", KeyDisallow, "/tmp", true}, // Google: colon-less, two words
		{"Disallow /a /b", "", "", false},            // three words
		{"Disallow /a:b", KeyDisallow, "/a:b", true}, // the colon is in the value
		{"Foo bar", "", "", false},                   // colon-less unknown key
		{"Sitemap http://example.com/s.xml", KeySitemap, "http://example.com/s.xml", true},
		{"Sitemap: http://example.com/s.xml", KeySitemap, "http://example.com/s.xml", true},
		{"Site-map: /s.xml", KeySitemap, "/s.xml", true},
		{"user agent: Foo", KeyUserAgent, "Foo", true},
		{"user agent Foo", "", "", false},
		{"Content-Signal: search=yes, ai-train=no", "content-signal", "search=yes, ai-train=no", true},
		{"CONTENT-USAGE: /blog/ train-ai=n", "content-usage", "/blog/ train-ai=n", true},
		{"Crawl-Delay: 2.5", KeyCrawlDelay, "2.5", true},
		{"crawldelay 3", KeyCrawlDelay, "3", true},
		{": value", "", "", false},
		{"<html><body>", "", "", false},
		{"\t\v\f", "", "", false},
	}
	for _, tt := range tests {
		rec, ok := parseLine(tt.line)
		if ok != tt.ok || rec.Key != tt.key || rec.Value != tt.value {
			t.Errorf("parseLine(%q) = %q %q %v, want %q %q %v", tt.line, rec.Key, rec.Value, ok, tt.key, tt.value, tt.ok)
		}
	}
}

// Google's GoogleOnly_LineTooLong: a line is read up to 16,663 bytes.
func TestLongLine(t *testing.T) {
	// Google's test builds a value of this length; the 16,663 bytes kept of
	// "disallow: " + long + "/qux" end just after long's final "/".
	longLen := (maxLine + 1) - len("/x/") - len("disallow: ") + len("\n")
	long := "/x/" + strings.Repeat("a", longLen-len("/x/"))
	r := Parse([]byte("user-agent: FooBot\ndisallow: " + long + "/qux\n"))
	if !r.Allowed("FooBot", "/fux") {
		t.Error("/fux disallowed")
	}
	if r.Allowed("FooBot", long+"/fux") {
		t.Error("the cut rule does not match")
	}
	longLen = (maxLine + 1) - len("/x/") - len("allow: ") + len("\n")
	longA := "/x/" + strings.Repeat("a", longLen-len("/x/"))
	longB := "/x/" + strings.Repeat("b", longLen-len("/x/"))
	r = Parse([]byte("user-agent: FooBot\ndisallow: /\nallow: " + longA + "/qux\nallow: " + longB + "/qux\n"))
	if r.Allowed("FooBot", "/") {
		t.Error("/ allowed")
	}
	if !r.Allowed("FooBot", longA+"/qux") || !r.Allowed("FooBot", longB+"/fux") {
		t.Error("the cut allow rules do not match")
	}
}
