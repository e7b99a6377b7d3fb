package htmlpass

import "testing"

// MayHaveMeta is false only for bodies in which Parse finds no meta tag;
// FuzzHTMLPass checks the same on arbitrary bytes.
func TestMayHaveMeta(t *testing.T) {
	for _, tt := range []struct {
		body string
		may  bool
	}{
		{`<p>no meta here</p><a href="/x">x</a>`, false},
		{`<head><meta charset=utf-8></head>`, true},
		{`<META NAME="Robots" CONTENT="noindex">`, true},
		{`<p>x</p><MeTa name=a>`, true},
		{`<script>"<meta name=robots content=none>"</script>`, true}, // no tag, but it takes a pass to know
		{`<metadata>`, true},
		{`<p>x<me`, false},
		{`meta name=robots`, false},
		{`<`, false},
		{"\xFF\xFE<\x00p\x00>\x00", true}, // UTF-16: no byte scan can tell
		{``, false},
	} {
		if got := MayHaveMeta([]byte(tt.body), "text/html"); got != tt.may {
			t.Errorf("MayHaveMeta(%q) = %v, want %v", tt.body, got, tt.may)
		}
		if !tt.may {
			if p := Parse([]byte(tt.body), "", nil); len(p.Meta) != 0 || p.Refresh != "" {
				t.Errorf("%q: no meta said, Parse found %v %q", tt.body, p.Meta, p.Refresh)
			}
		}
	}
}
