package signals

import "github.com/politecrawler/polite/internal/htmlpass"

// TextForAI is the gate in front of an AI reader (R7.2): when a signal
// refuses AI input it gives no text and that signal; otherwise the text
// comes from page, or, when page was never read (its Read is 0), from
// reading body, sent with contentType, as HTML. A training opt-out alone
// gives the text (R7.3).
func TextForAI(body []byte, contentType string, s Set, page htmlpass.Page) (text string, refusedBy *Signal) {
	if ok, because := s.AIInput(); !ok {
		return "", because
	}
	if page.Read == 0 && len(body) > 0 {
		page = htmlpass.Parse(body, contentType, nil)
	}
	return page.Text, nil
}
