package polite

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite/politetest"
)

// readResponse reads a saved response (testdata/responses/*.http).
func readResponse(t testing.TB, path string) (int, http.Header, []byte) {
	t.Helper()
	p, err := politetest.ReadPage(path)
	if err != nil {
		t.Fatal(err)
	}
	return p.Status, p.Header, p.Body
}

// R3.5 on saved pages: our own minimal reconstructions of what each
// vendor serves, and two ordinary pages that embed a CAPTCHA widget.
func TestClassifySavedResponses(t *testing.T) {
	want := map[string]struct {
		kind      ResponseKind
		challenge bool
		vendor    string
		wait      time.Duration
	}{
		"cloudflare-challenge.http":   {ResponseRefused, true, "Cloudflare", 0},
		"cloudflare-block.http":       {ResponseRefused, true, "Cloudflare", 0},
		"aws-waf-challenge.http":      {ResponseRefused, true, "AWS WAF", 0},
		"perimeterx-block.http":       {ResponseRefused, true, "PerimeterX", 0},
		"datadome-block.http":         {ResponseRefused, true, "DataDome", 0},
		"captcha-shell.http":          {ResponseRefused, true, "", 0},
		"pay-per-crawl.http":          {ResponseRefused, false, "", 0},
		"login-with-recaptcha.http":   {ResponseOK, false, "", 0},
		"turnstile-comment-form.http": {ResponseOK, false, "", 0},
		"rate-limited.http":           {ResponseRateLimited, false, "", 120 * time.Second},
		"maintenance.http":            {ResponseServerFailure, false, "", 5 * time.Minute},
	}
	files, _ := filepath.Glob("testdata/responses/*.http")
	if len(files) != len(want) {
		t.Errorf("%d saved responses, %d expectations", len(files), len(want))
	}
	for _, path := range files {
		name := filepath.Base(path)
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: no expectation", name)
			continue
		}
		status, header, body := readResponse(t, path)
		v := Classify(status, header, body)
		if v.Kind != w.kind || v.Challenge != w.challenge || v.Vendor != w.vendor || v.RetryAfter != w.wait {
			t.Errorf("%s: %+v\nwant kind %v challenge %v vendor %q wait %v", name, v, w.kind, w.challenge, w.vendor, w.wait)
		}
		if v.Evidence == "" {
			t.Errorf("%s: no evidence", name)
		}
	}
}

func TestClassifyStatuses(t *testing.T) {
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Add(kv[i], kv[i+1])
		}
		return out
	}
	page := []byte("<html><body><p>" + strings.Repeat("Plain words of an ordinary page. ", 40) + "</p></body></html>")
	cases := []struct {
		name   string
		status int
		header http.Header
		body   []byte
		kind   ResponseKind
		wait   time.Duration
		has    bool
	}{
		{"200", 200, nil, page, ResponseOK, 0, false},
		{"304", 304, nil, nil, ResponseNotModified, 0, false},
		{"301 with Location", 301, h("Location", "/x"), nil, ResponseRedirect, 0, false},
		{"302 without Location is no page", 302, nil, nil, ResponseNotFound, 0, false},
		{"300 without Location is no page", 300, nil, nil, ResponseNotFound, 0, false},
		{"300 with Location is a choice, not a redirect", 300, http.Header{"Location": {"/a"}}, nil, ResponseNotFound, 0, false},
		{"305 with Location asks for a proxy: not followed", 305, http.Header{"Location": {"http://proxy.test/"}}, nil, ResponseNotFound, 0, false},
		{"399 with Location is unassigned: not followed", 399, http.Header{"Location": {"/a"}}, nil, ResponseNotFound, 0, false},
		{"308 with Location is a redirect", 308, http.Header{"Location": {"/a"}}, nil, ResponseRedirect, 0, false},
		{"999, a bot block, is a refusal (R3.1)", 999, nil, page, ResponseRefused, 0, false},
		{"a status beyond 5xx is a failure", 600, h("Retry-After", "5"), nil, ResponseServerFailure, 5 * time.Second, true},
		{"a 1xx as the final answer is a failure", 199, nil, nil, ResponseServerFailure, 0, false},
		{"404", 404, nil, page, ResponseNotFound, 0, false},
		{"410", 410, nil, nil, ResponseNotFound, 0, false},
		{"401 is not a refusal of the host", 401, nil, nil, ResponseNotFound, 0, false},
		{"402", 402, nil, nil, ResponseRefused, 0, false},
		{"403 bare", 403, nil, nil, ResponseRefused, 0, false},
		{"429 with seconds", 429, h("Retry-After", "120"), nil, ResponseRateLimited, 120 * time.Second, true},
		{"429 without", 429, nil, nil, ResponseRateLimited, 0, false},
		{"429 garbage", 429, h("Retry-After", "soon"), nil, ResponseRateLimited, 0, false},
		{"429 two values", 429, h("Retry-After", "5", "Retry-After", "10"), nil, ResponseRateLimited, 0, false},
		{"503 without", 503, nil, page, ResponseServerFailure, 0, false},
		// R2.4: a date in the past counts as absent, so R2.5's backoff applies.
		{"503 with a past date", 503, h("Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT"), nil, ResponseServerFailure, 0, false},
		{"429 with a past date by the Date header", 429, h("Retry-After", "Thu, 01 Jan 2026 00:01:00 GMT", "Date", "Thu, 01 Jan 2026 00:02:00 GMT"), nil, ResponseRateLimited, 0, false},
		{"503 with a date equal to Date", 503, h("Retry-After", "Thu, 01 Jan 2026 00:02:00 GMT", "Date", "Thu, 01 Jan 2026 00:02:00 GMT"), nil, ResponseServerFailure, 0, false},
		{"503 with a future date", 503, h("Retry-After", "Thu, 01 Jan 2026 00:02:00 GMT", "Date", "Thu, 01 Jan 2026 00:00:00 GMT"), nil, ResponseServerFailure, 2 * time.Minute, true},
		{"500", 500, nil, nil, ResponseServerFailure, 0, false},
		{"Retry-After on a 200 sets no wait", 200, h("Retry-After", "60"), page, ResponseOK, 0, false},
		{"decisive header on a 200", 200, h("Cf-Mitigated", "challenge"), page, ResponseRefused, 0, false},
		{"Vercel deny", 403, h("X-Vercel-Mitigated", "deny"), nil, ResponseRefused, 0, false},
		{"CDN identity headers are not proof", 200, h("Server", "cloudflare", "Cf-Ray", "1", "X-Iinfo", "1", "Set-Cookie", "__cf_bm=1"), page, ResponseOK, 0, false},
		{"marker on a long 200 page is content", 200, nil, append([]byte("<p>Pardon Our Interruption: our story of the outage.</p>"), page...), ResponseOK, 0, false},
		{"503 legacy challenge", 503, nil, []byte("<html><title>Just a moment...</title><script src=/cdn-cgi/challenge-platform/x.js></script></html>"), ResponseRefused, 0, false},
	}
	for _, c := range cases {
		v := classifyAt(c.status, c.header, c.body, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		if v.Kind != c.kind || v.RetryAfter != c.wait || v.HasRetryAfter != c.has {
			t.Errorf("%s: %+v, want %v wait %v (%v)", c.name, v, c.kind, c.wait, c.has)
		}
	}
}

