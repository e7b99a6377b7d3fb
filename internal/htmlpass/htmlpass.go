// Package htmlpass reads what a polite fetcher needs from an HTML page in
// one streaming pass: its readable text, title, links, meta directives
// (robots, TDMRep) and meta refresh target.
//
// The pass runs golang.org/x/net/html's Tokenizer over the bytes and
// builds no tree: it keeps a few counters (how deep inside <pre>, inside a
// skipped <svg> or <template>), never a stack of open elements, so a page
// nested 100,000 elements deep costs what a flat one does. Everything it
// keeps is bounded: it reads at most MaxInput bytes, keeps at most MaxText
// bytes of text, MaxLinks links of at most MaxLinkBytes together, and
// MaxMetaNames meta names. Its time is linear in the input.
//
// The page is read as a browser reads it (R8.4): its encoding is sniffed
// as the HTML standard says (see Sniff) and its bytes decoded to UTF-8
// before the pass, so Title, Text, Links and Meta are always valid UTF-8.
// Most pages are UTF-8 already, and are read in place.
package htmlpass

import (
	"bytes"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/politecrawler/polite/internal/weburl"
	"golang.org/x/net/html"
)

// Bounds on what one pass reads and keeps.
const (
	// MaxInput is how much of a body is read: the fetcher's body cap.
	MaxInput = 10 << 20
	// MaxText is how many bytes of readable text are kept.
	MaxText = 1 << 20
	// MaxLinks is how many distinct links are kept.
	MaxLinks = 10000
	// MaxLinkBytes bounds the links' URLs together; MaxLinkLen one URL
	// (longer ones are dropped: no crawler fetches them).
	MaxLinkBytes = 4 << 20
	MaxLinkLen   = 4096
	// MaxMetaNames is how many distinct <meta name> names are kept, and
	// MaxMetaContent how many bytes of content per name. The names the
	// fetcher reads signals from ("robots", "tdm-reservation", …) are kept
	// even past the limit; see Page.Meta.
	MaxMetaNames   = 1000
	MaxMetaContent = 4096
	// maxTitle bounds the title.
	maxTitle = 4096
	// maxTextPresize bounds the text buffer made before the text is read.
	maxTextPresize = 64 << 10
)

// Page is what one pass found in an HTML body. The zero Page is the page
// of an empty body that was never read (Read is 0).
type Page struct {
	// Title is the text of the first <title>, white space collapsed.
	Title string
	// Text is the readable text of the page: the text a reader sees,
	// without markup, scripts, styles, and the content of <noscript>,
	// <template>, <svg>, <math>, <iframe> and <textarea>, nor the title. Runs of white
	// space are one space; block elements (paragraphs, headings, list
	// items, table rows, <br>, …) end lines; <pre> keeps its white space.
	// There is no leading or trailing white space.
	Text string
	// Links lists the page's links in document order, each once: <a> and
	// <area> href, and <link> href whose rel is alternate, next or prev.
	// They are absolute http or https URLs without fragment, resolved as a
	// browser resolves them (internal/weburl): ASCII, the path in UTF-8,
	// the query in the page's encoding.
	Links []Link
	// Meta maps each <meta name> (lower case, trimmed) to its content.
	// Several tags of the same name give their contents joined by ", ",
	// as robots directives from several tags combine. Keys include
	// "robots", a crawler's own name ("politecrawler"), "tdm-reservation"
	// and "tdm-policy". Past MaxMetaNames names, only "robots",
	// "tdm-reservation", "tdm-policy" and "content-signal" are still added.
	Meta map[string]string
	// Refresh is the absolute http(s) URL a <meta http-equiv="refresh">
	// sends the reader to; "" when there is none, or it reloads the page.
	Refresh string
	// Base is the URL relative links were resolved against: the page URL,
	// or the first <base href>. "" when there was neither.
	Base string
	// Shell is what the page shows of being built by script.
	Shell Shell
	// Charset is the encoding the page was read in, and where it was
	// found.
	Charset Charset

	// Read is how many bytes of the body were read; Truncated is set when
	// the body was longer than MaxInput and the rest was not read.
	Read      int
	Truncated bool
	// TextTruncated is set when the text reached MaxText, LinksTruncated
	// when links were left out for MaxLinks or MaxLinkBytes.
	TextTruncated  bool
	LinksTruncated bool
}

