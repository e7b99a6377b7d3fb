// Package challenge tells a challenge page, a bot check or CAPTCHA
// interstitial, from content (R3.1), by the signatures in challenges.md:
// a decisive vendor header, or a vendor's body marker on a page with a
// refusal-ish status or a tiny 200/202 shell. It never solves or evades
// one; the caller stops the host.
package challenge

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/politecrawler/polite/internal/htmlpass"
)

// Challenge is what Detect found: who served the page and what gave it away.
type Challenge struct {
	Vendor   string // "" when the page names none, as a bare CAPTCHA does
	Evidence string // the header, or the status and body marker
}

// Text thresholds: challenge shells carry little readable text.
const (
	refusalTextMax = 2000 // with a refusal-ish status
	shellTextMax   = 500  // with 200 or 202
)

// Detect follows challenges.md: decisive vendor headers first; then body
// markers, only with a refusal-ish status or on a tiny 200/202 shell; CDN
// identity headers and cookies are never proof. header is keyed
// canonically, as net/http keys a response's; body is its start.
func Detect(status int, header map[string][]string, body []byte) (Challenge, bool) {
	for _, h := range decisiveHeaders {
		if v := header[h.name]; len(v) > 0 && v[0] != "" {
			return Challenge{h.vendor, fmt.Sprintf("%s: %s", strings.ToLower(h.name), v[0])}, true
		}
	}
	if len(body) == 0 {
		return Challenge{}, false
	}
	refusal := refusalish(status)
	shellStatus := status == 200 || status == 202
	if !refusal && !shellStatus {
		return Challenge{}, false
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
			return Challenge{m.vendor, fmt.Sprintf("status %d, body %q", status, m.text)}, true
		}
		if shellStatus && m.shell && textLen() < shellTextMax {
			return Challenge{m.vendor, fmt.Sprintf("status %d, tiny page, body %q", status, m.text)}, true
		}
	}
	for i, w := range captchaWidgets {
		if found&widgetBit(i) == 0 {
			continue
		}
		if refusal && textLen() < refusalTextMax {
			return Challenge{"", fmt.Sprintf("status %d, CAPTCHA %q", status, w)}, true
		}
		if shellStatus && textLen() < shellTextMax && titledAsCheck(body) {
			return Challenge{"", fmt.Sprintf("status %d, tiny page titled as a check, CAPTCHA %q", status, w)}, true
		}
	}
	return Challenge{}, false
}

// refusalish statuses are those a challenge or block page is served with
// (challenges.md, rule 2).
func refusalish(status int) bool {
	switch status {
	case 401, 403, 405, 406, 429, 503:
		return true
	}
	return false
}

// titledAsCheck reports a page whose <title> says it is a check: a widget
// on such a tiny page is the page, not a form's guard.
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
