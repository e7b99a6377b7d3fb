package schedule

import "testing"

// An origin is keyed with its port always written, and its robots.txt URL
// leaves the scheme's default port out (R5.1).
func TestOriginKeyAndRobotsURL(t *testing.T) {
	for _, tt := range []struct{ raw, key, robots string }{
		{"https://Example.COM/a?b", "https://example.com:443", "https://example.com/robots.txt"},
		{"http://example.com:8080/", "http://example.com:8080", "http://example.com:8080/robots.txt"},
		{"http://[::1]/x", "http://[::1]:80", "http://[::1]/robots.txt"},
		{"https://[::1]:8443/x", "https://[::1]:8443", "https://[::1]:8443/robots.txt"},
	} {
		key, err := OriginKey(tt.raw)
		if err != nil || key != tt.key {
			t.Errorf("OriginKey(%q) = %q, %v; want %q", tt.raw, key, err, tt.key)
			continue
		}
		if got := robotsURL(key); got != tt.robots {
			t.Errorf("robotsURL(%q) = %q, want %q", key, got, tt.robots)
		}
	}
}
