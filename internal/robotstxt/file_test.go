package robotstxt

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// R7.1: the group's other lines (Content-Signal, Content-Usage) are kept for
// the signal reader, from the same records the matcher used.
func TestGroup(t *testing.T) {
	body := "Content-Signal: ai-train=no\n" +
		"User-agent: *\n" +
		"Content-Signal: search=yes, ai-input=no\n" +
		"Allow: /\n" +
		"Sitemap: https://example.com/s.xml\n" +
		"\n" +
		"User-agent: PoliteCrawler\n" +
		"Content-Usage: /blog/ train-ai=n\n" +
		"Disallow: /private\n" +
		"\n" +
		"User-agent: Other\n" +
		"Content-signal: ai-input=yes\n" +
		"\n" +
		"User-agent: politecrawler\n" +
		"Crawl-delay: 2\n"
	r := Parse([]byte(body))
	want := []Record{
		{7, KeyUserAgent, "PoliteCrawler"},
		{8, "content-usage", "/blog/ train-ai=n"},
		{9, KeyDisallow, "/private"},
		// Other and politecrawler share a group: Content-signal does not end
		// a run of User-agent lines.
		{11, KeyUserAgent, "Other"},
		{12, "content-signal", "ai-input=yes"},
		{14, KeyUserAgent, "politecrawler"},
		{15, KeyCrawlDelay, "2"},
	}
	if got := r.Group("PoliteCrawler"); !reflect.DeepEqual(got, want) {
		t.Errorf("Group(PoliteCrawler) = %+v, want %+v", got, want)
	}
	want = []Record{
		{2, KeyUserAgent, "*"},
		{3, "content-signal", "search=yes, ai-input=no"},
		{4, KeyAllow, "/"},
	}
	if got := r.Group("SomeBot"); !reflect.DeepEqual(got, want) {
		t.Errorf("Group(SomeBot) = %+v, want %+v", got, want)
	}
	if got := r.records[0]; got != (Record{1, "content-signal", "ai-train=no"}) {
		t.Errorf("the record before any group is not kept: %+v", got)
	}
	if got := Parse([]byte("User-agent: A\nDisallow: /\n")).Group("B"); got != nil {
		t.Errorf("no group applies, got %+v", got)
	}
}

// A 500 KiB file of hostile lines: parse memory stays proportional to the
// input, and matching every rule stays bounded (R5.2, R10.2).
func TestPathologicalFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for b.Len() < MaxBytes+1000 {
		b.WriteString("Disallow: /*a*a*a*a*a*a*a*a*b\nc:\n")
	}
	body := []byte(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := Parse(body)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 40*MaxBytes {
		t.Errorf("parsing %d bytes allocated %d bytes", len(body), alloc)
	}
	// A backtracking matcher would not end here (go test's -timeout).
	if !r.Allowed("PoliteCrawler", "/"+strings.Repeat("a", 4096)) {
		t.Error("matched")
	}
	// Many tiny lines: records only for the lines that hold a key.
	tiny := Parse([]byte(strings.Repeat("\n", MaxBytes)))
	if len(tiny.records) != 0 {
		t.Errorf("%d records from empty lines", len(tiny.records))
	}
}
