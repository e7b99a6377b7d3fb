package robotstxt

import (
	"testing"
)

func TestRequestPath(t *testing.T) {
	tests := []struct{ url, path, only string }{
		{"", "/", "/"},
		{"http://www.example.com", "/", "/"},
		{"http://www.example.com/", "/", "/"},
		{"http://www.example.com/a", "/a", "/a"},
		{"http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/", "/a/b"},
		{"http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f", "/a/b"},
		{"https://user@host:8080/a?b", "/a?b", "/a"},
		{"http://host?q=1", "/?q=1", "/"},
		{"//host/a/b", "/a/b", "/a/b"},
		{"/a/b?c", "/a/b?c", "/a/b"},
		{"?q", "/?q", "/"},
		{"example.com/a", "/a", "/a"},
		{"/a#/b", "/a", "/a"},
		{"/%7Efoo/caf%c3%a9", "/~foo/caf%C3%A9", "/~foo/caf%C3%A9"},
		{"/a*b$", "/a%2Ab%24", "/a%2Ab%24"},
		{"/robots.txt?x=1", "/robots.txt?x=1", "/robots.txt"},
	}
	for _, tt := range tests {
		path, only := RequestPath(tt.url)
		if path != tt.path || only != tt.only {
			t.Errorf("RequestPath(%q) = %q, %q; want %q, %q", tt.url, path, only, tt.path, tt.only)
		}
	}
}

// R5.1: percent-encoding compared in canonical form (RFC 9309 section 2.2.2).
func TestCanonical(t *testing.T) {
	tests := []struct {
		in      string
		pattern string // as a pattern
		path    string // as a URL path
	}{
		{"/a/b", "/a/b", "/a/b"},
		{"/%7Efoo", "/~foo", "/~foo"},
		{"/%41%2d%5F", "/A-_", "/A-_"},
		{"/%2f%3a", "/%2F%3A", "/%2F%3A"},
		{"/café", "/caf%C3%A9", "/caf%C3%A9"},
		{"/a b", "/a%20b", "/a%20b"},
		{"/100%", "/100%25", "/100%25"},
		{"/%zz", "/%25zz", "/%25zz"},
		{"/a|b{c}", "/a%7Cb%7Bc%7D", "/a%7Cb%7Bc%7D"},
		{"/*.php$", "/*.php$", "/%2A.php%24"},
		{"/a$b$", "/a%24b$", "/a%24b%24"},
		{"/%2A", "/%2A", "/%2A"},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := canonical(tt.in, false); got != tt.pattern {
			t.Errorf("canonical(%q, pattern) = %q, want %q", tt.in, got, tt.pattern)
		}
		if got := canonical(tt.in, true); got != tt.path {
			t.Errorf("canonical(%q, path) = %q, want %q", tt.in, got, tt.path)
		}
	}
}

func TestPatternMatches(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/", true},
		{"/a", "/abc", true},
		{"/a$", "/a", true},
		{"/a$", "/ab", false},
		{"*", "/x", true},
		{"*$", "/x", true},
		{"$", "/", false},
		{"/*", "/", true},
		{"/a*", "/a", true},
		{"/a*b", "/axxb", true},
		{"/a*b", "/xab", false},
		{"/a*b$", "/ab/b", true},
		{"/a*b$", "/ab/bc", false},
		{"/a**b", "/ab", true},
		{"/*a*a*b", "/aaab", true},
		{"/*a*a*b", "/ab", false},
		{"/*ab$", "/abab", true},
		{"/a*ba$", "/aba", true},
		{"/a*ab$", "/ab", false}, // the last piece may not overlap the first
		{"private", "/private", false},
	}
	for _, tt := range tests {
		if got := patternMatches(tt.pattern, tt.path); got != tt.want {
			t.Errorf("patternMatches(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}
