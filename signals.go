package polite

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/politecrawler/polite/internal/htmlpass"
	"github.com/politecrawler/polite/internal/robotstxt"
	"github.com/politecrawler/polite/internal/sfv"
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
	return s.statement() + " (" + s.Source + ")"
}

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
	for i := range s.All {
		sig := s.All[i]
		if !strings.EqualFold(sig.Name, name) {
			continue
		}
		switch sig.Value {
		case "no", "n":
			return PreferenceNo, &sig
		case "yes", "y":
			if p == PreferenceUnknown {
				p, because = PreferenceYes, &sig
			}
		}
	}
	return p, because
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
	for i := range s.All {
		if holdsBackAIInput(s.All[i]) {
			sig := s.All[i]
			return false, &sig
		}
	}
	return true, nil
}

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

// TrainingOptOut lists the signals that refuse training an AI model on the
// page: Content-Signal ai-train=no; Content-Usage train-ai=n and the older
// train-genai=n, genai=n and ai=n; the noai and noimageai meta directives.
// They never hold back this fetcher, which trains no model (R7.3), but a
// caller that passes pages on should pass these on with them.
func (s Signals) TrainingOptOut() []Signal {
	var out []Signal
	for _, sig := range s.All {
		if refusesTraining(sig) {
			out = append(out, sig)
		}
	}
	return out
}

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
// (robots meta or X-Robots-Tag nofollow, or none).
func (s Signals) NoFollow() bool { return s.has("nofollow") || s.has("none") }

// NoIndex reports whether the page asks not to be indexed (noindex, or
// none). This fetcher keeps pages but builds no index; a caller that does
// should honour it.
func (s Signals) NoIndex() bool { return s.has("noindex") || s.has("none") }

func (s Signals) has(directive string) bool {
	for _, sig := range s.All {
		if sig.Name == directive && sig.Value == "" {
			return true
		}
	}
	return false
}

// Vocabulary of what is read. Keys outside these lists are ignored, as
// both vocabularies ask.
var (
	// contentSignalKeys are Cloudflare's keys; their values are yes or no,
	// and for use immediate, reference or full.
	contentSignalKeys = map[string]bool{"search": true, "ai-input": true, "ai-train": true, "use": true}
	// contentUsageKeys are AIPREF's categories of every draft: -08's
	// train-ai, ai-use and search, and the legacy ones.
	contentUsageKeys = map[string]bool{
		"train-ai": true, "ai-use": true, "search": true,
		"all": true, "bots": true, "tdm": true, "ai": true, "genai": true,
		"train-genai": true, "ai-output": true, "inference": true,
	}
	// robotsDirectiveNames are the robots directives reported.
	robotsDirectiveNames = map[string]bool{
		"noindex": true, "nofollow": true, "none": true, "nosnippet": true,
		"max-snippet": true, "noarchive": true, "nocache": true,
		"noai": true, "noimageai": true,
	}
)

// readSignals gathers the signals that apply to the page at pageURL for
// the crawler whose product token is agent (R7.1): the Content-Signal and
// Content-Usage lines of the robots.txt group that applies to it (rules
// may be nil: a host without robots.txt, an API host, an unrestricted
// run), the response's header, and the page's meta tags as page read them.
// pageURL is the URL the response came from (after redirects), agent the
// product token ("PoliteCrawler").
func readSignals(rules *Robots, agent, pageURL string, header http.Header, page htmlpass.Page) Signals {
	var s Signals
	token := robotstxt.AgentToken(agent)
	s.robotsTxt(rules, agent, pageURL)

	if vs := header[keyContentUsage]; len(vs) > 0 {
		// Field lines combine with commas into one Dictionary (RFC 9651 4.2).
		s.contentUsage("header Content-Usage", strings.Join(vs, ", "))
	}
	for _, v := range header[keyContentSignal] { // seen in the wild
		s.contentSignal("header Content-Signal", v, false)
	}
	for _, v := range header[keyXRobotsTag] {
		s.robotsDirectives("header X-Robots-Tag", v, token, true)
	}
	if v, ok := page.Meta["robots"]; ok {
		s.robotsDirectives("meta robots", v, token, false)
	}
	if len(page.Meta) > 0 { // the lower-case name is made only to be looked for
		if own := strings.ToLower(token); own != "" && own != "robots" {
			if v, ok := page.Meta[own]; ok {
				s.robotsDirectives("meta "+own, v, token, false)
			}
		}
	}
	if v, ok := page.Meta["content-signal"]; ok {
		s.contentSignal("meta content-signal", v, false)
	}
	s.tdmRep(header, page)
	return s
}

