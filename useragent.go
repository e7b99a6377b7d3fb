package polite

import (
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
)

// The default identity (R4.1). A Config that names no crawler sends exactly
// DefaultName/DefaultVersion (+DefaultInfoURL).
const (
	DefaultName    = "PoliteCrawler"
	DefaultVersion = "0.1.0"
	DefaultInfoURL = "https://mark1russell7.github.io/crawler/bot/"
)

// ErrUserAgent is returned by New when the crawler's identity is malformed:
// a name that is not a robots.txt product token, a version with spaces, an
// info URL that is not an absolute http(s) URL, or a contact that is not a
// mail address.
var ErrUserAgent = errors.New("polite: invalid user agent")

// ErrImpersonation is returned by New when the crawler's name contains a
// browser's or another company's bot token (R4.3): a polite crawler says
// who it is.
var ErrImpersonation = errors.New("polite: user agent name pretends to be a browser or another bot")

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
