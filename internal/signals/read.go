package signals

import (
	"strconv"
	"strings"

	"github.com/politecrawler/polite/internal/robotstxt"
	"github.com/politecrawler/polite/internal/sfv"
)

// Response header keys of the signals, in the canonical form net/http keys
// a response's header by, so they are read by map index.
const (
	KeyContentUsage   = "Content-Usage"
	KeyContentSignal  = "Content-Signal"
	KeyXRobotsTag     = "X-Robots-Tag"
	KeyTDMReservation = "Tdm-Reservation"
	KeyTDMPolicy      = "Tdm-Policy"
)

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

// Read gathers the signals that apply to the page at pageURL for the
// crawler whose product token is agent (R7.1): the Content-Signal and
// Content-Usage lines of the robots.txt group that applies to it (rules
// may be nil: a host without robots.txt, an API host, an unrestricted
// run), the response's header (keyed canonically, as net/http keys it),
// and the page's meta tags (htmlpass.Page.Meta). pageURL is the URL the
// response came from (after redirects), agent the product token
// ("PoliteCrawler").
func Read(rules *robotstxt.File, agent, pageURL string, header map[string][]string, meta map[string]string) Set {
	var s Set
	token := robotstxt.AgentToken(agent)
	s.robotsTxt(rules, agent, pageURL)

	if vs := header[KeyContentUsage]; len(vs) > 0 {
		// Field lines combine with commas into one Dictionary (RFC 9651 4.2).
		s.contentUsage("header Content-Usage", strings.Join(vs, ", "))
	}
	for _, v := range header[KeyContentSignal] { // seen in the wild
		s.contentSignal("header Content-Signal", v, false)
	}
	for _, v := range header[KeyXRobotsTag] {
		s.robotsDirectives("header X-Robots-Tag", v, token, true)
	}
	if v, ok := meta["robots"]; ok {
		s.robotsDirectives("meta robots", v, token, false)
	}
	if len(meta) > 0 { // the lower-case name is made only to be looked for
		if own := strings.ToLower(token); own != "" && own != "robots" {
			if v, ok := meta[own]; ok {
				s.robotsDirectives("meta "+own, v, token, false)
			}
		}
	}
	if v, ok := meta["content-signal"]; ok {
		s.contentSignal("meta content-signal", v, false)
	}
	s.tdmRep(header, meta)
	return s
}

// robotsTxt reads the Content-Signal and Content-Usage lines of the group
// that applies to agent. Each vocabulary picks its lines as Allow and
// Disallow are picked (RFC 9309 2.2.2, draft-ietf-aipref-attach): the
// longest path that matches pageURL, by canonical length; a line without
// a path counts as "/". Lines of the same length all apply, and combine
// most-restrictive. Content-Signal lines before any group belong to none;
// their refusals are honoured anyway, grants ignored.
func (s *Set) robotsTxt(file *robotstxt.File, agent, pageURL string) {
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
func (s *Set) contentUsage(source, v string) {
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
func (s *Set) contentSignal(source, v string, refusalsOnly bool) {
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
func (s *Set) robotsDirectives(source, v, token string, scoped bool) {
	for _, d := range Directives(v, token, scoped) {
		if !robotsDirectiveNames[d.Name] {
			continue
		}
		if d.Name == "max-snippet" && d.Value == "" {
			continue
		}
		s.All = append(s.All, Signal{Source: source, Name: d.Name, Value: d.Value})
	}
}

// tdmRep reads the TDMRep reservation: 1 reserves text and data mining
// rights, 0 does not, anything else is unset. As the TDMRep report orders
// them, the page's meta tag overrides the header, and an unset value
// overrides nothing; only the value that holds is reported. Its policy URL
// is reported unless the reservation is 0. (/.well-known/tdmrep.json is
// not read: that would be another request.)
func (s *Set) tdmRep(header map[string][]string, meta map[string]string) {
	res, resSrc := "", ""
	if v := strings.TrimSpace(first(header[KeyTDMReservation])); v == "0" || v == "1" {
		res, resSrc = v, "header tdm-reservation"
	}
	if v := strings.TrimSpace(meta["tdm-reservation"]); v == "0" || v == "1" {
		res, resSrc = v, "meta tdm-reservation"
	}
	if res != "" {
		s.All = append(s.All, Signal{Source: resSrc, Name: "tdm-reservation", Value: res})
	}
	if res == "0" {
		return
	}
	pol, polSrc := "", ""
	if v := strings.TrimSpace(first(header[KeyTDMPolicy])); v != "" {
		pol, polSrc = v, "header tdm-policy"
	}
	if v := strings.TrimSpace(meta["tdm-policy"]); v != "" {
		pol, polSrc = v, "meta tdm-policy"
	}
	if pol != "" {
		s.All = append(s.All, Signal{Source: polSrc, Name: "tdm-policy", Value: pol})
	}
}

// first is a header's first value, as http.Header.Get gives it.
func first(vs []string) string {
	if len(vs) > 0 {
		return vs[0]
	}
	return ""
}
