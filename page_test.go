package polite

import (
	"net/http"
	"net/url"
	"testing"
)

// A page without a meta tag is not read when it arrives, only when a
// caller asks for its links or text; a page with one is read at once, for
// its content signals (R7).
func TestPageReadOnlyWhenNeeded(t *testing.T) {
	f, err := New(Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u, _ := url.Parse("https://example.com/p")
	header := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	tk := newTask(u.String())
	for _, tt := range []struct {
		name, body string
		readNow    bool
		noFollow   bool
	}{
		{"no meta tag", `<p>Text</p><a href="/a">a</a>`, false, false},
		{"a meta tag", `<META name=robots content=nofollow><p>Text</p><a href="/a">a</a>`, true, true},
	} {
		c := &completion{}
		f.readPage(tk, c, u, header, []byte(tt.body))
		if c.page == nil {
			t.Fatalf("%s: no page", tt.name)
		}
		if read := c.page.body == nil; read != tt.readNow {
			t.Errorf("%s: read at once %v, want %v", tt.name, read, tt.readNow)
		}
		if c.signals.NoFollow() != tt.noFollow {
			t.Errorf("%s: NoFollow %v, want %v", tt.name, c.signals.NoFollow(), tt.noFollow)
		}
		r := &Result{Status: 200, Body: []byte(tt.body), page: c.page, Signals: c.signals}
		if got := r.Links(); len(got) != 1 || got[0].URL != "https://example.com/a" || got[0].NoFollow != tt.noFollow {
			t.Errorf("%s: Links() = %v", tt.name, got)
		}
		if c.page.body != nil {
			t.Errorf("%s: still unread after Links", tt.name)
		}
	}
}
