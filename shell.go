package polite

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ScriptShellMaxText is the most visible text, in characters, a page may
// have and still look empty without JavaScript (ScriptShell).
const ScriptShellMaxText = 200

// ScriptShell is why a page looks empty until a script runs: little visible
// text, with an empty mount point or a <noscript> asking for JavaScript. A
// framework's marker alone is no sign: server-rendered pages carry them too.
type ScriptShell struct {
	Mount    string // the empty mount point: "#root", "#__next", "<app-root>", "[ng-app]"; "" if none
	Noscript bool   // a <noscript> asks for JavaScript
	Text     int    // characters of visible text
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

// ScriptShell reports whether the page looks empty without JavaScript, and
// why. It is false for a Result with an error (a refusal is never rendered
// around), a status not 2xx, and a body not HTML.
func (r *Result) ScriptShell() (ScriptShell, bool) {
	if r.Err != nil || r.Status < 200 || r.Status > 299 {
		return ScriptShell{}, false
	}
	p := r.page.get()
	if p == nil {
		return ScriptShell{}, false
	}
	s := ScriptShell{Mount: p.Shell.Mount, Noscript: p.Shell.Noscript, Text: utf8.RuneCountInString(p.Text)}
	return s, s.Text <= ScriptShellMaxText && (s.Mount != "" || s.Noscript)
}
