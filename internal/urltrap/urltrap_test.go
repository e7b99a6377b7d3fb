package urltrap

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// case, ports
		{"scheme and host lower-cased", "HTTP://Example.COM/Path", "http://example.com/Path"},
		{"https scheme", "HTTPS://EXAMPLE.com/", "https://example.com/"},
		{"http default port dropped", "http://example.com:80/a", "http://example.com/a"},
		{"https default port dropped", "https://example.com:443/a", "https://example.com/a"},
		{"443 is not http's default", "http://example.com:443/a", "http://example.com:443/a"},
		{"80 is not https's default", "https://example.com:80/a", "https://example.com:80/a"},
		{"other port kept", "http://example.com:8080/a", "http://example.com:8080/a"},
		{"empty port dropped", "http://example.com:/a", "http://example.com/a"},
		{"leading zeros in port", "http://example.com:0080/a", "http://example.com/a"},
		{"leading zeros in other port", "http://example.com:08080/a", "http://example.com:8080/a"},

		// hosts
		{"trailing dot dropped", "http://Example.com./a", "http://example.com/a"},
		{"trailing dot with port", "http://example.com.:8080/", "http://example.com:8080/"},
		{"IPv6 lower-cased, port dropped", "http://[2001:DB8::1]:80/", "http://[2001:db8::1]/"},
		{"IPv6 compressed", "http://[0:0:0:0:0:0:0:1]:8080/x", "http://[::1]:8080/x"},
		{"IPv4-mapped IPv6", "http://[::FFFF:192.0.2.1]/", "http://[::ffff:192.0.2.1]/"},
		{"IPv4 host kept", "http://192.0.2.1:80/", "http://192.0.2.1/"},
		// IPv4 as the URL Standard reads a host that ends in a number
		{"IPv4 as one decimal number", "http://2135753217/k", "http://127.77.2.1/k"},
		{"IPv4 in hex parts", "http://0x7F.0x4d.2.1/", "http://127.77.2.1/"},
		{"IPv4 part in octal", "http://127.77.2.01/", "http://127.77.2.1/"},
		{"IPv4 in two parts", "http://127.1/", "http://127.0.0.1/"},
		{"IPv4 in three parts", "http://10.1.258/", "http://10.1.1.2/"},
		{"IPv4 as one hex number", "http://0xC0000201:8080/", "http://192.0.2.1:8080/"},
		{"IPv4 with a trailing dot", "http://0300.0250.1.1./", "http://192.168.1.1/"},
		{"IPv4 zero", "http://0x/", "http://0.0.0.0/"},
		{"a name that ends in letters stays a name", "http://1.2.3.example/", "http://1.2.3.example/"},
		{"underscore in host", "http://my_host.Example.com/", "http://my_host.example.com/"},
		{"IDN host written as A-labels", "http://BÜCHER.de/", "http://xn--bcher-kva.de/"},
		{"punycode host lower-cased", "http://XN--BCHER-KVA.de/", "http://xn--bcher-kva.de/"},
		{"IDN host, trailing dot and port", "http://Bücher.Example.:8080/a", "http://xn--bcher-kva.example:8080/a"},
		{"IDN with ideographic full stops", "http://bücher。example。/", "http://xn--bcher-kva.example/"},
		{"IDN: sharp s kept (not transitional)", "http://faß.de/", "http://xn--fa-hia.de/"},
		{"fullwidth digits are an IPv4 address", "http://１２７.０.０.１/", "http://127.0.0.1/"},
		{"escaped IDN host decoded", "http://B%C3%BCcher.example/", "http://xn--bcher-kva.example/"},
		{"underscore beside an A-label", "http://my_host.xn--bcher-kva.de/", "http://my_host.xn--bcher-kva.de/"},

		// paths and dot segments (RFC 3986 §5.2.4, §5.4)
		{"empty path", "http://example.com", "http://example.com/"},
		{"empty path before query", "http://example.com?x=1", "http://example.com/?x=1"},
		{"RFC example", "http://a/b/c/./../../g", "http://a/g"},
		{"dot", "http://a/./b/", "http://a/b/"},
		{"trailing dot-dot is a directory", "http://a/b/c/..", "http://a/b/"},
		{"trailing dot is a directory", "http://a/b/.", "http://a/b/"},
		{"dot-dot above root", "http://a/../../x", "http://a/x"},
		{"only dot-dot", "http://a/..", "http://a/"},
		{"encoded dot-dot", "http://a/b/%2E%2e/x", "http://a/x"},
		{"encoded dot", "http://a/b/%2e/c", "http://a/b/c"},
		{"dot-dot pops an empty segment", "http://a/b//../c", "http://a/b/c"},
		{"dots inside names kept", "http://a/.well-known/x..y/...", "http://a/.well-known/x..y/..."},
		{"double slashes kept", "http://a//b//c", "http://a//b//c"},
		{"trailing slash kept", "http://a/b/", "http://a/b/"},

		// fragments
		{"fragment dropped", "http://a/b?c=1#frag", "http://a/b?c=1"},
		{"bad escape in fragment ignored", "http://a/b#%zz", "http://a/b"},
		{"empty fragment", "http://a/b#", "http://a/b"},

		// percent-encoding
		{"unreserved decoded", "http://a/%7Euser/%41b%2d%5F%2E%30", "http://a/~user/Ab-_.0"},
		{"hex upper-cased", "http://a/a%2fb", "http://a/a%2Fb"},
		{"reserved kept encoded in query", "http://a/?q=a%26b%3dc", "http://a/?q=a%26b%3Dc"},
		{"non-ASCII escape kept", "http://a/%e2%82%ac", "http://a/%E2%82%AC"},
		{"percent itself kept", "http://a/100%25", "http://a/100%25"},
		{"space encoded", "http://a/a b?q=c d", "http://a/a%20b?q=c%20d"},
		{"raw non-ASCII encoded", "http://a/é", "http://a/%C3%A9"},
		{"an IRI written in ASCII", "http://пример.example/путь?q=слово", "http://xn--e1afmkfd.example/%D0%BF%D1%83%D1%82%D1%8C?q=%D1%81%D0%BB%D0%BE%D0%B2%D0%BE"},
		{"raw bytes that are not UTF-8 escaped as they are", "http://a/\xf1?q=\xf1\xeb", "http://a/%F1?q=%F1%EB"},
		{"plus kept", "http://a/?q=a+b", "http://a/?q=a+b"},
		{"sub-delims kept raw", "http://a/!$&'()*+,;=:@?x=/?", "http://a/!$&'()*+,;=:@?x=/?"},
		{"unsafe raw bytes encoded", "http://a/<{|}>\\^`[]", "http://a/%3C%7B%7C%7D%3E%5C%5E%60%5B%5D"},
		{"whitespace around trimmed", "  http://a/b \n", "http://a/b"},

		// session ids
		{"jsessionid path param", "http://a/page.jsp;jsessionid=ABC123?x=1", "http://a/page.jsp?x=1"},
		{"jsessionid any case", "http://a/page.jsp;JSESSIONID=ABC123", "http://a/page.jsp"},
		{"other path params kept", "http://a/p;v=1;jsessionid=1;w=2", "http://a/p;v=1;w=2"},
		{"session param inside the path", "http://a/x;sid=1/y", "http://a/x/y"},
		{"session-named segment kept", "http://a/sid/jsessionid", "http://a/sid/jsessionid"},
		{"session param on a dot-dot", "http://a/b/..;jsessionid=1/c", "http://a/c"},
		{"encoded session name", "http://a/?%50HPSESSID=1&x=2", "http://a/?x=2"},
		{"PHPSESSID", "http://a/?PHPSESSID=abc&page=2", "http://a/?page=2"},
		{"sid, order kept", "http://a/?b=2&sid=9&a=1", "http://a/?b=2&a=1"},
		{"ASPSESSIONID prefix", "http://a/?ASPSESSIONIDQQGGQGQR=XYZ&q=1", "http://a/?q=1"},
		{"all the names", "http://a/?jsessionid=1&sessionid=1&session_id=1&cfid=1&cftoken=1&zenid=1&osCsid=1&sessid=1&SID=1", "http://a/"},
		{"empty ? left behind dropped", "http://a/p?sessionid=1#x", "http://a/p"},
		{"session name without value", "http://a/?sid&x", "http://a/?x"},
		{"s is not a session", "http://a/search?s=shoes", "http://a/search?s=shoes"},
		{"names containing session names kept", "http://a/?sidebar=1&mysid=2&sid_x=3", "http://a/?sidebar=1&mysid=2&sid_x=3"},

		// queries
		{"query order kept", "http://a/?z=1&a=2&m=3", "http://a/?z=1&a=2&m=3"},
		{"repeated names kept", "http://a/?a=1&a=2", "http://a/?a=1&a=2"},
		{"empty query dropped", "http://a/b?", "http://a/b"},
		{"empty parameters dropped", "http://a/?a=1&&b=2&", "http://a/?a=1&b=2"},
		{"only ampersands", "http://a/?&&", "http://a/"},
		{"semicolon does not split a query", "http://a/?a=1;sid=2", "http://a/?a=1;sid=2"},
		{"empty value kept", "http://a/?a=&b", "http://a/?a=&b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if err != nil {
				t.Fatalf("Normalize(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			again, err := Normalize(got)
			if err != nil || again != got {
				t.Fatalf("not idempotent: Normalize(%q) = %q, %v", got, again, err)
			}
		})
	}
}

func TestNormalizeErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"", ErrMalformed},
		{"/relative/path", ErrMalformed},
		{"example.com/a", ErrMalformed},
		{"ftp://example.com/", ErrNotHTTP},
		{"mailto:someone@example.com", ErrNotHTTP},
		{"javascript:alert(1)", ErrNotHTTP},
		{"file:///etc/passwd", ErrNotHTTP},
		{"httpx://example.com/", ErrNotHTTP},
		{"http:example.com", ErrNoHost},
		{"http:/example.com", ErrNoHost},
		{"http:///a", ErrNoHost},
		{"http://", ErrNoHost},
		{"http://?q", ErrNoHost},
		{"http://:80/", ErrNoHost},
		{"http://./", ErrNoHost},
		{"http://user:pw@example.com/", ErrUserinfo},
		{"http://user@example.com/", ErrUserinfo},
		{"http://good.example@evil.example/", ErrUserinfo},
		{"http://a/%zz", ErrMalformed},
		{"http://a/%4", ErrMalformed},
		{"http://a/?q=%", ErrMalformed},
		{"http://a:99999/", ErrMalformed},
		{"http://a:0/", ErrMalformed},
		{"http://a:8x/", ErrMalformed},
		{"http://a:80:80/", ErrMalformed},
		{"http://[::1/", ErrMalformed},
		{"http://[::1]x/", ErrMalformed},
		{"http://[fe80::1%25eth0]/", ErrMalformed},
		{"http://[192.0.2.1]/", ErrMalformed},
		{"http://[example.com]/", ErrMalformed},
		{"http://a..b/", ErrMalformed},
		{"http://1.2.3.4.5/", ErrMalformed},            // ends in a number, five parts
		{"http://256.0.0.1/", ErrMalformed},            // a part over 255
		{"http://1.2.3.256/", ErrMalformed},            // the last part over its room
		{"http://4294967296/", ErrMalformed},           // over 32 bits
		{"http://99999999999999999999/", ErrMalformed}, // over 64 bits
		{"http://09.1.1.1/", ErrMalformed},             // 9 is no octal digit
		{"http://example.0x10/", ErrMalformed},         // ends in a number, not an address
		{"http://1..1/", ErrMalformed},
		{"http://a%2Fb.example/", ErrMalformed},       // an escaped '/' is still a '/'
		{"http://a%zz.example/", ErrMalformed},        // bad escape
		{"http://a%C3.example/", ErrMalformed},        // not UTF-8
		{"http://xn--zz.example/", ErrMalformed},      // not punycode
		{"http://xn--abc-.example/", ErrMalformed},    // not an A-label
		{"http://-bücher.example/", ErrMalformed},     // leading hyphen
		{"http://bü_cher.example/", ErrMalformed},     // '_' in an IDN label
		{"http://b\u200dcher.example/", ErrMalformed}, // joiner out of context
		{"http://bücher\u3002\u3002example/", ErrMalformed},
		{"http://.a/", ErrMalformed},
		{"http://a../", ErrMalformed},
		{"http://a b/", ErrMalformed},
		{"http://a%41/", ErrMalformed},
		{"http://a\\b/", ErrMalformed},
		{"http://a/b\x00c", ErrMalformed},
		{"http://a/b\nc", ErrMalformed},
		{"http://a/?q=\x7f", ErrMalformed},
		{"http://\xff/", ErrMalformed},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.in)
		if !errors.Is(err, tt.want) {
			t.Errorf("Normalize(%q) = %q, %v; want error %v", tt.in, got, err, tt.want)
		}
	}
}

