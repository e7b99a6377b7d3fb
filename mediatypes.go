package polite

import (
	"fmt"
	"net/http"
	"strings"
)

// The fetcher reads pages, not everything (R8.1): HTML always, other media
// types only when the caller names them in Config.Types.

// htmlTypes are always read.
var htmlTypes = []string{"text/html", "application/xhtml+xml"}

// mediaTypes is the set of types a fetcher reads, and the Accept header
// that asks for them.
type mediaTypes struct {
	exact  map[string]bool // "application/pdf"
	prefix []string        // "image/" for "image/*"
	accept string
}

// settleTypes checks Config.Types: each "type/subtype" or "type/*".
func settleTypes(extra []string) (mediaTypes, error) {
	m := mediaTypes{exact: map[string]bool{}}
	accept := []string{"text/html", "application/xhtml+xml;q=0.9"}
	for _, t := range htmlTypes {
		m.exact[t] = true
	}
	for _, raw := range extra {
		t := strings.ToLower(strings.TrimSpace(raw))
		major, minor, ok := strings.Cut(t, "/")
		if !ok || major == "" || minor == "" || major == "*" || strings.ContainsAny(t, " ;,") {
			return mediaTypes{}, fmt.Errorf("%w: media type %q: want type/subtype or type/*", ErrConfig, raw)
		}
		if minor == "*" {
			m.prefix = append(m.prefix, major+"/")
		} else {
			m.exact[t] = true
		}
		accept = append(accept, t+";q=0.8")
	}
	m.accept = strings.Join(accept, ",")
	return m, nil
}

// allows reports whether a Content-Type value names a type that is read.
// Only the type matters, not its parameters: it is cut out by hand, since
// this runs on every response.
func (m mediaTypes) allows(contentType string) (string, bool) {
	t, _, _ := strings.Cut(contentType, ";")
	t = strings.TrimSpace(t)
	if hasUpper(t) {
		t = strings.ToLower(t)
	}
	if m.exact[t] {
		return t, true
	}
	for _, p := range m.prefix {
		if strings.HasPrefix(t, p) {
			return t, true
		}
	}
	return t, false
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// sniffLen is how much of a body without Content-Type is read to tell
// what it is (as http.DetectContentType does).
const sniffLen = 512

// typeOf is the response's media type: as sent, or sniffed from the first
// bytes when the server sent none.
func typeOf(h http.Header, first []byte) string {
	if ct := headerValue(h, keyContentType); ct != "" {
		return ct
	}
	return http.DetectContentType(first)
}
