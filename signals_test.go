package polite_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// htmlPage is a farm page of HTML with the extra header given as name,
// value pairs.
func htmlPage(body string, kv ...string) politetest.Page {
	h := http.Header{"Content-Type": {"text/html"}}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return politetest.Page{Body: []byte(body), Header: h}
}

// fetchOne serves page at /page on a site of its own, with robots as its
// robots.txt ("" for none), and returns its Result.
func fetchOne(t *testing.T, robots string, page politetest.Page) *polite.Result {
	t.Helper()
	r := newFarmRig(t)
	site := politetest.Site{Name: "page.test", Pages: map[string]politetest.Page{"/page": page}}
	if robots != "" {
		site.Pages[politetest.RobotsPath] = politetest.Robots(robots)
	}
	r.site(site)
	r.start(polite.Config{})
	u := r.url(site.Name, "/page")
	r.add(u)
	return r.results(1)[u]
}

func TestAITextAllowed(t *testing.T) {
	body := "<html><head><title>T</title><script>x()</script></head><body><h1>Head</h1><p>One  two.</p></body></html>"
	// A training opt-out alone does not hold the text back (R7.3).
	res := fetchOne(t, "User-agent: *\nContent-Signal: ai-train=no", htmlPage(body, "Content-Usage", "train-ai=n"))
	if len(res.Signals.TrainingOptOut()) != 2 {
		t.Fatalf("the page's training opt-outs were not read: %v", res.Signals.All)
	}
	got, err := res.TextForAI()
	if err != nil || got != "Head\nOne two." {
		t.Errorf("TextForAI = %q, %v; want the text", got, err)
	}
	// A page never read is read from the body.
	if got, err := (&polite.Result{Body: []byte(body)}).TextForAI(); err != nil || got != "Head\nOne two." {
		t.Errorf("TextForAI without a page = %q, %v; want the text", got, err)
	}
	if got, err := (&polite.Result{}).TextForAI(); err != nil || got != "" {
		t.Errorf("TextForAI of nothing = %q, %v", got, err)
	}
}

func TestAITextRefused(t *testing.T) {
	body := "<p>Secret sauce.</p>"
	tests := []struct {
		robots, source, name string
	}{
		{"User-agent: *\nContent-Signal: ai-input=no\nAllow: /", "robots.txt line 2", "ai-input=no"},
		{"User-agent: *\nContent-Usage: ai-use=n", "robots.txt line 2", "ai-use=n"},
	}
	for _, tt := range tests {
		res := fetchOne(t, tt.robots, htmlPage(body))
		if res.Err != nil || string(res.Body) != body {
			t.Fatalf("%s: the page was not kept: %v", tt.name, res.Err)
		}
		got, err := res.TextForAI()
		if got != "" {
			t.Errorf("%s: text %q given despite the refusal", tt.name, got)
		}
		if !isA[*polite.AIInputRefusedError](err) {
			t.Fatalf("%s: err = %v, want an *AIInputRefusedError", tt.name, err)
		}
		var refused *polite.AIInputRefusedError
		if !errors.As(err, &refused) || refused.Signal.Source != tt.source {
			t.Errorf("%s: err = %#v, want an *AIInputRefusedError from %s", tt.name, err, tt.source)
		}
		if msg := err.Error(); !strings.Contains(msg, tt.name) || !strings.Contains(msg, tt.source) {
			t.Errorf("%s: message %q names neither the signal nor its source", tt.name, msg)
		}
	}
	err := &polite.AIInputRefusedError{Signal: polite.Signal{Source: "header X-Robots-Tag", Name: "nosnippet"}}
	if want := "polite: AI input refused by the site: nosnippet (header X-Robots-Tag)"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if isA[*polite.DisallowedError](err) {
		t.Error("a refusal of AI input is not a disallowed URL")
	}
}