func TestNormalizeReturnsSameString(t *testing.T) {
	in := "https://example.com/a/b?c=1&d=2"
	got, err := Normalize(in)
	if err != nil || got != in {
		t.Fatalf("Normalize(%q) = %q, %v", in, got, err)
	}
	// One allocation, the working buffer; no second copy for a URL that
	// was already normal.
	if n := testing.AllocsPerRun(100, func() { _, _ = Normalize(in) }); n > 1 {
		t.Errorf("Normalize of a normal URL allocates %v times, want ≤ 1", n)
	}
}

var checkNow = time.Date(2026, time.June, 15, 12, 0, 0, 0, time.UTC)

func TestCheck(t *testing.T) {
	deep := "http://a"
	for i := 1; i <= 16; i++ {
		deep += fmt.Sprintf("/s%d", i)
	}
	tooDeep := deep + "/s17"
	tests := []struct {
		name   string
		url    string
		limits Limits
		kind   Kind   // "" for no trap
		reason string // checked when not empty
	}{
		// Calendar traps, both ways, in each form.
		{"path Y/M/D", "http://a/calendar/2031/04/01/", Limits{}, Calendar, "date 2031-04-01 runs 5 years from today"},
		{"path Y/M", "http://a/calendar/2031/04/", Limits{}, Calendar, "date 2031-04 runs 5 years from today"},
		{"path Y/M/D file", "http://a/calendar/2031/4/1/index.html", Limits{}, Calendar, "date 2031-04-01 runs 5 years from today"},
		{"segment Y-M-D", "http://a/events/2031-04-01", Limits{}, Calendar, "date 2031-04-01 runs 5 years from today"},
		{"segment Y-M-D.html", "http://a/events/2031-04-01.html", Limits{}, Calendar, ""},
		{"segment Y-M", "http://a/events/2031-04/", Limits{}, Calendar, "date 2031-04 runs 5 years from today"},
		{"segment compact", "http://a/day/20310401", Limits{}, Calendar, "date 2031-04-01 runs 5 years from today"},
		{"query date", "http://a/cal?date=2031-04-01", Limits{}, Calendar, "date 2031-04-01 runs 5 years from today"},
		{"query date with time", "http://a/cal?from=2031-04-01T00:00:00Z", Limits{}, Calendar, ""},
		{"query date with slashes", "http://a/cal?d=2031/04/01", Limits{}, Calendar, ""},
		{"query year and month", "http://a/cal?year=2031&month=4", Limits{}, Calendar, "date 2031-04 runs 5 years from today"},
		{"query month before year", "http://a/cal?month=4&Year=2031", Limits{}, Calendar, "date 2031-04 runs 5 years from today"},
		{"query year alone", "http://a/cal?yr=2031", Limits{}, Calendar, "date 2031 runs 5 years from today"},
		{"query month=YYYY-MM", "http://a/cal?month=2031-04", Limits{}, Calendar, "date 2031-04 runs 5 years from today"},
		{"query compact", "http://a/cal?day=20310401&view=day", Limits{}, Calendar, ""},
		{"past calendar", "http://a/cal/1990/01/", Limits{}, Calendar, "date 1990-01 runs 36 years before today"},
		{"just past the window", "http://a/cal/2029/01/", Limits{}, Calendar, "date 2029-01 runs 3 years from today"},
		{"wider window", "http://a/cal/2029/01/", Limits{CalendarYears: 3}, "", ""},
		{"calendar check off", "http://a/cal/2031/04/01/", Limits{CalendarYears: -1}, "", ""},

		// Dates that are not calendar traps.
		{"news of this year", "http://news.example/2026/06/15/story.html", Limits{}, "", ""},
		{"blog month this year", "http://a/blog/2026/11/", Limits{}, "", ""},
		{"next year", "http://a/cal/2027/01/01/", Limits{}, "", ""},
		{"edge of the window", "http://a/cal/2028/12/", Limits{}, "", ""},
		{"two years ago", "http://a/2024/01/01", Limits{}, "", ""},
		{"8-digit product id", "http://a/product/12345678", Limits{}, "", ""},
		{"bare year is an id", "http://a/item/1999/", Limits{}, "", ""},
		{"year then a word", "http://a/item/1999/red", Limits{}, "", ""},
		{"date in a slug", "http://a/posts/1998-03-12-my-first-post", Limits{}, "", ""},
		{"numeric id in query", "http://a/p?id=12345", Limits{}, "", ""},
		{"4 digits under another name", "http://a/list?page=2031", Limits{}, "", ""},
		{"year out of range", "http://a/search?q=3000-01-01", Limits{}, "", ""},
		{"3-digit year", "http://a/x/0999/01/", Limits{}, "", ""},
		{"version", "http://a/v/1.2.3/", Limits{}, "", ""},
		{"month 13", "http://a/x/2031/13/", Limits{}, "", ""},
		{"this year in query", "http://a/cal?year=2026&month=7", Limits{}, "", ""},

		// Repeating segments.
		{"pair repeated", "http://a/a/b/a/b/a/b", Limits{}, RepeatingSegments, `segment "a" occurs 3 times`},
		{"same segment thrice", "http://a/x/x/x/", Limits{}, RepeatingSegments, `segment "x" occurs 3 times`},
		{"relative-link loop", "http://a/shop/cart/shop/cart/shop/item", Limits{}, RepeatingSegments, `segment "shop" occurs 3 times`},
		{"scattered", "http://a/p/q/p/r/p", Limits{}, RepeatingSegments, ""},
		{"twice is fine", "http://a/docs/docs/", Limits{}, "", ""},
		{"twice each is fine", "http://a/en/docs/en/docs", Limits{}, "", ""},
		{"dates do not repeat", "http://a/2024/01/01", Limits{}, "", ""},
		{"numbers do not repeat", "http://a/tiles/3/3/3/", Limits{}, "", ""},
		{"empty segments do not repeat", "http://a/a////b", Limits{}, "", ""},

		// Depth and length.
		{"shallow", "http://a/a/b/c/d", Limits{}, "", ""},
		{"at the depth limit", deep, Limits{}, "", ""},
		{"at the depth limit with slash", deep + "/", Limits{}, "", ""},
		{"too deep", tooDeep, Limits{}, TooDeep, "path has 17 segments, limit 16"},
		{"custom depth", "http://a/a/b/c/d", Limits{MaxDepth: 3}, TooDeep, "path has 4 segments, limit 3"},
		{"depth check off", tooDeep, Limits{MaxDepth: -1}, "", ""},
		{"at the length limit", "http://a/" + strings.Repeat("x", 1024-len("http://a/")), Limits{}, "", ""},
		{"too long", "http://a/" + strings.Repeat("x", 1025-len("http://a/")), Limits{}, TooLong, "URL is 1025 bytes, limit 1024"},
		{"length check off", "http://a/" + strings.Repeat("x", 5000), Limits{MaxLength: -1}, "", ""},

		// Cookieless sessions.
		{"ASP.NET session", "http://a/(S(lit3py55t21z5v55vlm25s55))/default.aspx", Limits{}, SessionID, ""},
		{"ASP.NET several", "http://a/(A(x1)S(y2)F(z3))/p", Limits{}, SessionID, ""},
		{"parentheses in a title", "http://a/wiki/Foo_(bar)", Limits{}, "", ""},
		{"parenthesised word", "http://a/(x)/y", Limits{}, "", ""},

		// Ordinary pages.
		{"root", "http://a/", Limits{}, "", ""},
		{"product with digits", "https://shop.example/p/4711-blue-shirt?ref=home&utm=1", Limits{}, "", ""},
		{"not normalised, no panic", "no-scheme/2031/04/01", Limits{}, Calendar, ""},
		{"empty, no panic", "", Limits{}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, reason, bad := Check(tt.url, checkNow, tt.limits)
			if bad != (tt.kind != "") || kind != tt.kind {
				t.Fatalf("Check(%q) = %q, %q, %v; want %q", tt.url, kind, reason, bad, tt.kind)
			}
			if bad && reason == "" {
				t.Fatalf("Check(%q): no reason", tt.url)
			}
			if tt.reason != "" && reason != tt.reason {
				t.Fatalf("Check(%q) reason = %q, want %q", tt.url, reason, tt.reason)
			}
		})
	}
}

