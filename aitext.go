package polite

import (
	"errors"

	"github.com/politecrawler/polite/internal/htmlpass"
	"github.com/politecrawler/polite/internal/signals"
)

// ErrAIInputRefused: the site refuses that the page be fed to an AI model
// at answer time (R7.2). The page was fetched and kept; only its text is
// held back from an AI reader. The error is an *AIInputRefusedError that
// names the signal.
var ErrAIInputRefused = errors.New("polite: AI input refused by the site")

// AIInputRefusedError is the error TextForAI returns when a signal refuses
// AI input (R7.2): it names the signal and where the site gave it. It
// matches ErrAIInputRefused with errors.Is.
type AIInputRefusedError struct {
	Signal Signal
}

// Error reads like "polite: AI input refused by the site: ai-input=no
// (robots.txt line 4)".
func (e *AIInputRefusedError) Error() string {
	return ErrAIInputRefused.Error() + ": " + e.Signal.String()
}

// Is makes errors.Is(err, ErrAIInputRefused) true.
func (e *AIInputRefusedError) Is(target error) bool { return target == ErrAIInputRefused }

// TextForAI returns the page's readable text for an AI reader: the text a
// person sees, without markup, scripts or styles, block elements on their
// own lines (at most 1 MiB). When the site refuses AI input (see
// Signals.AIInput) it returns no text and an *AIInputRefusedError, which
// says which signal refused it and where (R7.2); a training opt-out alone
// does not hold the text back (R7.3). A result without a page returns its
// Err. A page cut at the body cap (ErrBodyTooLarge) gives the text of what
// was read. Like Links, it may read the page when first called (see
// Links).
func (r *Result) TextForAI() (string, error) {
	if r.Err != nil && !errors.Is(r.Err, ErrBodyTooLarge) {
		return "", r.Err
	}
	var page htmlpass.Page
	if p := r.page.get(); p != nil {
		page = *p
	}
	return aiText(r.Body, r.Signals, page)
}

// aiText is TextForAI on its parts, through internal/signals' gate: the
// signals decide first, then the text comes from page or from body.
func aiText(body []byte, sig Signals, page htmlpass.Page) (string, error) {
	text, because := signals.TextForAI(body, sig.set(), page)
	if because != nil {
		return "", &AIInputRefusedError{Signal: Signal(*because)}
	}
	return text, nil
}
