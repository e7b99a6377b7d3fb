package polite_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

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
		if text != "" || !errors.Is(err, polite.ErrAIInputRefused) || !errors.As(err, &refused) {
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