func TestCheckDoesNotAllocateForPages(t *testing.T) {
	u := "https://news.example/2026/06/15/a-story.html?id=7&page=2"
	if n := testing.AllocsPerRun(100, func() { Check(u, checkNow, Limits{}) }); n != 0 {
		t.Errorf("Check of an ordinary page allocates %v times", n)
	}
}

func TestURLSet(t *testing.T) {
	var tr URLSet
	if tr.Add("a", "http://a/x") {
		t.Fatal("first sighting reported as seen")
	}
	if !tr.Add("a", "http://a/x") {
		t.Fatal("second sighting not reported as seen")
	}
	if tr.Add("a", "http://a/y") || tr.Add("b", "http://b/x") {
		t.Fatal("another URL reported as seen")
	}
	if n := testing.AllocsPerRun(100, func() { tr.Add("a", "http://a/x") }); n != 0 {
		t.Errorf("Seen of a known URL allocates %v times", n)
	}
	for i := range 100 { // past the first table's size: it grows
		tr.Add("a", fmt.Sprintf("http://a/%d", i))
	}
	if !tr.Add("a", "http://a/42") || !tr.Add("a", "http://a/x") {
		t.Error("a URL lost as the host's set grew")
	}
	tr.Forget("a")
	if tr.Add("a", "http://a/x") || !tr.Add("b", "http://b/x") {
		t.Error("Forget(a): a's URL still seen, or b's lost")
	}
}

