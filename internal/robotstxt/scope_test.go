package robotstxt

import (
	"reflect"
	"testing"
)

// R7.1: a path-scoped value splits at the first SP or HTAB after its path.
func TestScope(t *testing.T) {
	tests := []struct{ value, path, rest string }{
		{"/blog/ train-ai=n", "/blog/", "train-ai=n"},
		{"/blog/\t \tai-use=n", "/blog/", "ai-use=n"},
		{"/only-a-path", "/only-a-path", ""},
		{"search=yes, ai-input=no", "", "search=yes, ai-input=no"},
		{"", "", ""},
	}
	for _, tt := range tests {
		path, rest := Record{Value: tt.value}.Scope()
		if path != tt.path || rest != tt.rest {
			t.Errorf("Scope(%q) = %q, %q; want %q, %q", tt.value, path, rest, tt.path, tt.rest)
		}
	}
}

// R7.1: the signal lines of a group are picked as rules are, the longest
// scope per key, and come back in file order.
func TestScoped(t *testing.T) {
	f := Parse([]byte("Content-Signal: /a/ ai-train=no\n" + // 1, before any group
		"Content-Signal: ai-input=no\n" + // 2, before any group, whole site
		"User-agent: PoliteCrawler\n" + // 3
		"Content-Usage: /blog/ train-ai=n\n" + // 4
		"Content-Signal: search=yes\n" + // 5: "/"
		"Content-Usage: /blog/ ai-use=y\n" + // 6: ties with 4
		"Content-Usage: train-ai=y\n" + // 7: "/", shorter than 4
		"Content-Signal: /blog/p*st search=no\n" + // 8: longer than 5
		"Disallow: /x\n" +
		"User-agent: *\n" +
		"Content-Signal: ai-input=yes\n"))
	if !f.HasSignalLines() || Parse([]byte("User-agent: *\nDisallow: /\n")).HasSignalLines() {
		t.Error("HasSignalLines is wrong")
	}
	path, _ := RequestPath("https://example.com/blog/post")
	lines := func(recs []Record) []int {
		var out []int
		for _, r := range recs {
			out = append(out, r.Line)
		}
		return out
	}
	if got := lines(f.Scoped("PoliteCrawler", path, KeyContentSignal, KeyContentUsage)); !reflect.DeepEqual(got, []int{4, 6, 8}) {
		t.Errorf("Scoped(/blog/post) lines %v, want [4 6 8]", got)
	}
	other, _ := RequestPath("/other")
	if got := lines(f.Scoped("PoliteCrawler", other, KeyContentSignal, KeyContentUsage)); !reflect.DeepEqual(got, []int{5, 7}) {
		t.Errorf("Scoped(/other) lines %v, want [5 7]", got)
	}
	if got := lines(f.Scoped("OtherBot", path, KeyContentSignal)); !reflect.DeepEqual(got, []int{11}) {
		t.Errorf("Scoped(OtherBot) lines %v, want [11]", got)
	}
	if got := lines(f.BeforeGroups(KeyContentSignal, path)); !reflect.DeepEqual(got, []int{2}) {
		t.Errorf("BeforeGroups(/blog/post) lines %v, want [2]", got)
	}
	a, _ := RequestPath("/a/b")
	if got := lines(f.BeforeGroups(KeyContentSignal, a)); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Errorf("BeforeGroups(/a/b) lines %v, want [1 2]", got)
	}
	if f.Scoped("PoliteCrawler", path) != nil {
		t.Error("Scoped with no keys returns records")
	}
	var none *File
	if none.HasSignalLines() || none.Scoped("x", "/", KeyContentSignal) != nil || none.BeforeGroups(KeyContentSignal, "/") != nil {
		t.Error("the nil *File has signal lines")
	}
}
