package polite

import (
	"net/http"

	"github.com/politecrawler/polite/internal/htmlpass"
	"github.com/politecrawler/polite/internal/signals"
)

// Signal is one statement a site made about the use of a page (R7.1): what
// it said, and where it said it.
type Signal struct {
	Source string // where it was read: "robots.txt line 4", "header X-Robots-Tag", "meta robots"
	Name   string // the category or directive, lower case: "ai-input", "nosnippet"
	Value  string // "yes", "no", "y", "n", "0", "1", a tdm-policy URL; "" for a lone directive
}

// String reads like "ai-input=no (robots.txt line 4)" or "nosnippet
// (header X-Robots-Tag)".
func (s Signal) String() string {
	return signals.Signal(s).String()
}

// Signals are the content-use signals that apply to one page, from
// robots.txt, the headers and the page (R7.1): Content-Signal,
// Content-Usage, robots meta and X-Robots-Tag, TDMRep. Within a category
// the most restrictive statement wins (Category). AIInput says whether the
// text may go to an AI reader (R7.2); TrainingOptOut lists opt-outs that do
// not restrict this fetcher (R7.3). The zero Signals allows everything.
type Signals struct {
	All       []Signal // every signal read: robots.txt, then headers, then the page
	Malformed []string // the sources that could not be read ("header Content-Usage")
}

// Preference is a site's combined answer for one category of use.
type Preference int8

// The three answers a category can have.
const (
	PreferenceUnknown Preference = iota // nothing said, or nothing readable
	PreferenceYes                       // some statement allows the use, none refuses it
	PreferenceNo                        // some statement refuses the use
)

// String returns "unknown", "yes" or "no".
func (p Preference) String() string {
	switch p {
	case PreferenceYes:
		return "yes"
	case PreferenceNo:
		return "no"
	}
	return "unknown"
}

// Category combines every statement about one category of use, named as
// the site named it ("ai-input", "ai-use", "train-ai", "search", …): any
// no → no, else any yes → yes, else unknown. because is the first signal
// that decided, nil when unknown.
func (s Signals) Category(name string) (p Preference, because *Signal) {
	inner, sig := s.set().Category(name)
	return Preference(inner), public(sig)
}

// AIInput reports whether the page's text may go to an AI model at answer
// time and, when not, the first signal in All that refuses it (R7.2):
// Content-Signal ai-input=no or use=reference; Content-Usage ai-use=n,
// ai-output=n, inference=n, or the umbrellas bots=n, all=n, tdm=n;
// nosnippet, max-snippet:0, noarchive, nocache; tdm-reservation: 1.
// Training opt-outs, search=no, noindex and nofollow allow it.
func (s Signals) AIInput() (allowed bool, because *Signal) {
	allowed, sig := s.set().AIInput()
	return allowed, public(sig)
}

// TrainingOptOut lists the signals that refuse training a model on the
// page (ai-train=no, train-ai=n, noai, …): they never hold this fetcher
// back (R7.3), but a caller passing pages on should pass them on too.
func (s Signals) TrainingOptOut() []Signal {
	return fromInner(s.set().TrainingOptOut())
}

// NoFollow reports whether the page asks crawlers not to follow its links
// (robots meta or X-Robots-Tag nofollow, or none).
func (s Signals) NoFollow() bool { return s.set().NoFollow() }

// NoIndex reports whether the page asks not to be indexed (noindex, or none).
func (s Signals) NoIndex() bool { return s.set().NoIndex() }

// readSignals gathers the signals that apply to the page at pageURL for
// the crawler whose product token is agent (R7.1): internal/signals reads
// them from rules (nil for none), header and the page's meta tags.
func readSignals(rules *Robots, agent, pageURL string, header http.Header, page htmlpass.Page) Signals {
	in := signals.Read(rules.file(), agent, pageURL, header, page.Meta)
	return Signals{All: fromInner(in.All), Malformed: in.Malformed}
}

// set is s as internal/signals reads it; a Signal converts field for field.
func (s Signals) set() signals.Set {
	in := signals.Set{Malformed: s.Malformed}
	if len(s.All) > 0 {
		in.All = make([]signals.Signal, len(s.All))
		for i, sig := range s.All {
			in.All[i] = signals.Signal(sig)
		}
	}
	return in
}

// fromInner converts internal/signals' list to the public one; nil stays nil.
func fromInner(in []signals.Signal) []Signal {
	if len(in) == 0 {
		return nil
	}
	out := make([]Signal, len(in))
	for i, sig := range in {
		out[i] = Signal(sig)
	}
	return out
}

// public converts the signal that decided, nil for none.
func public(sig *signals.Signal) *Signal {
	if sig == nil {
		return nil
	}
	p := Signal(*sig)
	return &p
}