func TestContentDropsAfterSameContent(t *testing.T) {
	tr := NewTracker(Limits{})
	const body = 0xfeed
	for i := 1; i <= 4; i++ {
		u := fmt.Sprintf("http://a/cal?day=%d", i)
		if p, dropped := tr.Content("a", u, body); dropped {
			t.Fatalf("dropped %q after %d same-body URLs, want 5", p, i)
		}
		if _, bad := tr.Dropped("a", "http://a/cal?day=99"); bad {
			t.Fatalf("pattern dropped after %d URLs", i)
		}
	}
	p, dropped := tr.Content("a", "http://a/cal?day=5", body)
	if !dropped || p != "/cal?day={v}" {
		t.Fatalf("fifth same-body URL: %q, %v; want /cal?day={v}, true", p, dropped)
	}
	for _, u := range []string{"http://a/cal?day=99", "http://a/cal?day=x"} {
		if p, bad := tr.Dropped("a", u); !bad || p != "/cal?day={v}" {
			t.Errorf("Dropped(%q) = %q, %v", u, p, bad)
		}
	}
	// Later pages of the pattern are dropped whatever their body.
	if _, dropped := tr.Content("a", "http://a/cal?day=6", 1); !dropped {
		t.Error("Content of a dropped pattern not reported dropped")
	}
	for _, c := range []struct{ host, url string }{
		{"a", "http://a/cal"},
		{"a", "http://a/cal?day=1&view=week"},
		{"a", "http://a/calendar?day=1"},
		{"b", "http://b/cal?day=1"},
	} {
		if p, bad := tr.Dropped(c.host, c.url); bad {
			t.Errorf("Dropped(%q, %q) = %q, want not dropped", c.host, c.url, p)
		}
	}
}