// Link is one link of a page.
type Link struct {
	// URL is absolute, http or https, without fragment.
	URL string
	// NoFollow is set when every link to URL on the page has rel
	// "nofollow": a URL the page also links to plainly may be followed.
	NoFollow bool
}

// Parse reads body, the HTML of the page at pageURL sent with the
// Content-Type contentType ("" for none), in one bounded pass: it is
// decoded as Sniff finds it encoded, then read. pageURL resolves relative
// links and may be nil, in which case only absolute links (or those
// relative to an absolute <base href>) are kept. Parse never fails:
// whatever cannot be read is skipped.
func Parse(body []byte, contentType string, pageURL *url.URL) Page {
	truncated := len(body) > MaxInput
	if truncated {
		body = body[:MaxInput]
	}
	read := len(body)
	enc, cs, bom := Sniff(body, contentType)
	body = decode(body[bom:], enc, cs)
	// The text is rarely longer than the markup it came from: one buffer
	// of the body's size, up to a bound, spares the growing.
	p := pass{pageURL: pageURL, encoding: cs.Name, text: textWriter{max: MaxText, b: make([]byte, 0, min(len(body), maxTextPresize))}}
	p.run(body, false)
	if p.links != nil {
		p.page.Base = p.links.Base()
	} else if pageURL != nil {
		p.page.Base = pageURL.String()
	}
	p.page.Read, p.page.Truncated, p.page.Charset = read, truncated, cs
	p.page.Text = string(p.text.b)
	p.page.TextTruncated = p.text.full
	return p.page
}

// TextLen returns the length, in characters, of the readable text Parse
// would find in body (see Page.Text), up to MaxText, reading it as UTF-8.
// It keeps nothing and allocates little: a cheap measure of how much a
// page says, such as tells a challenge shell from an article. (A page in
// a legacy encoding has as many characters read so, give or take the
// multi-byte ones, which is all a measure needs.)
func TextLen(body []byte) int {
	p := pass{text: textWriter{max: MaxText, countOnly: true}}
	p.run(body[:min(len(body), MaxInput)], true)
	return p.text.n
}

// MayHaveMeta reports whether body, sent with the Content-Type
// contentType, may have a meta tag Parse would find: it has a "<meta", in
// any case, within what Parse reads, or it is in UTF-16 (a BOM or the
// header says so), which no byte scan can read. When it says no, Parse
// finds no meta tag: its Meta is empty and its Refresh "", for the
// Tokenizer reads a tag name as written, lowering only ASCII letters. It
// costs a scan for '<' and no allocation.
func MayHaveMeta(body []byte, contentType string) bool {
	if utf16(body, contentType) {
		return true
	}
	return hasMeta(body)
}

// hasMeta reports a "<meta", in any case, within MaxInput bytes of body.
func hasMeta(body []byte) bool {
	body = body[:min(len(body), MaxInput)]
	for {
		i := bytes.IndexByte(body, '<')
		if i < 0 {
			return false
		}
		if len(body)-i >= 5 && bytes.EqualFold(body[i+1:i+5], []byte("meta")) {
			return true
		}
		body = body[i+1:]
	}
}

