package render_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// legacyPage is a page written in Go as UTF-8, sent in another encoding.
type legacyPage struct {
	name        string // the site's name, and what the case is
	contentType string
	prefix      string // bytes sent before the encoded page: a BOM
	enc         encoding.Encoding
	html        string
}

// The pages of the web that are not UTF-8, each as a browser meets it:
// declared in the header, in <meta> only, by http-equiv, by a BOM, or not
// at all. Their links carry non-ASCII paths and queries, a <base href>, a
// character the encoding lacks (written as a character reference) and an
// IDN host.
var legacyPages = []legacyPage{
	{"windows-1251.test", "text/html; charset=windows-1251", "", charmap.Windows1251,
		`<html><head><title>Новости дня</title></head><body><h1>Привет, мир</h1><p>Текст страницы.</p>
<a href="/путь?q=слово">один</a> <a href="поиск?q=&#9731;&amp;x=ё#низ">два</a> <a href="//пример.example/о?д=е">три</a></body></html>`},
	{"shift-jis-meta.test", "text/html", "", japanese.ShiftJIS,
		`<html><head><meta charset="Shift_JIS"><title>日本語のページ</title></head><body><p>こんにちは、世界。</p>
<a href="/パス/ファイル?q=検索">検索</a> <a href="/a?q=&#9731;">雪</a></body></html>`},
	{"euc-jp.test", "text/html; charset=EUC-JP", "", japanese.EUCJP,
		`<html><head><base href="/ディレクトリ/"><title>ＥＵＣのページ</title></head><body><p>カタカナとひらがな</p>
<a href="ファイル?q=漢字">相対</a> <a href="../上?q=ア#x">上へ</a></body></html>`},
	{"gbk.test", "text/html; charset=gb2312", "", simplifiedchinese.GBK,
		`<html><head><title>中文网页</title></head><body><p>简体中文的文字。</p>
<a href="/路径?q=查询">查询</a> <a href="/b?q=&#128512;">笑</a></body></html>`},
	{"gb18030.test", "text/html", "", simplifiedchinese.GB18030,
		`<html><head><meta charset="gb18030"><title>国标页面</title></head><body><p>文字€</p>
<a href="/路?q=&#128512;€">表情</a></body></html>`},
	{"big5.test", "text/html; charset=big5", "", traditionalchinese.Big5,
		`<html><head><title>繁體中文網頁</title></head><body><p>正體字的文章。</p>
<a href="/路徑?q=查詢">查詢</a></body></html>`},
	{"iso-8859-2.test", "text/html", "", charmap.ISO8859_2,
		`<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-2"><title>Łódź i Kraków</title></head>
<body><p>Zażółć gęślą jaźń.</p><a href="/ścieżka?q=żółw">żółw</a> <a href="/x?q=&#1078;">zh</a></body></html>`},
	{"windows-1252-default.test", "text/html", "", charmap.Windows1252,
		`<html><head><title>Café crème</title></head><body><p>Crème brûlée — 5 € · naïve façade</p>
<a href="/menü?q=café">menü</a> <a href="http://bücher.example/über">bücher</a></body></html>`},
	{"utf-8-bom.test", "text/html; charset=windows-1251", "\xEF\xBB\xBF", unicode.UTF8,
		`<html><head><title>Ünïcödé wins</title></head><body><p>Der Bär schläft.</p>
<a href="/über?q=straße">über</a></body></html>`},
	// Pages that lie or say too little, which browsers still read one
	// defined way.
	{"header-lies.test", "text/html; charset=utf-8", "", charmap.Windows1251,
		`<html><head><title>Заголовок</title></head><body><p>Байты не UTF-8.</p><a href="/путь?q=я">я</a></body></html>`},
	{"unknown-label.test", "text/html; charset=klingon", "", charmap.Windows1252,
		`<html><head><title>Señor</title></head><body><p>Año</p><a href="/año?q=ñ">ñ</a></body></html>`},
	{"late-meta.test", "text/html", "", charmap.Windows1251,
		`<html><head><!--` + strings.Repeat(" padding", 150) + ` --><meta charset="windows-1251"><title>Поздно</title></head>` +
			`<body><p>Текст</p><a href="/путь?q=я">я</a></body></html>`},
	{"undeclared-utf-8.test", "text/html", "", unicode.UTF8,
		`<html><head><title>Ünïcödé — ☃</title></head><body><p>Grüße</p><a href="/über?q=ß">über</a></body></html>`},
	{"header-twice.test", "text/html; charset=windows-1251; charset=koi8-r", "", charmap.Windows1251,
		`<html><head><title>Дубль</title></head><body><p>Текст</p><a href="/путь?q=я">я</a></body></html>`},
	{"x-user-defined-meta.test", "text/html", "", charmap.Windows1252,
		`<html><head><meta charset="x-user-defined"><title>Café</title></head><body><p>Crème</p><a href="/é?q=é">é</a></body></html>`},
	{"utf-16le-header.test", "text/html; charset=utf-16le", "", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM),
		`<html><head><title>Без BOM</title></head><body><p>Текст</p><a href="/путь?q=я">я</a></body></html>`},
	{"utf-16le-bom.test", "text/html", "\xFF\xFE", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM),
		`<html><head><title>Страница в UTF-16</title></head><body><p>Юникод.</p>
<a href="/путь?q=слово">путь</a></body></html>`},
}