func TestContentPatterns(t *testing.T) {
	tr := NewTracker(Limits{SameContent: 2})
	// Digit runs in the path are one number; query names are sorted.
	tr.Content("h", "http://h/item/123/v2?sort=a&page=1", 7)
	p, dropped := tr.Content("h", "http://h/item/45/v3?page=2&sort=b&page=3", 7)
	if want := "/item/{n}/v{n}?page={v}&sort={v}"; !dropped || p != want {
		t.Fatalf("got %q, %v; want %q", p, dropped, want)
	}
	// Escapes are not numbers.
	tr.Content("h", "http://h/a%20b/1", 8)
	if p, _ := tr.Content("h", "http://h/a%20b/2", 8); p != "/a%20b/{n}" {
		t.Fatalf("pattern %q, want /a%%20b/{n}", p)
	}
}

func TestContentNotDropped(t *testing.T) {
	t.Run("different bodies", func(t *testing.T) {
		tr := NewTracker(Limits{})
		for i := range 1000 {
			if p, dropped := tr.Content("a", fmt.Sprintf("http://a/p/%d", i), uint64(i)); dropped {
				t.Fatalf("dropped %q with all bodies different", p)
			}
		}
	})
	t.Run("same URL again", func(t *testing.T) {
		tr := NewTracker(Limits{})
		for range 20 {
			if _, dropped := tr.Content("a", "http://a/p/1", 1); dropped {
				t.Fatal("one URL fetched again counted as many")
			}
		}
	})
	t.Run("one body under unrelated patterns", func(t *testing.T) {
		// A site-wide "not found" page is one page, not a trap.
		tr := NewTracker(Limits{})
		for _, u := range []string{"http://a/x", "http://a/y/z", "http://a/q?w=1", "http://a/about", "http://a/team/", "http://a/jobs.html"} {
			if p, dropped := tr.Content("a", u, 404); dropped {
				t.Fatalf("dropped %q for a shared not-found page", p)
			}
		}
	})
	t.Run("same body on different hosts", func(t *testing.T) {
		tr := NewTracker(Limits{})
		for i := range 10 {
			h := fmt.Sprintf("h%d", i)
			if _, dropped := tr.Content(h, "http://"+h+"/p/1", 1); dropped {
				t.Fatal("hosts counted together")
			}
		}
	})
	t.Run("check off", func(t *testing.T) {
		tr := NewTracker(Limits{SameContent: -1})
		for i := range 10 {
			if _, dropped := tr.Content("a", fmt.Sprintf("http://a/p/%d", i), 1); dropped {
				t.Fatal("dropped with SameContent < 0")
			}
		}
	})
}

