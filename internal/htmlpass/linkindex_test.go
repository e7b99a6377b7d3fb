package htmlpass

import (
	"fmt"
	"strings"
	"testing"
)

// Links are kept once each, in document order, on either side of the
// count at which they start to be indexed; a link is NoFollow only while
// every link to it is.
func TestLinksAcrossTheIndex(t *testing.T) {
	for _, n := range []int{smallLinks - 1, smallLinks, smallLinks + 1, 3 * smallLinks} {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `<a rel=nofollow href="/p%d">a</a><a href="p%d">b</a>`, i, i) // the same URL twice
		}
		for i := range n {
			fmt.Fprintf(&b, `<a href="/p%d#again">c</a><a rel=nofollow href="/q%d">d</a>`, i, i)
		}
		p := Parse([]byte(b.String()), "", mustURL(t, "https://example.com/"))
		if len(p.Links) != 2*n {
			t.Fatalf("%d pairs: %d links, want %d", n, len(p.Links), 2*n)
		}
		for i, l := range p.Links {
			want, nofollow := fmt.Sprintf("https://example.com/p%d", i), false
			if i >= n {
				want, nofollow = fmt.Sprintf("https://example.com/q%d", i-n), true
			}
			if l.URL != want || l.NoFollow != nofollow {
				t.Errorf("%d pairs: link %d = %+v, want %s, NoFollow %v", n, i, l, want, nofollow)
			}
		}
	}
}
