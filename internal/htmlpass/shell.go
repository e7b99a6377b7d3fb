package htmlpass

import (
	"bytes"

	"golang.org/x/net/html"
)

// Shell is what a page shows of being built by script in the browser: an
// element a framework mounts the page into, left empty by the server, and
// a <noscript> asking for JavaScript. Markers that a framework rendered
// the page on the server (__NEXT_DATA__, data-reactroot, ng-version,
// data-server-rendered) are not looked for: they come with the text.
type Shell struct {
	// Mount is the first mount point found empty: "#root", "#app",
	// "#__next", "#__nuxt", "#___gatsby" (an element of that id), or
	// "<app-root>" (Angular's); "[ng-app]" when an element carries
	// AngularJS's ng-app, empty or not. "" when none.
	Mount string
	// Noscript is set when a <noscript> mentions JavaScript ("You need
	// to enable JavaScript to run this app.").
	Noscript bool
}

// mountIDs are the ids frameworks mount a page into, by default: React's
// create-react-app and Vite (root), Vue (app), Next.js, Nuxt, Gatsby.
var mountIDs = map[string]bool{"root": true, "app": true, "__next": true, "__nuxt": true, "___gatsby": true}

// shellWatch finds an empty mount point in the token stream: a mount
// element's start tag whose next tokens, past white space and comments,
// are its own end tag.
type shellWatch struct {
	pending string // the mount element whose content is being looked at
	end     string // its tag name, whose end tag makes it empty
}

// start looks at an element's start tag for a mount point. raw is the
// tag as written: only a tag that may name one has its attributes read.
func (p *pass) shellStart(z *html.Tokenizer, tt html.TokenType, name []byte) {
	p.shell.pending = ""
	if p.page.Shell.Mount != "" && p.page.Shell.Mount != "[ng-app]" {
		return
	}
	mount := ""
	if string(name) == "app-root" {
		mount = "<app-root>"
	} else if raw := z.Raw(); bytes.Contains(raw, []byte("id")) || bytes.Contains(raw, []byte("ng-app")) {
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			switch string(k) {
			case "id":
				if mountIDs[string(v)] {
					mount = "#" + string(v)
				}
			case "ng-app", "data-ng-app":
				if p.page.Shell.Mount == "" {
					p.page.Shell.Mount = "[ng-app]"
				}
			}
		}
	}
	switch {
	case mount == "":
	case tt == html.SelfClosingTagToken:
		p.page.Shell.Mount = mount
	default:
		p.shell.pending, p.shell.end = mount, string(name)
	}
}

// shellNext looks at the token after a mount element's start tag: white
// space and comments keep it pending, its end tag makes it empty, and
// anything else shows it has content.
func (p *pass) shellNext(z *html.Tokenizer, tt html.TokenType, name []byte) {
	switch tt {
	case html.CommentToken:
		return
	case html.TextToken:
		if len(bytes.TrimSpace(z.Text())) == 0 {
			return
		}
	case html.EndTagToken:
		if string(name) == p.shell.end {
			p.page.Shell.Mount = p.shell.pending
		}
	}
	p.shell.pending = ""
}

// noscriptText notes a <noscript> that asks for JavaScript.
func (p *pass) noscriptText(text []byte) {
	if !p.page.Shell.Noscript && bytes.Contains(bytes.ToLower(text), []byte("javascript")) {
		p.page.Shell.Noscript = true
	}
}