func TestZeroTracker(t *testing.T) {
	var tr Tracker
	if _, bad := tr.Dropped("a", "http://a/"); bad {
		t.Fatal("zero Tracker: Dropped")
	}
	for i := range 5 {
		_, dropped := tr.Content("a", fmt.Sprintf("http://a/%d", i), 1)
		if dropped != (i == 4) {
			t.Fatalf("zero Tracker: Content #%d dropped=%v", i+1, dropped)
		}
	}
}

func TestTrackerMemoryBound(t *testing.T) {
	tr := NewTracker(Limits{})
	for i := range 3 * contentPerHost {
		tr.Content("a", fmt.Sprintf("http://a/p/%d", i), uint64(i))
	}
	h := tr.hosts["a"]
	if len(h.bodies) != contentPerHost || len(h.order) != contentPerHost {
		t.Fatalf("host keeps %d bodies (%d in order), want %d", len(h.bodies), len(h.order), contentPerHost)
	}
	// The oldest went, the newest stayed.
	ph := hashString("/p/{n}")
	if _, ok := h.bodies[contentKey{body: 0, pattern: ph}]; ok {
		t.Error("oldest body not evicted")
	}
	if _, ok := h.bodies[contentKey{body: 3*contentPerHost - 1, pattern: ph}]; !ok {
		t.Error("newest body evicted")
	}
	// Detection still works after eviction.
	for i := range 5 {
		_, dropped := tr.Content("a", fmt.Sprintf("http://a/q/%d", i), 42)
		if dropped != (i == 4) {
			t.Fatalf("after eviction: Content #%d dropped=%v", i+1, dropped)
		}
	}

	// Dropped patterns are bounded too.
	tr = NewTracker(Limits{SameContent: 1})
	for i := range 2 * droppedPerHost {
		tr.Content("a", fmt.Sprintf("http://a/x%c%c/", 'a'+i%26, 'a'+i/26), 1)
	}
	if h := tr.hosts["a"]; len(h.dropped) != droppedPerHost {
		t.Fatalf("host keeps %d dropped patterns, want %d", len(h.dropped), droppedPerHost)
	}
}

func TestDroppedDoesNotAllocate(t *testing.T) {
	tr := NewTracker(Limits{SameContent: 1})
	tr.Content("a", "http://a/cal?day=1", 1)
	for _, u := range []string{"http://a/cal?day=2", "http://a/other/7?x=1&y=2"} {
		tr.Dropped("a", u) // warm the scratch buffers
		if n := testing.AllocsPerRun(100, func() { tr.Dropped("a", u) }); n != 0 {
			t.Errorf("Dropped(%q) allocates %v times", u, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { tr.Dropped("b", "http://b/x?y=1") }); n != 0 {
		t.Errorf("Dropped on a clean host allocates %v times", n)
	}
}

// FuzzNormalize checks that Normalize never panics, is idempotent, and
// returns a URL that net/url parses with the same scheme and host.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"http://Example.COM:80/a/./b/../c;jsessionid=ABC?PHPSESSID=1&x=2#frag",
		"https://[2001:DB8::1]:443/%7e%2f?q=%26",
		"http://a/b/..;sid=1/%2E%2E/c?&&sid=2&",
		"http://bücher.de./é ?q=a b",
		"HTTP://host:0080",
		"http://0x7F.1:8080/a",
		"http://0177.0.0.01./",
		"http://пример.example/путь?q=слово",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Normalize(in)
		if err != nil {
			return
		}
		again, err := Normalize(out)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which fails: %v", in, out, err)
		}
		if again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, again)
		}
		for i := 0; i < len(out); i++ {
			if out[i] >= 0x80 || out[i] <= ' ' || out[i] == 0x7f {
				t.Fatalf("Normalize(%q) = %q: byte %#x on the wire", in, out, out[i])
			}
		}
		u, err := url.Parse(out)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which net/url rejects: %v", in, out, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" {
			t.Fatalf("Normalize(%q) = %q: scheme %q host %q", in, out, u.Scheme, u.Host)
		}
		if !strings.EqualFold(u.Scheme, TrimSpace(in)[:len(u.Scheme)]) {
			t.Fatalf("Normalize(%q) = %q: scheme changed", in, out)
		}
		// Where net/url reads the input too, the host is the same one.
		if v, err := url.Parse(in); err == nil && v.Host != "" {
			if !sameHost(v.Hostname(), u.Hostname()) {
				t.Fatalf("Normalize(%q) = %q: host %q became %q", in, out, v.Hostname(), u.Hostname())
			}
		}
		if kind, reason, bad := Check(out, checkNow, Limits{}); bad && (kind == "" || reason == "") {
			t.Fatalf("Check(%q) = %q, %q", out, kind, reason)
		}
	})
}

