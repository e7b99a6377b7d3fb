package robotstxt

import (
	"testing"
)

func TestAgentToken(t *testing.T) {
	for in, want := range map[string]string{
		"Googlebot":           "Googlebot",
		"Googlebot/2.1":       "Googlebot",
		"Googlebot-Image":     "Googlebot-Image",
		"Foo_Bar baz":         "Foo_Bar",
		"*":                   "*",
		"* everyone":          "*",
		"*bot":                "",
		"ツ":                   "",
		"":                    "",
		"PoliteCrawler/0.1.0": "PoliteCrawler",
	} {
		if got := AgentToken(in); got != want {
			t.Errorf("AgentToken(%q) = %q, want %q", in, got, want)
		}
	}
}
