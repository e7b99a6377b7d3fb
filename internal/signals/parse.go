package signals

import "strings"

// This file reads the syntax of content signals (R7.1); read.go gathers
// them and signal.go says what they mean. reference/content-signals.md has
// the syntax; the RFC 9651 Dictionaries of Content-Usage are internal/sfv's.

// contentSignalPairs reads a Cloudflare Content-Signal value,
// "search=yes, ai-input=no": comma-separated key=value pairs, spaces
// optional. Keys and values are returned in lower case, as written
// otherwise; a pair without '=' is skipped.
func contentSignalPairs(v string) [][2]string {
	var out [][2]string
	for part := range strings.SplitSeq(v, ",") {
		k, val, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		val = strings.ToLower(strings.TrimSpace(val))
		if k != "" && val != "" {
			out = append(out, [2]string{k, val})
		}
	}
	return out
}

// Directive is one directive of a robots meta tag or X-Robots-Tag header:
// its name in lower case, and the value after ':' for those that take one
// ("max-snippet:0").
type Directive struct{ Name, Value string }

// valuedDirectives are the robots directives written "name: value", so
// that "max-snippet: 0" is not read as the name of a crawler.
var valuedDirectives = map[string]bool{
	"max-snippet": true, "max-image-preview": true, "max-video-preview": true,
	"unavailable_after": true,
}

// Directives reads a comma-separated list of robots directives as Google
// documents them ("noindex, nofollow", "max-snippet:0"), names compared
// without case. With scoped (the X-Robots-Tag header), a part
// "name: directive" whose name is not a directive names the crawler the
// directives from there on speak to ("googlebot: nosnippet"): they apply
// to us only when the name is our product token. A header value without a
// name speaks to every crawler.
func Directives(v, token string, scoped bool) []Directive {
	var out []Directive
	ours := true
	for part := range strings.SplitSeq(v, ",") {
		part = strings.TrimSpace(part)
		name, value, hasColon := strings.Cut(part, ":")
		name = strings.ToLower(strings.TrimSpace(name))
		value = strings.TrimSpace(value)
		if hasColon && scoped && !valuedDirectives[name] && isProductToken(name) {
			ours = token != "" && strings.EqualFold(name, token)
			part = value
			name, value, hasColon = strings.Cut(part, ":")
			name = strings.ToLower(strings.TrimSpace(name))
			value = strings.TrimSpace(value)
		}
		if !ours || name == "" {
			continue
		}
		if !hasColon {
			value = ""
		}
		out = append(out, Directive{name, value})
	}
	return out
}

// isProductToken reports a crawler name as robots.txt and X-Robots-Tag
// write it: letters, digits, '-' and '_'.
func isProductToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