// sameHost compares hosts as Normalize writes them: IPv6 by address,
// names without case and a trailing dot, an IDN as its A-labels.
func sameHost(a, b string) bool {
	if x, err := netip.ParseAddr(a); err == nil {
		y, err := netip.ParseAddr(b)
		return err == nil && x == y
	}
	a = strings.TrimSuffix(a, ".")
	for i := 0; i < len(a); i++ {
		if a[i] >= utf8.RuneSelf {
			ascii, err := idna.Lookup.ToASCII(a)
			if err != nil {
				return false
			}
			a = strings.TrimSuffix(ascii, ".")
			break
		}
	}
	if endsInNumber(a) { // an address a browser reads in the name
		x, err := parseIPv4(a)
		return err == nil && x.String() == b
	}
	return strings.EqualFold(a, b)
}

func TestHashSet(t *testing.T) {
	var s hashSet
	for i := uint64(0); i < 100_000; i++ {
		if s.add(i * 0x9E3779B97F4A7C15) {
			t.Fatalf("%d reported present before it was added", i)
		}
	}
	for i := uint64(0); i < 100_000; i++ {
		if !s.add(i * 0x9E3779B97F4A7C15) {
			t.Fatalf("%d lost", i)
		}
	}
	if s.n != 100_000 || s.n*4 > len(s.slots)*3 {
		t.Errorf("%d entries in %d slots", s.n, len(s.slots))
	}
}

// A host's first page is held apart until its second comes: the pattern
// is still dropped on the page that makes SameContent distinct URLs, the
// same URL twice still counts once, and a host with one page keeps no
// memory of its own.
func TestContentFromAHostsSecondPage(t *testing.T) {
	tr := NewTracker(Limits{SameContent: 2})
	if _, dropped := tr.Content("a", "http://a/p/1", 7); dropped {
		t.Fatal("one page dropped its pattern")
	}
	if tr.hosts["a"] != nil || len(tr.firsts) != 1 {
		t.Fatalf("after one page: host memory %v, %d first pages; want none and 1", tr.hosts["a"] != nil, len(tr.firsts))
	}
	if _, dropped := tr.Content("a", "http://a/p/1", 7); dropped {
		t.Fatal("the same URL twice dropped its pattern")
	}
	if p, dropped := tr.Content("a", "http://a/p/2", 7); !dropped || p != "/p/{n}" {
		t.Fatalf("second URL of the pattern with the same body: %q, %v; want /p/{n} dropped", p, dropped)
	}
	if len(tr.firsts) != 0 {
		t.Errorf("%d first pages held after the host's memory was made", len(tr.firsts))
	}
	if p, bad := tr.Dropped("a", "http://a/p/3"); !bad || p != "/p/{n}" {
		t.Errorf("Dropped(/p/3) = %q, %v", p, bad)
	}

	// The first page counts once its host's memory is made: two distinct
	// URLs with one body are enough at SameContent 2.
	fresh := NewTracker(Limits{SameContent: 2})
	fresh.Content("c", "http://c/p/1", 7)
	if p, dropped := fresh.Content("c", "http://c/p/2", 7); !dropped || p != "/p/{n}" {
		t.Errorf("the host's second URL with the first's body: %q, %v; want /p/{n} dropped", p, dropped)
	}

	one := NewTracker(Limits{SameContent: 1})
	if _, dropped := one.Content("b", "http://b/q/1", 7); !dropped {
		t.Error("SameContent 1: the first page did not drop its pattern")
	}
}

// R1.1: a bare host name, as Config names one, gets the spelling
// Normalize writes in a URL.
func TestHost(t *testing.T) {
	for in, want := range map[string]string{
		"API.Example.":          "api.example",
		"bücher.example":        "xn--bcher-kva.example",
		"BÜCHER.Example.":       "xn--bcher-kva.example",
		"xn--BCHER-kva.example": "xn--bcher-kva.example",
		"192.0.2.1":             "192.0.2.1",
	} {
		got, err := Host(in)
		if err != nil || got != want {
			t.Errorf("Host(%q) = %q, %v; want %q", in, got, err, want)
		}
		if n, err := Normalize("http://" + in + "/"); err != nil || n != "http://"+want+"/" {
			t.Errorf("Normalize of a URL on %q = %q, %v; Host says %q", in, n, err, want)
		}
	}
	for _, in := range []string{"", ".", "a..b", "xn--zz.example", "bü_cher.example"} {
		if got, err := Host(in); err == nil {
			t.Errorf("Host(%q) = %q, want an error", in, got)
		}
	}
}
