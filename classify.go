package polite

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/politecrawler/polite/internal/htmlpass"
)

// Kind is what a response means to a polite fetcher.
type Kind uint8

// The kinds of response, and what the fetcher does about each.
const (
	KindNone          Kind = iota // no response came: the request failed, or was never made
	KindOK                        // content: keep it
	KindNotModified               // 304: the stored copy is current (R6)
	KindRedirect                  // 3xx with a Location: a new request, on its host's budget (R8.3)
	KindNotFound                  // 404, 410 and other 4xx that are not refusals: no page here
	KindRateLimited               // 429: the host limits the rate; wait Retry-After or back off (R2.4–R2.5)
	KindServerFailure             // 5xx: back off; five in a row stop the host (R2.5, R3.2)
	KindRefused                   // 402, 403 or a challenge page: stop the host for the run (R3.1)
)

var kindNames = [...]string{
	KindNone:          "none",
	KindOK:            "ok",
	KindNotModified:   "not-modified",
	KindRedirect:      "redirect",
	KindNotFound:      "not-found",
	KindRateLimited:   "rate-limited",
	KindServerFailure: "server-failure",
	KindRefused:       "refused",
}

var kindMeanings = [...]string{
	KindNone:          "no response: the request failed before a status came, or was never made",
	KindOK:            "content: the page is kept",
	KindNotModified:   "not modified: the stored copy is still current",
	KindRedirect:      "a redirect: the new URL is a new request, paced by its own host",
	KindNotFound:      "no page here: nothing to retry",
	KindRateLimited:   "the host limits the rate: the next request waits for Retry-After, or for a growing backoff with jitter",
	KindServerFailure: "the server is failing: the next request waits for Retry-After, or for a growing backoff with jitter; five failures in a row stop the host",
	KindRefused:       "the host refuses the crawler: it is stopped for the run, and nothing more is asked of it",
}

// Meaning says in a sentence what the fetcher does with a response of
// this kind.
func (k Kind) Meaning() string {
	if int(k) < len(kindMeanings) {
		return kindMeanings[k]
	}
	return ""
}

// String returns the kind's name, such as "rate-limited".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Verdict is what Classify makes of a response (R3.5). The zero Verdict,
// of Kind KindNone, is that of no response at all: it never reads as ok.
type Verdict struct {
	Kind Kind
	// RetryAfter is the wait the server asked for, when it sent a valid
	// Retry-After; HasRetryAfter says whether it did. A date in the past
	// or garbage counts as none (R2.4). Without one, a failure is followed
	// by a growing backoff.
	RetryAfter    time.Duration
	HasRetryAfter bool
	// Challenge is set when the response is a bot check or CAPTCHA page;
	// Vendor names who served it when that is known.
	Challenge bool
	Vendor    string
	// Evidence is what the verdict rests on: the status, a header, or a
	// marker in the body.
	Evidence string
	// Note says what the fetcher does next, in a sentence; "" when there
	// is nothing to add.
	Note string
}

// Failure reports whether the verdict counts towards the failures in a row
// that back a host off and, at five, stop it (R2.5, R3.2).
func (v Verdict) Failure() bool {
	return v.Kind == KindRateLimited || v.Kind == KindServerFailure
}

// String reads like "rate-limited, wait 2m0s from Retry-After, note none".
func (v Verdict) String() string {
	var b strings.Builder
	b.WriteString(v.Kind.String())
	switch {
	case v.HasRetryAfter:
		fmt.Fprintf(&b, ", wait %v from Retry-After", v.RetryAfter)
	case v.Failure():
		b.WriteString(", wait a growing backoff with jitter")
	}
	if v.Evidence != "" {
		fmt.Fprintf(&b, ", evidence %s", v.Evidence)
	}
	note := v.Note
	if note == "" {
		note = "none"
	}
	fmt.Fprintf(&b, ", note %s", note)
	return b.String()
}

// classifyPrefix is how much of a body Classify reads: challenge pages are
// small, and their markers sit near the top.
const classifyPrefix = 64 << 10

// Classify says what a response means (R3.5): given its status, headers and
// the start of its body, whether it is content, a redirect, a page that is
// not there, a rate limit or server failure (and how long to wait), or a
// refusal that stops the host: 402, 403, 999 (a bot block), or a challenge
// page — a bot check or CAPTCHA interstitial, whatever its status. A normal
// page that merely embeds a CAPTCHA in a form is content. A status outside
// 200–599 is a server failure; a 3xx without a Location is no page.
// Classify reads at most the first 64 KiB of body and never fails.
func Classify(status int, header http.Header, body []byte) Verdict {
	return classifyAt(status, header, body, time.Now())
}