// pass is the state of one reading.
type pass struct {
	page Page
	text textWriter
	// links resolves the page's links by its base and encoding, made when
	// first needed: a page whose links are all plain paths needs none.
	links    *weburl.Resolver
	pageURL  *url.URL
	encoding string
	netBase  *url.URL // the base for simpleLink, when canonical; made when first needed
	// origin is the base's scheme and authority, for plainLink; made
	// when first needed.
	origin string
	hrefs  int // links met so far

	seenBase, seenTitle bool
	skip                string         // "template", "svg" or "math" while inside one
	skipDepth           int            // nesting of skip inside itself
	pre                 int            // nesting of <pre> and <listing>
	linkIndex           map[string]int // resolved URL → index in Links
	hrefIndex           map[string]int // href as written → index in Links, or -1
	linkBytes           int
	shell               shellWatch
	noscript            bool // the raw text that may come next is a <noscript>'s
}

// The kinds of raw-text element: those whose content the Tokenizer returns
// as one text token.
const (
	rawNone   = iota
	rawHidden // script, style, noscript, iframe, noembed, noframes, textarea
	rawTitle  // title
	rawShown  // xmp, plaintext: shown as written, like <pre>
)

// rawKind says what becomes of a raw-text element's content.
func rawKind(name []byte) int {
	switch string(name) {
	case "script", "style", "noscript", "iframe", "noembed", "noframes", "textarea":
		return rawHidden
	case "title":
		return rawTitle
	case "xmp", "plaintext":
		return rawShown
	}
	return rawNone
}

// isBlock reports the elements that begin and end a line of text.
func isBlock(name []byte) bool {
	switch string(name) {
	case "address", "article", "aside", "blockquote", "body", "br", "caption",
		"center", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset",
		"figcaption", "figure", "footer", "form", "frameset", "h1", "h2", "h3", "h4",
		"h5", "h6", "head", "header", "hgroup", "hr", "html", "legend", "li",
		"listing", "main", "menu", "nav", "ol", "option", "p", "pre", "section",
		"select", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul":
		return true
	}
	return false
}

// maxTagName is the longest tag name the pass tells apart; longer names
// are no element it treats specially.
const maxTagName = 16

