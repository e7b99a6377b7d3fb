package polite

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/politecrawler/polite/internal/challenge"
	"github.com/politecrawler/polite/internal/pacing"
)

// What a response means (R3.5), and the waits that follow a failure
// (R2.4–R2.5).

// ResponseKind is what a response means to a polite fetcher.
type ResponseKind uint8

// The kinds of response, and what the fetcher does about each.
const (
	ResponseNone          ResponseKind = iota // no response came: the request failed, or was never made
	ResponseOK                                // content: keep it
	ResponseNotModified                       // 304: the stored copy is current (R6)
	ResponseRedirect                          // 3xx with a Location: a new request, on its host's budget (R8.3)
	ResponseNotFound                          // 404, 410 and other 4xx that are not refusals: no page here
	ResponseRateLimited                       // 429: the host limits the rate; wait Retry-After or back off (R2.4–R2.5)
	ResponseServerFailure                     // 5xx: back off; five in a row stop the host (R2.5, R3.2)
	ResponseRefused                           // 402, 403 or a challenge page: stop the host for the run (R3.1)
)

var kindNames = [...]string{
	ResponseNone:          "none",
	ResponseOK:            "ok",
	ResponseNotModified:   "not-modified",
	ResponseRedirect:      "redirect",
	ResponseNotFound:      "not-found",
	ResponseRateLimited:   "rate-limited",
	ResponseServerFailure: "server-failure",
	ResponseRefused:       "refused",
}

var kindMeanings = [...]string{
	ResponseNone:          "no response: the request failed before a status came, or was never made",
	ResponseOK:            "content: the page is kept",
	ResponseNotModified:   "not modified: the stored copy is still current",
	ResponseRedirect:      "a redirect: the new URL is a new request, paced by its own host",
	ResponseNotFound:      "no page here: nothing to retry",
	ResponseRateLimited:   "the host limits the rate: the next request waits for Retry-After, or for a growing backoff with jitter",
	ResponseServerFailure: "the server is failing: the next request waits for Retry-After, or for a growing backoff with jitter; five failures in a row stop the host",
	ResponseRefused:       "the host refuses the crawler: it is stopped for the run, and nothing more is asked of it",
}

// Meaning says in a sentence what the fetcher does with a response of
// this kind.
func (k ResponseKind) Meaning() string {
	if int(k) < len(kindMeanings) {
		return kindMeanings[k]
	}
	return ""
}

// String returns the kind's name, such as "rate-limited".
func (k ResponseKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ResponseKind(%d)", uint8(k))
}

// Verdict is what Classify makes of a response (R3.5). The zero Verdict,
// of Kind ResponseNone, is that of no response at all: it never reads as ok.
type Verdict struct {
	Kind          ResponseKind
	RetryAfter    time.Duration // the wait a valid Retry-After asked for (R2.4)
	HasRetryAfter bool          // a valid Retry-After came
	Challenge     bool          // a bot check or CAPTCHA page (R3.1)
	Vendor        string        // who served the challenge, when known
	Evidence      string        // what the verdict rests on: the status, a header, a marker
	Note          string        // what the fetcher does next, in a sentence
}

// Failure reports whether the verdict counts towards the failures in a row
// that back a host off and, at five, stop it (R2.5, R3.2).
func (v Verdict) Failure() bool {
	return v.Kind == ResponseRateLimited || v.Kind == ResponseServerFailure
}

// String reads like "rate-limited, wait 2m0s from Retry-After, note none";
// the zero Verdict, of a Result with no response, reads "none".
func (v Verdict) String() string {
	if v == (Verdict{}) {
		return "none"
	}
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

// Classify says what a response means (R3.5) from its status, headers and
// the first 64 KiB of its body: content, a redirect, no page, a rate limit
// or server failure and the wait, or a refusal that stops the host (402,
// 403, 999, or a challenge page whatever its status).
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
	if c, ok := challenge.Detect(status, header, body); ok {
		return Verdict{Kind: ResponseRefused, Challenge: true, Vendor: c.Vendor, Evidence: c.Evidence,
			Note: "a bot check or CAPTCHA: the host is stopped for the run; the fetcher never solves or evades one"}
	}
	v := Verdict{Evidence: "status " + strconv.Itoa(status)}
	v.RetryAfter, v.HasRetryAfter = ParseRetryAfter(headerValue(header, keyRetryAfter), headerValue(header, keyDate), now)
	if len(header[keyRetryAfter]) > 1 {
		v.RetryAfter, v.HasRetryAfter = 0, false // several values: not the grammar
	}
	switch {
	case status == http.StatusPaymentRequired:
		v.Kind = ResponseRefused
		v.Note = "payment required: the host is stopped for the run; the fetcher does not pay"
		if p := header.Get("Crawler-Price"); p != "" {
			v.Evidence += ", crawler-price: " + p
		}
	case status == http.StatusForbidden:
		v.Kind = ResponseRefused
		v.Note = "forbidden: the host is stopped for the run; no retry with another identity"
	case status == statusBotBlock:
		v.Kind = ResponseRefused
		v.Note = "status 999, a known bot block: the host is stopped for the run"
	case status < 200 || status > 599:
		v.Kind = ResponseServerFailure
		v.Note = "a status outside HTTP's classes: counted as a server failure"
	case status == http.StatusTooManyRequests:
		v.Kind = ResponseRateLimited
	case status >= 500 && status <= 599:
		v.Kind = ResponseServerFailure
	case status == http.StatusNotModified:
		v.Kind = ResponseNotModified
	case isRedirect(status) && headerValue(header, keyLocation) != "":
		v.Kind = ResponseRedirect
	case isRedirect(status):
		v.Kind = ResponseNotFound
		v.Note = "a redirect without a Location: nothing to follow"
	case status >= 300 && status <= 399:
		// 300 offers a choice, 305 asks for a proxy (never used, R10.2),
		// the others are unassigned: none is a redirect to follow.
		v.Kind = ResponseNotFound
		v.Note = "a 3xx that is not 301, 302, 303, 307 or 308: nothing is followed"
	case status >= 400 && status <= 499:
		v.Kind = ResponseNotFound
		if status == http.StatusUnauthorized {
			v.Note = "needs a login: the fetcher never logs in"
		}
	default:
		v.Kind = ResponseOK
	}
	if !v.Failure() {
		v.RetryAfter, v.HasRetryAfter = 0, false // only 429 and 5xx set the wait (R2.4)
	}
	return v
}

// statusBotBlock is the status some large sites answer crawlers with
// instead of 403 (LinkedIn's 999): a refusal (R3.1).
const statusBotBlock = 999

// Bounds of R2.4–R2.5 that no option can loosen.
const (
	DefaultMaxBackoff = pacing.DefaultMaxBackoff // the cap of the backoff after failures: 5 min (R2.5)
	MaxBackoffLimit   = pacing.MaxBackoffLimit   // the most that cap may be raised to: 30 min
	DefaultHorizon    = time.Hour                // a Retry-After beyond it parks the host (R2.4)
	FailuresToStop    = 5                        // failures in a row that stop a host (R3.2)
)

// ParseRetryAfter reads a Retry-After value (RFC 9110): delay-seconds or an
// HTTP-date, counted from the response's Date when valid, else from now. A
// date not ahead, or anything outside the grammar, is absent (R2.4): ok is
// false, and a failure gets R2.5's backoff.
func ParseRetryAfter(value, date string, now time.Time) (wait time.Duration, ok bool) {
	return pacing.ParseRetryAfter(value, date, now)
}