func classifyAt(status int, header http.Header, body []byte, now time.Time) Verdict {
	if header == nil {
		header = http.Header{}
	}
	if len(body) > classifyPrefix {
		body = body[:classifyPrefix]
	}
	if c, ok := detectChallenge(status, header, body); ok {
		return Verdict{Kind: KindRefused, Challenge: true, Vendor: c.vendor, Evidence: c.evidence,
			Note: "a bot check or CAPTCHA: the host is stopped for the run; the fetcher never solves or evades one"}
	}
	v := Verdict{Evidence: statusEvidence(status)}
	v.RetryAfter, v.HasRetryAfter = ParseRetryAfter(headerValue(header, keyRetryAfter), headerValue(header, keyDate), now)
	if len(header[keyRetryAfter]) > 1 {
		v.RetryAfter, v.HasRetryAfter = 0, false // several values: not the grammar
	}
	switch {
	case status == http.StatusPaymentRequired:
		v.Kind = KindRefused
		v.Note = "payment required: the host is stopped for the run; the fetcher does not pay"
		if p := header.Get("Crawler-Price"); p != "" {
			v.Evidence += ", crawler-price: " + p
		}
	case status == http.StatusForbidden:
		v.Kind = KindRefused
		v.Note = "forbidden: the host is stopped for the run; no retry with another identity"
	case status == statusBotBlock:
		v.Kind = KindRefused
		v.Note = "status 999, a known bot block: the host is stopped for the run"
	case status < 200 || status > 599:
		v.Kind = KindServerFailure
		v.Note = "a status outside HTTP's classes: counted as a server failure"
	case status == http.StatusTooManyRequests:
		v.Kind = KindRateLimited
	case status >= 500 && status <= 599:
		v.Kind = KindServerFailure
	case status == http.StatusNotModified:
		v.Kind = KindNotModified
	case isRedirect(status) && headerValue(header, keyLocation) != "":
		v.Kind = KindRedirect
	case isRedirect(status):
		v.Kind = KindNotFound
		v.Note = "a redirect without a Location: nothing to follow"
	case status >= 300 && status <= 399:
		// 300 offers a choice, 305 asks for a proxy (never used, R10.2),
		// the others are unassigned: none is a redirect to follow.
		v.Kind = KindNotFound
		v.Note = "a 3xx that is not 301, 302, 303, 307 or 308: nothing is followed"
	case status >= 400 && status <= 499:
		v.Kind = KindNotFound
		if status == http.StatusUnauthorized {
			v.Note = "needs a login: the fetcher never logs in"
		}
	default:
		v.Kind = KindOK
	}
	if !v.Failure() {
		v.RetryAfter, v.HasRetryAfter = 0, false // only 429 and 5xx set the wait (R2.4)
	}
	return v
}

// statusBotBlock is the status some large sites answer crawlers with
// instead of 403 (LinkedIn's 999): a refusal (R3.1).
const statusBotBlock = 999

// challenge is what detectChallenge found.
type challenge struct{ vendor, evidence string }

// decisiveHeaders appear only on mitigated responses: a challenge,
// whatever the status and body (challenges.md, rule 1). The names are in
// canonical form: they are looked up by map index.
var decisiveHeaders = []struct{ name, vendor string }{
	{"Cf-Mitigated", "Cloudflare"},
	{"X-Amzn-Waf-Action", "AWS WAF"},
	{"X-Vercel-Mitigated", "Vercel"},
}

// marker is a body signature of a challenge or block page. Shell markers
// are specific to the interstitial itself and count on a tiny 200/202 page
// too; the others count only with a refusal-ish status.
type marker struct {
	vendor, text string
	shell        bool
}

var challengeMarkers = []marker{
	{"Cloudflare", "/cdn-cgi/challenge-platform/", true},
	{"Cloudflare", "window._cf_chl_opt", true},
	{"Cloudflare", "__cf_chl_", true},
	{"Cloudflare", "<title>Just a moment...</title>", true},
	{"Cloudflare", "Attention Required! | Cloudflare", false},
	{"Cloudflare", "Sorry, you have been blocked", false},
	{"Cloudflare", "Enable JavaScript and cookies to continue", true},
	{"Akamai", "errors.edgesuite.net", false},
	{"Akamai", "You don't have permission to access", false},
	{"DataDome", "captcha-delivery.com", false},
	{"PerimeterX", "px-captcha", true},
	{"PerimeterX", "window._pxAppId", true},
	{"PerimeterX", "_pxCustomLogo", true},
	{"PerimeterX", "Access to this page has been denied", false},
	{"PerimeterX", "perimeterx.net/whywasiblocked", false},
	{"Imperva", "_Incapsula_Resource", true},
	{"Imperva", "Incapsula incident ID", false},
	{"Imperva", "Pardon Our Interruption", true},
	{"Sucuri", "Sucuri Website Firewall", false},
	{"Sucuri", "sucuri_cloudproxy", true},
	{"AWS WAF", "awswaf.com", true},
	{"Vercel", "Vercel Security Checkpoint", true},
	{"Google", "unusual traffic from your computer network", false},
	{"", "Checking your browser", true},
	{"", "Verify you are human", true},
	{"", "Are you a robot", true},
}

