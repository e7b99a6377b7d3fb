package polite

import (
	"fmt"
	"net/http"
	"net/mail"
	"net/url"
	"strings"

	"github.com/politecrawler/polite/internal/signals"
)

// The default identity (R4.1). A Config that names no crawler sends exactly
// DefaultName/DefaultVersion (+DefaultInfoURL).
const (
	DefaultName    = "PoliteCrawler"
	DefaultVersion = "0.1.0"
	DefaultInfoURL = "https://mark1russell7.github.io/crawler/bot/"
)

// identity is the crawler's identity as site owners see it (R4), made of
// Config's Name, Version, InfoURL and Contact: the one way to say who the
// fetcher is; Fetcher.UserAgent returns the header it makes. The name
// is the product token that robots.txt groups are matched against (R4.4);
// the info URL is a page that tells a site owner who runs the crawler and how
// to stop it; the contact, when set, is an address that reaches a person and
// is sent both in the User-Agent and as the From header (R4.2).
//
// The zero identity stands for the default:
//
//	PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)
type identity struct {
	Name    string // product token: letters, '-' and '_' only (RFC 9309 §2.2.1)
	Version string // optional; no spaces, '/', '(' or ')'
	InfoURL string // absolute http(s) URL; required with a custom Name
	Contact string // optional mail address, e.g. "crawler@example.org"
}

// impostorTokens are names of browsers, browser engines and other
// organisations' crawlers. A name containing one (case-insensitively) is an
// impersonation. Short tokens that occur inside ordinary words ("edge" in
// "knowledge") are checked as whole names instead, in impostorNames.
var impostorTokens = []string{
	"mozilla", "chrome", "chromium", "safari", "firefox", "applewebkit", "webkit",
	"gecko", "opera", "msie", "trident", "headless", "puppeteer", "playwright",
	"googlebot", "google", "bingbot", "bingpreview", "msnbot", "adidxbot", "slurp",
	"duckduckbot", "duckassist", "baiduspider", "yandex", "sogou", "seznambot",
	"facebookexternalhit", "facebot", "meta-externalagent", "twitterbot",
	"linkedinbot", "pinterest", "slackbot", "discordbot", "telegrambot",
	"whatsapp", "applebot", "gptbot", "chatgpt", "oai-searchbot", "claudebot",
	"claude", "anthropic", "perplexity", "ccbot", "bytespider", "amazonbot",
	"petalbot", "semrush", "ahrefs", "mj12bot", "dotbot", "ia_archiver",
	"archive_org", "exabot", "cohere", "diffbot", "yisouspider", "mistralai",
}

// impostorNames are tokens too short to search for inside a name.
var impostorNames = []string{"edge", "edg", "yeti", "naver", "ie"}

// withDefaults fills the default identity when no name is given.
func (u identity) withDefaults() identity {
	if u.Name == "" && u.Version == "" && u.InfoURL == "" {
		u.Name, u.Version, u.InfoURL = DefaultName, DefaultVersion, DefaultInfoURL
	}
	return u
}

// validate reports whether the identity is well formed and honest (R4.3).
// The zero identity is valid: it stands for the default.
func (u identity) validate() error {
	u = u.withDefaults()
	if u.Name == "" {
		return fmt.Errorf("%w: a version or info URL needs a name", ErrUserAgent)
	}
	for _, c := range u.Name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return fmt.Errorf("%w: name %q: only letters, '-' and '_' may be used in a product token", ErrUserAgent, u.Name)
		}
	}
	lower := strings.ToLower(u.Name)
	for _, tok := range impostorTokens {
		if strings.Contains(lower, tok) {
			return fmt.Errorf("%w: name %q contains %q", ErrImpersonation, u.Name, tok)
		}
	}
	for _, tok := range impostorNames {
		if lower == tok {
			return fmt.Errorf("%w: name %q is not a name of its own", ErrImpersonation, u.Name)
		}
	}
	if strings.HasSuffix(lower, "-unrestricted") {
		return fmt.Errorf("%w: name %q: the -unrestricted suffix is set by the fetcher, never by the caller", ErrUserAgent, u.Name)
	}
	if strings.ContainsAny(u.Version, " \t/()\";,") || !isPrintableASCII(u.Version) {
		return fmt.Errorf("%w: version %q", ErrUserAgent, u.Version)
	}
	if u.InfoURL == "" {
		return fmt.Errorf("%w: name %q needs an info URL: site owners must be able to learn who runs the crawler", ErrUserAgent, u.Name)
	}
	if p, err := url.Parse(u.InfoURL); err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" ||
		strings.ContainsAny(u.InfoURL, " ();") || !isPrintableASCII(u.InfoURL) {
		return fmt.Errorf("%w: info URL %q: want an absolute http(s) URL", ErrUserAgent, u.InfoURL)
	}
	if u.Contact != "" {
		a, err := mail.ParseAddress(u.Contact)
		if err != nil || a.Name != "" || a.Address != u.Contact || !isPrintableASCII(u.Contact) {
			return fmt.Errorf("%w: contact %q: want a bare mail address such as crawler@example.org", ErrUserAgent, u.Contact)
		}
	}
	return nil
}