// tagName returns the lower-case name of the tag token raw ("<DIV a=b>",
// "</p>"), in buf. The Tokenizer's own TagName allocates a copy for every
// tag; this does not.
func tagName(raw []byte, buf *[maxTagName]byte) []byte {
	i := 1 // '<'
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	n := 0
	for ; i < len(raw); i++ {
		c := raw[i]
		if isSpace(c) || c == '/' || c == '>' {
			break
		}
		if n == len(buf) {
			return buf[:0] // too long to be one of ours
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return buf[:n]
}

// run reads the body. countOnly measures text and skips links and meta.
func (p *pass) run(body []byte, countOnly bool) {
	z := html.NewTokenizer(bytes.NewReader(body))
	var buf [maxTagName]byte
	raw := rawNone // the raw-text element whose content the next token may be
	for {
		tt := z.Next()
		kind := raw
		raw = rawNone
		noscript := p.noscript
		p.noscript = false
		if p.shell.pending != "" && !countOnly {
			var name []byte
			if tt == html.EndTagToken {
				name = tagName(z.Raw(), &buf)
			}
			p.shellNext(z, tt, name)
		}
		switch tt {
		case html.ErrorToken:
			return // io.EOF: the body is read
		case html.TextToken:
			if p.skip != "" {
				continue
			}
			switch kind {
			case rawHidden:
				if noscript && !countOnly {
					p.noscriptText(z.Text())
				}
			case rawNone:
				p.text.write(z.Text(), p.pre > 0)
			case rawShown:
				p.text.write(z.Text(), true)
			case rawTitle:
				if !p.seenTitle && !countOnly {
					p.seenTitle = true
					p.page.Title = collapse(z.Text(), maxTitle)
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name := tagName(z.Raw(), &buf)
			if p.skip != "" {
				if tt == html.StartTagToken && string(name) == p.skip {
					p.skipDepth++
				}
				if rawKind(name) != rawNone && p.skip != "template" {
					z.NextIsNotRawText() // in <svg> and <math>, <style> and <title> are markup
				}
				continue
			}
			if raw = rawKind(name); raw != rawNone {
				p.noscript = string(name) == "noscript"
				// The Tokenizer reads the content as text even for "<script/>",
				// as browsers do.
				if raw == rawShown {
					p.text.block()
				}
				continue
			}
			switch string(name) {
			case "template":
				p.enterSkip(tt, "template")
				continue
			case "svg":
				p.enterSkip(tt, "svg")
				continue
			case "math":
				p.enterSkip(tt, "math")
				continue
			case "pre", "listing":
				if tt == html.StartTagToken {
					p.pre++
				}
			case "td", "th":
				p.text.space()
			case "a", "area", "link", "base", "meta":
				if !countOnly {
					p.element(z, name)
				}
			default:
				if !countOnly {
					p.shellStart(z, tt, name)
				}
			}
			if isBlock(name) {
				p.text.block()
			}
		case html.EndTagToken:
			name := tagName(z.Raw(), &buf)
			if p.skip != "" {
				if string(name) == p.skip {
					if p.skipDepth--; p.skipDepth == 0 {
						p.skip = ""
					}
				}
				continue
			}
			switch string(name) {
			case "pre", "listing":
				if p.pre > 0 {
					p.pre--
				}
			case "td", "th":
				p.text.space()
			}
			if isBlock(name) {
				p.text.block()
			}
		}
	}
}

// enterSkip starts skipping the content of a template, svg or math
// element (not of a self-closed one, which has none).
func (p *pass) enterSkip(tt html.TokenType, name string) {
	if tt == html.StartTagToken {
		p.skip, p.skipDepth = name, 1
	}
}

// element reads the attributes of a, area, link, base and meta.
func (p *pass) element(z *html.Tokenizer, name []byte) {
	var href, rel, metaName, content, equiv []byte
	var haveHref bool
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		// The first of duplicate attributes counts, as in browsers; the
		// Tokenizer already drops the later ones.
		switch string(k) {
		case "href":
			href, haveHref = v, true
		case "rel":
			rel = v
		case "name":
			metaName = v
		case "content":
			content = v
		case "http-equiv":
			equiv = v
		}
	}
	switch string(name) {
	case "a", "area":
		if haveHref {
			p.addLink(href, hasToken(rel, "nofollow"))
		}
	case "link":
		if haveHref && (hasToken(rel, "alternate") || hasToken(rel, "next") || hasToken(rel, "prev")) &&
			!hasToken(rel, "stylesheet") {
			p.addLink(href, hasToken(rel, "nofollow"))
		}
	case "base":
		// The first <base href> sets the base. HTML requires it before any
		// URL it applies to, so links are resolved as they come.
		if haveHref && !p.seenBase {
			p.seenBase = true
			if p.resolver().SetBase(string(href)) {
				p.origin, p.netBase = "", nil
				p.hrefIndex = nil // hrefs met before resolve differently now
			}
		}
	case "meta":
		switch {
		case metaName != nil:
			p.addMeta(string(bytes.ToLower(trimSpace(metaName))), trimSpace(content))
		case bytes.EqualFold(trimSpace(equiv), []byte("refresh")) && p.page.Refresh == "":
			if target, ok := refreshURL(content); ok {
				if u, ok := p.resolver().Resolve(string(target)); ok {
					p.page.Refresh = u
				}
			}
		}
	}
}

// signalMetaNames are kept even past MaxMetaNames: the fetcher reads
// content signals from them.
var signalMetaNames = map[string]bool{
	"robots": true, "tdm-reservation": true, "tdm-policy": true, "content-signal": true,
}

func (p *pass) addMeta(name string, content []byte) {
	if name == "" {
		return
	}
	if p.page.Meta == nil {
		p.page.Meta = map[string]string{}
	}
	old, ok := p.page.Meta[name]
	switch {
	case !ok:
		if len(p.page.Meta) >= MaxMetaNames && !signalMetaNames[name] {
			return
		}
		p.page.Meta[name] = clip(content, MaxMetaContent)
	case len(content) > 0 && len(old)+2 < MaxMetaContent:
		if old == "" {
			p.page.Meta[name] = clip(content, MaxMetaContent)
		} else {
			p.page.Meta[name] = old + ", " + clip(content, MaxMetaContent-len(old)-2)
		}
	}
}

// addLink keeps the link href, resolved, if it is a web URL not seen
// before, within the bounds. Links to the page itself ("", "#top") are
// left out.
func (p *pass) addLink(href []byte, nofollow bool) {
	href = trimSpace(href)
	if len(href) == 0 || href[0] == '#' || len(href) > MaxLinkLen {
		return
	}
	// Pages repeat their links: an href met before is not resolved again.
	if i, ok := p.hrefIndex[string(href)]; ok {
		p.merge(i, nofollow)
		return
	}
	i := p.newLink(href, nofollow)
	// A small page's few hrefs are resolved each time they come; past a
	// few dozen, they are remembered.
	p.hrefs++
	if p.hrefs > 2*smallLinks && len(p.hrefIndex) < 4*MaxLinks {
		if p.hrefIndex == nil {
			p.hrefIndex = map[string]int{}
		}
		p.hrefIndex[string(href)] = i
	}
}

// merge records one more link to link i (-1: one that is not kept): the
// link is NoFollow only while every link to it is.
func (p *pass) merge(i int, nofollow bool) {
	if i >= 0 && !nofollow {
		p.page.Links[i].NoFollow = false
	}
}

// newLink resolves href and keeps it; it returns the link's index, or -1
// when it is not kept.
func (p *pass) newLink(href []byte, nofollow bool) int {
	if len(p.page.Links) >= MaxLinks {
		p.page.LinksTruncated = true
		return -1
	}
	s, ok := p.plainLink(href)
	if !ok {
		s, ok = p.simpleLink(href)
	}
	if !ok {
		if s, ok = p.resolver().Resolve(string(href)); !ok {
			return -1
		}
	}
	if len(s) > MaxLinkLen {
		return -1
	}
	if i, ok := p.findLink(s); ok {
		p.merge(i, nofollow)
		return i
	}
	if p.linkBytes+len(s) > MaxLinkBytes {
		p.page.LinksTruncated = true
		return -1
	}
	if p.page.Links == nil {
		p.page.Links = make([]Link, 0, smallLinks)
	}
	if p.linkIndex != nil {
		p.linkIndex[s] = len(p.page.Links)
	}
	p.linkBytes += len(s)
	p.page.Links = append(p.page.Links, Link{URL: s, NoFollow: nofollow})
	return len(p.page.Links) - 1
}

// smallLinks is how many links a page keeps before they are indexed: a
// page with fewer is searched link by link, which costs less than the
// maps.
const smallLinks = 16

// findLink returns the index of the kept link u, if it is kept.
func (p *pass) findLink(u string) (int, bool) {
	if p.linkIndex == nil {
		if len(p.page.Links) < smallLinks {
			for i := range p.page.Links {
				if p.page.Links[i].URL == u {
					return i, true
				}
			}
			return 0, false
		}
		p.linkIndex = make(map[string]int, 2*len(p.page.Links))
		for i, l := range p.page.Links {
			p.linkIndex[l.URL] = i
		}
	}
	i, ok := p.linkIndex[u]
	return i, ok
}

// plainLink resolves the most common href, a plain path from the root
// ("/news/today.html": letters, digits and "/-_.~", no dot segments),
// without parsing: it is the base's scheme and authority followed by the
// href, as resolving would make it. ok is false for any other href.
func (p *pass) plainLink(href []byte) (string, bool) {
	if !plainPath(href) {
		return "", false
	}
	if p.origin == "" {
		base := p.pageURL
		if p.links != nil || !canonical(base) {
			// The base as the URL parser wrote it: ASCII, its host in A-labels.
			var err error
			if base, err = url.Parse(p.resolver().Base()); err != nil {
				return "", false
			}
		}
		if base == nil || base.Scheme != "http" && base.Scheme != "https" || base.Host == "" || base.User != nil {
			return "", false
		}
		p.origin = base.Scheme + "://" + base.Host
	}
	return p.origin + string(href), true
}

// resolver returns the page's Resolver, made on first use.
func (p *pass) resolver() *weburl.Resolver {
	if p.links == nil {
		base := ""
		if p.pageURL != nil {
			base = p.pageURL.String()
		}
		var err error
		if p.links, err = weburl.NewResolver(base, p.encoding); err != nil {
			p.links, _ = weburl.NewResolver(base, "") // a name Sniff gives is always known
		}
	}
	return p.links
}

// plainPath reports an absolute path of unreserved characters and "/",
// without "." or ".." segments, which resolving leaves as it is.
func plainPath(href []byte) bool {
	if len(href) == 0 || href[0] != '/' || len(href) > 1 && href[1] == '/' {
		return false
	}
	segStart := 0
	for i := 0; i <= len(href); i++ {
		if i < len(href) && href[i] != '/' {
			c := href[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~') {
				return false
			}
			continue
		}
		if seg := href[segStart:i]; string(seg) == "." || string(seg) == ".." {
			return false
		}
		segStart = i + 1
	}
	return true
}

// refreshURL reads the URL of a meta refresh content, as HTML's "shared
// declarative refresh steps" do: a delay ("5", "0.5"), then ';' or ',' and
// an optional "url=", the URL optionally quoted. ok is false when there is
// no URL: the page reloads itself.
func refreshURL(content []byte) (target []byte, ok bool) {
	s := trimSpace(content)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return nil, false
	}
	s = trimSpace(s[i:])
	if len(s) > 0 && (s[0] == ';' || s[0] == ',') {
		s = trimSpace(s[1:])
	}
	if len(s) >= 3 && bytes.EqualFold(s[:3], []byte("url")) {
		rest := trimSpace(s[3:])
		if len(rest) > 0 && rest[0] == '=' {
			s = trimSpace(rest[1:])
		}
	}
	if len(s) > 0 && (s[0] == '\'' || s[0] == '"') {
		q := s[0]
		s = s[1:]
		if j := bytes.IndexByte(s, q); j >= 0 {
			s = s[:j]
		}
	}
	if len(s) == 0 {
		return nil, false
	}
	return s, true
}

// hasToken reports whether the space-separated list v holds tok, ignoring
// ASCII case (rel values are case-insensitive).
func hasToken(v []byte, tok string) bool {
	for len(v) > 0 {
		v = trimSpace(v)
		end := 0
		for end < len(v) && !isSpace(v[end]) {
			end++
		}
		if bytes.EqualFold(v[:end], []byte(tok)) {
			return true
		}
		v = v[end:]
	}
	return false
}

// isSpace is HTML's ASCII white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// trimSpace trims ASCII white space and other controls, as HTML trims
// attribute URLs.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && b[0] <= ' ' {
		b = b[1:]
	}
	for len(b) > 0 && b[len(b)-1] <= ' ' {
		b = b[:len(b)-1]
	}
	return b
}

// clip returns b as a string of at most max bytes, cut at a rune start.
func clip(b []byte, max int) string {
	if max <= 0 {
		return ""
	}
	if len(b) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut-- // do not split a rune
		}
		b = b[:cut]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// collapse returns s with runs of ASCII white space made one space and
// trimmed, as document.title reads a title (U+00A0 and the other Unicode
// spaces stay), at most max bytes.
func collapse(s []byte, max int) string {
	out := make([]byte, 0, min(len(s), max+1))
	space := false
	for _, c := range s {
		switch {
		case isSpace(c):
			space = len(out) > 0
		case len(out) > max:
			return clip(out, max)
		default:
			if space {
				out = append(out, ' ')
				space = false
			}
			out = append(out, c)
		}
	}
	return clip(out, max)
}
