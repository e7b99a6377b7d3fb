package polite

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ScriptShellText is the most visible text, in characters, a page may
// have and still look empty without JavaScript (ScriptShell).
const ScriptShellText = 200

// ScriptShell is why a page looks empty until a script runs: little
// visible text (scripts, styles, <noscript> and <template> left out),
// together with an empty mount point or a <noscript> asking for
// JavaScript. A framework's marker alone (__NEXT_DATA__, data-reactroot,
// ng-version, data-server-rendered) is no sign of one: it usually comes
// with a page the server rendered, whose text is there.
type ScriptShell struct {
	// Mount is the mount point found empty: "#root", "#app", "#__next",
	// "#__nuxt", "#___gatsby", "<app-root>", or "[ng-app]" for an
	// AngularJS page; "" when none.
	Mount string
	// Noscript is set when a <noscript> asks for JavaScript.
	Noscript bool
	// Text is how many characters of visible text the page has.
	Text int
}

// String says why, as "12 characters of text, an empty #root and a
// <noscript> asking for JavaScript".
func (s ScriptShell) String() string {
	var why []string
	switch {
	case s.Mount == "[ng-app]":
		why = append(why, "an AngularJS ng-app")
	case s.Mount != "":
		why = append(why, "an empty "+s.Mount)
	}
	if s.Noscript {
		why = append(why, "a <noscript> asking for JavaScript")
	}
	return fmt.Sprintf("%d characters of text, %s", s.Text, strings.Join(why, " and "))
}

// ScriptShell reports whether the page looks empty without JavaScript,
// and why: a page a renderer could build (see ScriptShell). It is false
// for a Result with an error, which is every refusal and challenge page
// (rendering one would be getting around a block), for a status not 2xx,
// and for a body that is not HTML. Like Links, it may read the page when
// first called.
func (r *Result) ScriptShell() (ScriptShell, bool) {
	if r.Err != nil || r.Status < 200 || r.Status > 299 {
		return ScriptShell{}, false
	}
	p := r.page.get()
	if p == nil {
		return ScriptShell{}, false
	}
	s := ScriptShell{Mount: p.Shell.Mount, Noscript: p.Shell.Noscript, Text: utf8.RuneCountInString(p.Text)}
	return s, s.Text <= ScriptShellText && (s.Mount != "" || s.Noscript)
}