// robotsTxt reads the Content-Signal and Content-Usage lines of the group
// that applies to agent. Each vocabulary picks its lines as Allow and
// Disallow are picked (RFC 9309 2.2.2, draft-ietf-aipref-attach): the
// longest path that matches pageURL, by canonical length; a line without
// a path counts as "/". Lines of the same length all apply, and combine
// most-restrictive. Content-Signal lines before any group belong to none;
// their refusals are honoured anyway, grants ignored.
func (s *Signals) robotsTxt(rules *Robots, agent, pageURL string) {
	file := rules.file()
	if !file.HasSignalLines() {
		return
	}
	path, _ := robotstxt.RequestPath(pageURL)
	for _, rec := range file.BeforeGroups(robotstxt.KeyContentSignal, path) {
		_, prefs := rec.Scope()
		s.contentSignal("robots.txt line "+strconv.Itoa(rec.Line)+" (before any group)", prefs, true)
	}
	for _, rec := range file.Scoped(agent, path, robotstxt.KeyContentSignal, robotstxt.KeyContentUsage) {
		_, prefs := rec.Scope()
		src := "robots.txt line " + strconv.Itoa(rec.Line)
		if rec.Key == robotstxt.KeyContentUsage {
			s.contentUsage(src, prefs)
		} else {
			s.contentSignal(src, prefs, false)
		}
	}
}

// contentUsage reads an AIPREF statement: an RFC 9651 Dictionary whose
// Token values y and n are the preferences. Anything else — a String "n",
// a bare key (Boolean), another token — leaves the category unknown; a
// syntax error leaves every category unknown. Parameters are ignored; a
// key given twice counts once, with its last value.
func (s *Signals) contentUsage(source, v string) {
	members, ok := sfv.ParseDictionary(v)
	if !ok {
		s.Malformed = append(s.Malformed, source)
		return
	}
	for _, m := range members {
		if contentUsageKeys[m.Key] && m.Kind == sfv.Token && (m.Token == "y" || m.Token == "n") {
			s.All = append(s.All, Signal{Source: source, Name: m.Key, Value: m.Token})
		}
	}
}

// contentSignal reads a Cloudflare Content-Signal statement. Keys and
// values are read without case ("Content-signal: AI-Input=No" occurs).
// With refusalsOnly, grants are dropped.
func (s *Signals) contentSignal(source, v string, refusalsOnly bool) {
	for _, kv := range contentSignalPairs(v) {
		k, val := kv[0], kv[1]
		if !contentSignalKeys[k] {
			continue
		}
		if k == "use" {
			if val != "immediate" && val != "reference" && val != "full" || refusalsOnly && val == "full" {
				continue
			}
		} else if val != "no" && (val != "yes" || refusalsOnly) {
			continue
		}
		s.All = append(s.All, Signal{Source: source, Name: k, Value: val})
	}
}

// robotsDirectives reads robots meta or X-Robots-Tag directives.
func (s *Signals) robotsDirectives(source, v, token string, scoped bool) {
	for _, d := range robotsDirectives(v, token, scoped) {
		if !robotsDirectiveNames[d.name] {
			continue
		}
		if d.name == "max-snippet" && d.value == "" {
			continue
		}
		s.All = append(s.All, Signal{Source: source, Name: d.name, Value: d.value})
	}
}

// tdmRep reads the TDMRep reservation: 1 reserves text and data mining
// rights, 0 does not, anything else is unset. As the TDMRep report orders
// them, the page's meta tag overrides the header, and an unset value
// overrides nothing; only the value that holds is reported. Its policy URL
// is reported unless the reservation is 0. (/.well-known/tdmrep.json is
// not read: that would be another request.)
func (s *Signals) tdmRep(header http.Header, page htmlpass.Page) {
	res, resSrc := "", ""
	if v := strings.TrimSpace(headerValue(header, keyTDMReservation)); v == "0" || v == "1" {
		res, resSrc = v, "header tdm-reservation"
	}
	if v := strings.TrimSpace(page.Meta["tdm-reservation"]); v == "0" || v == "1" {
		res, resSrc = v, "meta tdm-reservation"
	}
	if res != "" {
		s.All = append(s.All, Signal{Source: resSrc, Name: "tdm-reservation", Value: res})
	}
	if res == "0" {
		return
	}
	pol, polSrc := "", ""
	if v := strings.TrimSpace(headerValue(header, keyTDMPolicy)); v != "" {
		pol, polSrc = v, "header tdm-policy"
	}
	if v := strings.TrimSpace(page.Meta["tdm-policy"]); v != "" {
		pol, polSrc = v, "meta tdm-policy"
	}
	if pol != "" {
		s.All = append(s.All, Signal{Source: polSrc, Name: "tdm-policy", Value: pol})
	}
}