// TextForAI and Links on a Result, as the fetcher fills it: the page is
// read when first asked for.
func TestAITextResult(t *testing.T) {
	body := `<meta name="robots" content="nofollow"><p>Text</p><a href="/a">a</a>`
	r := newFarmRig(t)
	site := r.site(politetest.Site{Name: "page.test", Pages: map[string]politetest.Page{
		"/x":         htmlPage(body),
		"/nosnippet": htmlPage(body, "X-Robots-Tag", "nosnippet"),
	}})
	r.start(polite.Config{})
	x, refusedURL := r.url(site, "/x"), r.url(site, "/nosnippet")
	r.add(x, refusedURL)
	res := r.results(2)
	if got, err := res[x].TextForAI(); err != nil || got != "Text\na" {
		t.Errorf("TextForAI() = %q, %v", got, err)
	}
	if got := res[x].Links(); len(got) != 1 || got[0] != (polite.Link{URL: r.url(site, "/a"), NoFollow: true}) {
		t.Errorf("Links() = %v", got)
	}

	if got, err := res[refusedURL].TextForAI(); got != "" || !isA[*polite.AIInputRefusedError](err) {
		t.Errorf("refused: TextForAI() = %q, %v", got, err)
	}

	// An error result has no text; a body cut at the cap still has some.
	failed := &polite.Result{Err: &polite.DisallowedError{URL: "http://a.test/private"}}
	if got, err := failed.TextForAI(); got != "" || !isA[*polite.DisallowedError](err) {
		t.Errorf("error result: TextForAI() = %q, %v", got, err)
	}
	if failed.Links() != nil {
		t.Error("error result has links")
	}
	cut := &polite.Result{Err: polite.ErrBodyTooLarge, Body: []byte("<p>The start")}
	if got, err := cut.TextForAI(); err != nil || got != "The start" {
		t.Errorf("truncated: TextForAI() = %q, %v", got, err)
	}
}

// R7 on the farm: a page is kept whatever the signals say; its text is
// held back from an AI reader when the site refuses AI input, and given
// when the site only opts out of training.
func TestSignalsOnTheFarm(t *testing.T) {
	r := newFarmRig(t)
	article := politetest.Page{Body: []byte("<html><head><title>T</title><script>var x=1</script></head><body><p>Readable words.</p></body></html>"),
		Header: http.Header{"Content-Type": {"text/html"}}}
	trainOnly := article
	trainOnly.Header = http.Header{"Content-Type": {"text/html"}, "Content-Usage": {"train-ai=n"}}
	noInput := r.site(politetest.Site{Name: "noinput.test", Default: func(string) politetest.Page { return article }, Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nContent-Signal: search=yes, ai-input=no, ai-train=no\nAllow: /\n"),
	}})
	train := r.site(politetest.Site{Name: "trainonly.test", Default: func(string) politetest.Page { return trainOnly }})
	news := r.site(politetest.Site{Name: "news.test", Default: func(string) politetest.Page { return article }, Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nAllow: /\nContent-Usage: /news/ ai-use=n\n"),
	}})
	r.start(polite.Config{})
	a, b, n1, n2 := r.url(noInput, "/a"), r.url(train, "/b"), r.url(news, "/news/x"), r.url(news, "/about")
	r.add(a, b, n1, n2)
	res := r.results(4)

	for _, u := range []string{a, n1} {
		text, err := res[u].TextForAI()
		var refused *polite.AIInputRefusedError
		if res[u].Err != nil || len(res[u].Body) == 0 {
			t.Errorf("%s: the page was not kept: %v", u, res[u].Err)
		}
		if text != "" || !isA[*polite.AIInputRefusedError](err) || !errors.As(err, &refused) {
			t.Errorf("%s: TextForAI = %q, %v; want a refusal", u, text, err)
		}
	}
	if _, err := res[a].TextForAI(); err != nil && !strings.Contains(err.Error(), "robots.txt line 2") {
		t.Errorf("the refusal does not name its source: %v", err)
	}
	for _, u := range []string{b, n2} {
		text, err := res[u].TextForAI()
		if err != nil || !strings.Contains(text, "Readable words.") || strings.Contains(text, "var x") {
			t.Errorf("%s: TextForAI = %q, %v; want the readable text", u, text, err)
		}
	}
	if opt := res[b].Signals.TrainingOptOut(); len(opt) != 1 || opt[0].Name != "train-ai" {
		t.Errorf("the training opt-out is not reported: %+v", res[b].Signals)
	}
}