// R8.4: a page is read as chromium reads it. Each page above is fetched
// by the Fetcher and loaded in chromium from the same bytes and header;
// the title, the text (document.body.innerText, white space aside), the
// links (a.href) and the charset (document.characterSet) must be
// chromium's.
func TestPagesReadAsChromiumReadsThem(t *testing.T) {
	needBrowser(t)
	var sites []politetest.Site
	for _, p := range legacyPages {
		body, err := p.enc.NewEncoder().String(p.html)
		if err != nil {
			t.Fatalf("%s: encoding the page: %v", p.name, err)
		}
		sites = append(sites, politetest.Site{Name: p.name, Pages: map[string]politetest.Page{
			"/dir/page.html": {Body: []byte(p.prefix + body), Header: http.Header{"Content-Type": {p.contentType}}},
		}})
	}
	farm := politetest.Start(t, sites...)
	f, r := fetcherAndRenderer(t, farm)
	ctx := context.Background()
	// Fetched side by side: each site waits its own rest after robots.txt.
	for _, p := range legacyPages {
		if err := f.Add(ctx, farm.URL(p.name, "/dir/page.html")); err != nil {
			t.Fatal(err)
		}
	}
	fetched := map[string]*polite.Result{}
	for res, err := range f.Results(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		fetched[res.URL] = res
	}
	for _, p := range legacyPages {
		t.Run(p.name, func(t *testing.T) {
			res := fetched[farm.URL(p.name, "/dir/page.html")]
			if res == nil || res.Err != nil {
				t.Fatalf("fetch: %v", res)
			}
			chromium, err := r.Render(ctx, res)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Charset().Name; got != chromium.Charset {
				t.Errorf("charset %q (%s), chromium's %q", got, res.Charset().Source, chromium.Charset)
			}
			if got := res.Title(); got != chromium.Title {
				t.Errorf("title %q, chromium's %q", got, chromium.Title)
			}
			text, err := res.TextForAI()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Fields(text), strings.Fields(chromium.Text); !slices.Equal(got, want) {
				t.Errorf("text %q, chromium's %q", text, chromium.Text)
			}
			var links []string
			for _, l := range res.Links() {
				links = append(links, l.URL)
			}
			if !slices.Equal(links, chromium.Links) {
				t.Errorf("links\n%s\nchromium's\n%s", strings.Join(links, "\n"), strings.Join(chromium.Links, "\n"))
			}
			if !strings.Contains(res.HTML(), chromium.Title) {
				t.Errorf("HTML() does not hold the title %q", chromium.Title)
			}
		})
	}
}