// A Verdict of no response never reads as ok (R3.5).
func TestZeroVerdictIsNoResponse(t *testing.T) {
	var v Verdict
	if v.Kind == ResponseOK || v.Kind.String() != "none" || strings.HasPrefix(v.String(), "ok") {
		t.Errorf("zero Verdict: kind %v, %q", v.Kind, v.String())
	}
	for _, status := range []int{200, 404, 500} {
		if Classify(status, nil, nil).Kind == ResponseNone {
			t.Errorf("Classify(%d) says no response", status)
		}
	}
}

// The example of seed 000 ("Test what each response means"), as printed.
func TestVerdictString(t *testing.T) {
	v := Classify(429, http.Header{"Retry-After": {"120"}}, nil)
	if got, want := v.String(), "rate-limited, wait 2m0s from Retry-After, evidence status 429, note none"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// A Result with no response has the zero Verdict and Rest, and they say
// so rather than "none, note none" and "0s (floor)".
func TestZeroVerdictAndRestString(t *testing.T) {
	if got := (Verdict{}).String(); got != "none" {
		t.Errorf("Verdict{}.String() = %q, want \"none\"", got)
	}
	if got := (Rest{}).String(); got != "none" {
		t.Errorf("Rest{}.String() = %q, want \"none\"", got)
	}
	if got := (Rest{Wait: MinRest}).String(); got != "3s (floor)" {
		t.Errorf("a floor's rest reads %q", got)
	}
}

// R2.4: a Retry-After date in the past says nothing, and the verdict says
// the growing backoff follows.
func TestVerdictPastRetryAfter(t *testing.T) {
	v := Classify(503, http.Header{"Retry-After": {"Sun, 06 Nov 1994 08:49:37 GMT"}}, nil)
	if got, want := v.String(), "server-failure, wait a growing backoff with jitter, evidence status 503, note none"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// FuzzClassify: any status, headers and body give a verdict, never a panic,
// in time linear in the (capped) body.
func FuzzClassify(f *testing.F) {
	files, _ := filepath.Glob("testdata/responses/*.http")
	for _, path := range files {
		status, header, body := readResponse(f, path)
		f.Add(status, header.Get("Retry-After"), header.Get("Cf-Mitigated"), body)
	}
	f.Add(200, "", "", []byte("<<<<<<!--<script"))
	f.Fuzz(func(t *testing.T, status int, retryAfter, mitigated string, body []byte) {
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		h.Set("Cf-Mitigated", mitigated)
		v := Classify(status, h, body)
		if v.Kind > ResponseRefused {
			t.Fatalf("unknown kind %v", v.Kind)
		}
		if v.RetryAfter < 0 {
			t.Fatalf("negative wait %v", v.RetryAfter)
		}
		_ = v.String()
	})
}
