package polite

import (
	"net/http"
	"net/url"
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/politecrawler/polite/internal/htmlpass"
)

func TestLinks(t *testing.T) {
	body, err := os.ReadFile("testdata/pages/article.html")
	if err != nil {
		t.Fatal(err)
	}
	page := parsePage(t, string(body), "https://example.com/guide/quiet.html")
	want := []Link{
		{"https://example.com/feed.xml", false},
		{"https://example.com/guide/page-2", false},
		{"https://example.com/", false},
		{"https://example.com/guide/", false},
		{"https://example.com/guide/related.html", false},
		{"https://other.example.org/paper", true},
	}
	if got := pageLinks(page, signalsFor(t, "", nil, string(body), "")); !reflect.DeepEqual(got, want) {
		t.Errorf("article links:\n got %v\nwant %v", got, want)
	}
}

// A page that says nofollow makes every link NoFollow, whether it says so
// in a meta tag, its own meta name or the header.
func TestLinksNoFollow(t *testing.T) {
	body, err := os.ReadFile("testdata/pages/nofollow.html")
	if err != nil {
		t.Fatal(err)
	}
	page := parsePage(t, string(body), "https://example.com/n.html")
	want := []Link{
		{"https://cdn.example.com/docs/a.html", true},
		{"https://cdn.example.com/b", true},
		{"https://example.org/c", true},
	}
	if got := pageLinks(page, signalsFor(t, "", nil, string(body), "")); !reflect.DeepEqual(got, want) {
		t.Errorf("nofollow page:\n got %v\nwant %v", got, want)
	}
	// The page's own robots meta counts even when the signals were read
	// without the page.
	if got := pageLinks(page, Signals{}); !reflect.DeepEqual(got, want) {
		t.Errorf("nofollow page, no signals:\n got %v\nwant %v", got, want)
	}

	plain := parsePage(t, `<a href="/a">a</a><a href="/b" rel="nofollow">b</a>`, "https://example.com/")
	for _, tt := range []struct {
		name string
		sig  Signals
		want []Link
	}{
		{"no signal", Signals{}, []Link{{"https://example.com/a", false}, {"https://example.com/b", true}}},
		{"header", signalsFor(t, "", http.Header{"X-Robots-Tag": {"nofollow"}}, "", ""),
			[]Link{{"https://example.com/a", true}, {"https://example.com/b", true}}},
		{"none", signalsFor(t, "", http.Header{"X-Robots-Tag": {"none"}}, "", ""),
			[]Link{{"https://example.com/a", true}, {"https://example.com/b", true}}},
		{"own meta", signalsFor(t, "", nil, `<head><meta name="politecrawler" content="nofollow"></head>`, ""),
			[]Link{{"https://example.com/a", true}, {"https://example.com/b", true}}},
		{"another bot's header", signalsFor(t, "", http.Header{"X-Robots-Tag": {"googlebot: nofollow"}}, "", ""),
			[]Link{{"https://example.com/a", false}, {"https://example.com/b", true}}},
	} {
		if got := pageLinks(plain, tt.sig); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if pageLinks(nil, Signals{}) != nil || pageLinks(&htmlpass.Page{}, Signals{}) != nil {
		t.Error("links of no page")
	}
}

// A page's pass is made once, when first asked for, even when Links and
// TextForAI are called at once from several goroutines (run with -race).
func TestLinksReadOnceAcrossGoroutines(t *testing.T) {
	body := []byte(`<p>Text</p><a href="/a">a</a><a href="/b" rel=nofollow>b</a>`)
	u, _ := url.Parse("https://example.com/x")
	r := &Result{Status: 200, Body: body, page: newLazyPage(body, "", u)}
	want := []Link{{URL: "https://example.com/a"}, {URL: "https://example.com/b", NoFollow: true}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := r.Links(); !reflect.DeepEqual(got, want) {
				t.Errorf("Links() = %v, want %v", got, want)
			}
			if got, err := r.TextForAI(); err != nil || got != "Text\nab" {
				t.Errorf("TextForAI() = %q, %v", got, err)
			}
		})
	}
	wg.Wait()
}

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
