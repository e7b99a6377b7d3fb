package signals

import (
	"net/url"
	"testing"

	"github.com/politecrawler/polite/internal/htmlpass"
)

// The gate gives the text unless a signal refuses AI input (R7.2); a
// training opt-out alone does not hold it back (R7.3); a page never read
// is read from the body.
func TestTextForAI(t *testing.T) {
	body := "<html><head><title>T</title><script>x()</script></head><body><h1>Head</h1><p>One  two.</p></body></html>"
	u, _ := url.Parse("https://example.com/")
	page := htmlpass.Parse([]byte(body), "", u)
	training := signalsFor(t, "User-agent: *\nContent-Signal: ai-train=no", hdr("Content-Usage", "train-ai=n"), body, "")
	if got, because := TextForAI([]byte(body), "", training, page); because != nil || got != "Head\nOne two." {
		t.Errorf("training opt-out: TextForAI = %q, %v; want the text", got, because)
	}
	if got, because := TextForAI([]byte(body), "", Set{}, htmlpass.Page{}); because != nil || got != "Head\nOne two." {
		t.Errorf("page never read: TextForAI = %q, %v; want the text", got, because)
	}
	if got, because := TextForAI(nil, "", Set{}, htmlpass.Page{}); because != nil || got != "" {
		t.Errorf("nothing: TextForAI = %q, %v", got, because)
	}
	refused := signalsFor(t, "User-agent: *\nContent-Signal: ai-input=no\nAllow: /", nil, body, "")
	if got, because := TextForAI([]byte(body), "", refused, page); got != "" || because == nil || because.String() != "ai-input=no (robots.txt line 2)" {
		t.Errorf("refused: TextForAI = %q, %v; want no text and the refusing signal", got, because)
	}
}
