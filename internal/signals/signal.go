// Package signals reads the content-use signals that apply to one page
// (R7.1) — Cloudflare's Content-Signal, IETF AIPREF's Content-Usage, the
// X-Robots-Tag and robots meta directives, W3C TDMRep — from robots.txt
// records, response headers and the page's meta tags, and says what they
// mean for a fetcher that trains no model (R7.2, R7.3). The root's Signals
// is its public face; headers come as plain maps, so it needs no net/http.
package signals

import "strings"

// Signal is one statement a site made about the use of a page: what it
// said (Name, Value) and where (Source); the root's Signal documents each.
type Signal struct {
	Source, Name, Value string
}

// String reads like "ai-input=no (robots.txt line 4)" or "nosnippet
// (header X-Robots-Tag)".
func (s Signal) String() string {
	return s.statement() + " (" + s.Source + ")"
}

// statement is the signal as the site wrote it, in each vocabulary's form.
func (s Signal) statement() string {
	switch {
	case s.Value == "":
		return s.Name
	case strings.HasPrefix(s.Name, "max-"):
		return s.Name + ":" + s.Value
	case strings.HasPrefix(s.Name, "tdm-"):
		return s.Name + ": " + s.Value
	}
	return s.Name + "=" + s.Value
}

// Set is every signal read for one page, in order (robots.txt, headers,
// page), and the sources that could not be read; the zero Set said nothing.
type Set struct {
	All       []Signal
	Malformed []string
}

// Preference is a site's combined answer for one category of use.
type Preference int8

// The three answers, in the order of the root's Preference constants.
const (
	Unknown Preference = iota // nothing said, or nothing readable
	Yes                       // some statement allows the use, none refuses it
	No                        // some statement refuses the use
)

// Category combines every statement about one category of use, named
// without case: any no → no, else any yes → yes, else unknown; because is
// the first signal that decided, nil when unknown.
func (s Set) Category(name string) (p Preference, because *Signal) {
	for i := range s.All {
		sig := s.All[i]
		if !strings.EqualFold(sig.Name, name) {
			continue
		}
		switch sig.Value {
		case "no", "n":
			return No, &sig
		case "yes", "y":
			if p == Unknown {
				p, because = Yes, &sig
			}
		}
	}
	return p, because
}

// AIInput reports whether the page's text may go to an AI model at answer
// time and, when not, the first signal in All that refuses it (R7.2).
// Why each counts:
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
func (s Set) AIInput() (allowed bool, because *Signal) {
	for i := range s.All {
		if holdsBackAIInput(s.All[i]) {
			sig := s.All[i]
			return false, &sig
		}
	}
	return true, nil
}

// holdsBackAIInput is the table the root's Signals.AIInput documents, with
// each entry's reason: what refuses the page's text to an AI reader.
func holdsBackAIInput(s Signal) bool {
	switch s.Name {
	case "ai-input":
		return s.Value == "no"
	case "ai-use", "ai-output", "inference", "bots", "all", "tdm":
		return s.Value == "n"
	case "nosnippet", "noarchive", "nocache":
		return true
	case "max-snippet":
		return s.Value == "0"
	case "use":
		return s.Value == "reference"
	case "tdm-reservation":
		return s.Value == "1"
	}
	return false
}

// TrainingOptOut lists the signals that refuse training a model on the
// page; they never hold this fetcher back (R7.3), but are passed on.
func (s Set) TrainingOptOut() []Signal {
	var out []Signal
	for _, sig := range s.All {
		if refusesTraining(sig) {
			out = append(out, sig)
		}
	}
	return out
}

// refusesTraining is the table the root's Signals.TrainingOptOut documents.
func refusesTraining(s Signal) bool {
	switch s.Name {
	case "ai-train":
		return s.Value == "no"
	case "train-ai", "train-genai", "genai", "ai":
		return s.Value == "n"
	case "noai", "noimageai":
		return true
	}
	return false
}

// NoFollow reports whether the page asks crawlers not to follow its links
// (nofollow, or none).
func (s Set) NoFollow() bool { return s.has("nofollow") || s.has("none") }

// NoIndex reports whether the page asks not to be indexed (noindex, or
// none).
func (s Set) NoIndex() bool { return s.has("noindex") || s.has("none") }

// has reports a robots directive that stands alone, as nofollow does.
func (s Set) has(directive string) bool {
	for _, sig := range s.All {
		if sig.Name == directive && sig.Value == "" {
			return true
		}
	}
	return false
}
