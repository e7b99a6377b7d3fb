package polite

import (
	"net/http"

	"github.com/politecrawler/polite/internal/htmlpass"
	"github.com/politecrawler/polite/internal/signals"
)

// Signal is one statement a site made about the use of a page (R7.1): what
// it said, and where it said it.
type Signal struct {
	// Source is where the signal was read: "robots.txt line 4",
	// "header Content-Usage", "header X-Robots-Tag", "meta robots",
	// "meta politecrawler", "header tdm-reservation", "meta tdm-reservation".
	Source string
	// Name is the category or directive, in lower case: "ai-input",
	// "train-ai", "search", "nosnippet", "max-snippet", "tdm-reservation".
	Name string
	// Value is the preference: "yes" or "no" (Content-Signal, read without
	// case), "y" or "n" (Content-Usage), "0" (max-snippet:0), "1"
	// (tdm-reservation), the URL of a tdm-policy; "" for a directive that
	// stands alone, such as "nosnippet".
	Value string
}

// String reads like "ai-input=no (robots.txt line 4)" or "nosnippet
// (header X-Robots-Tag)".
func (s Signal) String() string {
	return signals.Signal(s).String()
}

// Signals are the content-use signals that apply to one page, read from
// robots.txt, the response's headers and the page itself (R7.1), and what
// they mean for this fetcher.
//
// Signals are preferences, not access control. A site states them in
// several vocabularies — Cloudflare's Content-Signal, IETF AIPREF's
// Content-Usage, the robots meta directives of search engines, W3C
// TDMRep — and in several places; every statement counts, and within a
// category the most restrictive wins: any "no" makes it no, else any "yes"
// makes it yes, else it is unknown (Category).
//
// What this fetcher does with them follows from what it is: a fetcher
// that trains no model, whose pages may be read by an AI model answering a
// question now. AIInput reports whether the site refuses that; a refusal
// holds the page's text back from an AI reader (Result.TextForAI) while
// the page itself is kept (R7.2). Training opt-outs do not restrict it
// and are reported by TrainingOptOut (R7.3). NoFollow and NoIndex give the
// robots directives a crawler honours besides.
//
// The zero Signals is a page about which the site said nothing: AI input
// allowed, no opt-out.
type Signals struct {
	// All lists every signal read, in order: robots.txt, then headers,
	// then the page. Values that are not preferences (a Content-Usage
	// "no" instead of the token n, an unknown key) are not signals and are
	// left out.
	All []Signal
	// Malformed lists the sources whose syntax could not be read
	// ("header Content-Usage"); the vocabulary makes every category of
	// such a statement unknown.
	Malformed []string
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

// AIInput reports whether the page's text may be handed to an AI model at
// answer time, and, when not, the signal that refuses it (R7.2): the first
// of these, in the order of All:
//
//   - Content-Signal ai-input=no, the category made for this use;
//   - Content-Usage ai-use=n (AIPREF vocab -08, and -02), ai-output=n (-04)
//     and inference=n (-01), the categories that covered it in their
//     drafts;
//   - the legacy umbrella categories bots=n, all=n and tdm=n: unknown to the
//     current draft, but a site that wrote them meant every use below them;
//   - nosnippet and max-snippet:0, which Google reads as keeping the text
//     out of its AI answers too; noarchive, which Bing reads as keeping the
//     page out of its chat answers, and nocache, which Bing reads as
//     allowing only URL, title and snippet there;
//   - Content-Signal use=reference: excerpts with a link, no summaries;
//     summarising is what an AI reader does;
//   - tdm-reservation: 1 (TDMRep). Whether answering with a page is text and
//     data mining is legally unsettled, but an AI model reading a page to
//     answer is automated analysis of text, which is what the reservation
//     (EU Directive 2019/790 Art. 4) names, and Cloudflare declares its own
//     ai-input=no to be exactly such a reservation. Between two readings
//     of a site's wish the fetcher takes the more polite one.
//
// Everything else allows it: training opt-outs (R7.3), search=no (search
// listings only), noindex (this fetcher builds no index), nofollow.
func (s Signals) AIInput() (allowed bool, because *Signal) {
	allowed, sig := s.set().AIInput()
	return allowed, public(sig)
}

// TrainingOptOut lists the signals that refuse training an AI model on the
// page: Content-Signal ai-train=no; Content-Usage train-ai=n and the older
// train-genai=n, genai=n and ai=n; the noai and noimageai meta directives.
// They never hold back this fetcher, which trains no model (R7.3), but a
// caller that passes pages on should pass these on with them.
func (s Signals) TrainingOptOut() []Signal {
	return fromInner(s.set().TrainingOptOut())
}

// NoFollow reports whether the page asks crawlers not to follow its links
// (robots meta or X-Robots-Tag nofollow, or none).
func (s Signals) NoFollow() bool { return s.set().NoFollow() }

// NoIndex reports whether the page asks not to be indexed (noindex, or
// none). This fetcher keeps pages but builds no index; a caller that does
// should honour it.
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