// String is the User-Agent header value:
// "Name/Version (+InfoURL)" or, with a contact, "Name/Version (+InfoURL; Contact)".
func (u identity) String() string {
	u = u.withDefaults()
	var b strings.Builder
	b.WriteString(u.Name)
	if u.Version != "" {
		b.WriteString("/")
		b.WriteString(u.Version)
	}
	b.WriteString(" (+")
	b.WriteString(u.InfoURL)
	if u.Contact != "" {
		b.WriteString("; ")
		b.WriteString(u.Contact)
	}
	b.WriteString(")")
	return b.String()
}

// product is the product token robots.txt groups are matched against (R4.4).
func (u identity) product() string { return u.withDefaults().Name }

// unrestricted is the identity of requests to hosts whose robots.txt the
// run does not read (R5.6): the same, with "-unrestricted" on the name.
func (u identity) unrestricted() identity {
	u = u.withDefaults()
	u.Name += "-unrestricted"
	return u
}

// from is the From header value: the contact, or "" when there is none.
func (u identity) from() string { return u.Contact }

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// requestHeaders are what a request says of the fetcher: the honest
// User-Agent, marked when robots.txt is not read (R4, R5.6), From when a
// contact address is configured (R4.2), and Accept (R8.1).
type requestHeaders struct {
	ua, uaUnrestricted, from, accept string
}

func newRequestHeaders(ua, uaUnrestricted, from, accept string) requestHeaders {
	return requestHeaders{ua: ua, uaUnrestricted: uaUnrestricted, from: from, accept: accept}
}

// set writes into h, the header map of one request (http.NewRequest
// makes a fresh one each time), the headers of a request of the kind
// given, and a conditional request's validators when either is set
// (R6.1). Only these headers: no cookies, no Authorization (R8.2).
func (rh *requestHeaders) set(h http.Header, unrestricted, robots bool, ifNoneMatch, ifModifiedSince string) {
	ua, accept := rh.ua, rh.accept
	if unrestricted {
		ua = rh.uaUnrestricted
	}
	if robots {
		accept = "text/plain"
	}
	h.Set("User-Agent", ua)
	h.Set("Accept", accept)
	if rh.from != "" {
		h.Set("From", rh.from)
	}
	if ifNoneMatch != "" {
		h.Set("If-None-Match", ifNoneMatch)
	}
	if ifModifiedSince != "" {
		h.Set("If-Modified-Since", ifModifiedSince)
	}
}

// Response header keys read on every response, in canonical form. The
// header maps of responses are keyed canonically, so these are looked up
// by map index: Get and Values would put the key in canonical form again
// on every call. TestHeaderKeysAreCanonical checks each one.
const (
	keyContentType    = "Content-Type"
	keyRetryAfter     = "Retry-After"
	keyDate           = "Date"
	keyLocation       = "Location"
	keyContentUsage   = signals.KeyContentUsage // the signals' keys, read in internal/signals
	keyContentSignal  = signals.KeyContentSignal
	keyXRobotsTag     = signals.KeyXRobotsTag
	keyTDMReservation = signals.KeyTDMReservation
	keyTDMPolicy      = signals.KeyTDMPolicy
)

// headerValue is h.Get(key) for a key in canonical form.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