// captchaWidgets are embeds that are a challenge only when the CAPTCHA is
// the page: with a refusal status, or on a tiny page titled as a check.
var captchaWidgets = []string{
	"g-recaptcha", "recaptcha/api.js", "h-captcha", "hcaptcha.com/1/api.js",
	"cf-turnstile", "challenges.cloudflare.com/turnstile",
}

var checkTitles = []string{"security check", "verify you are human", "are you a robot", "human verification", "bot check", "captcha"}

// Text thresholds: challenge shells carry little readable text.
const (
	refusalTextMax = 2000 // with a refusal-ish status
	shellTextMax   = 500  // with 200 or 202
)

// statusEvidences are the evidence strings of the status codes, made
// once, when the first response is judged: every response has one.
var statusEvidences = sync.OnceValue(func() *[600]string {
	var e [600]string
	for code := 100; code < len(e); code++ {
		e[code] = "status " + strconv.Itoa(code)
	}
	return &e
})

func statusEvidence(status int) string {
	if status >= 100 && status < 600 {
		return statusEvidences()[status]
	}
	return "status " + strconv.Itoa(status)
}

func refusalish(status int) bool {
	switch status {
	case 401, 403, 405, 406, 429, 503:
		return true
	}
	return false
}

// detectChallenge follows challenges.md: decisive vendor headers first;
// then body markers, only with a refusal-ish status or on a tiny 200/202
// shell; CDN identity headers and cookies are never proof.
func detectChallenge(status int, header http.Header, body []byte) (challenge, bool) {
	for _, h := range decisiveHeaders {
		if v := headerValue(header, h.name); v != "" {
			return challenge{h.vendor, fmt.Sprintf("%s: %s", strings.ToLower(h.name), v)}, true
		}
	}
	if len(body) == 0 {
		return challenge{}, false
	}
	refusal := refusalish(status)
	shellStatus := status == http.StatusOK || status == http.StatusAccepted
	if !refusal && !shellStatus {
		return challenge{}, false
	}
	// The page's readable text is measured only once a marker is found:
	// most pages have none, and this runs on every response.
	text := -1
	textLen := func() int {
		if text < 0 {
			text = htmlpass.TextLen(body)
		}
		return text
	}
	// On a 200 or 202, only a shell's markers can tell: the rest are
	// not looked for.
	want := shellMarkers
	if refusal {
		want = allMarkers
	}
	found := scanMarkers(body, want)
	for i, m := range challengeMarkers {
		if found&markerBit(i) == 0 {
			continue
		}
		if refusal && textLen() < refusalTextMax {
			return challenge{m.vendor, fmt.Sprintf("status %d, body %q", status, m.text)}, true
		}
		if shellStatus && m.shell && textLen() < shellTextMax {
			return challenge{m.vendor, fmt.Sprintf("status %d, tiny page, body %q", status, m.text)}, true
		}
	}
	for i, w := range captchaWidgets {
		if found&widgetBit(i) == 0 {
			continue
		}
		if refusal && textLen() < refusalTextMax {
			return challenge{"", fmt.Sprintf("status %d, CAPTCHA %q", status, w)}, true
		}
		if shellStatus && textLen() < shellTextMax && titledAsCheck(body) {
			return challenge{"", fmt.Sprintf("status %d, tiny page titled as a check, CAPTCHA %q", status, w)}, true
		}
	}
	return challenge{}, false
}

func titledAsCheck(body []byte) bool {
	lower := bytes.ToLower(body)
	i := bytes.Index(lower, []byte("<title"))
	if i < 0 {
		return false
	}
	j := bytes.Index(lower[i:], []byte("</title>"))
	if j < 0 {
		return false
	}
	title := lower[i : i+j]
	for _, t := range checkTitles {
		if bytes.Contains(title, []byte(t)) {
			return true
		}
	}
	return false
}
