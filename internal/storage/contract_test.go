package storage

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// records is what DB and Memory both do; the contract holds for each.
type records interface {
	LoadPage(url string) (Page, bool, error)
	SavePage(p Page) error
	PageHistory(url string) ([]Page, error)
	LoadRobots(origin string) (Robots, bool, error)
	SaveRobots(r Robots) error
	AddRefusal(r Refusal) error
	Refusals() ([]Refusal, error)
	LoadHost(host string) (Host, bool, error)
	SaveHost(h Host) error
	SaveRests(rs []Rest) error
	LoadAddrRest(a netip.Addr) (Rest, bool, error)
	LoadHostRest(host string) (Rest, bool, error)
	Close() error
}

var (
	_ records = (*DB)(nil)
	_ records = (*Memory)(nil)
)

// storeKinds are the implementations every contract test runs against.
var storeKinds = []struct {
	name string
	open func(t *testing.T) records
}{
	{"memory", func(t *testing.T) records { return NewMemory() }},
	{"disk", func(t *testing.T) records {
		db, err := Open(filepath.Join(t.TempDir(), "store.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}},
}

// storeContract is the behaviour both stores must have.
var storeContract = []struct {
	name string
	test func(t *testing.T, s records)
}{
	{"page round trip", testPageRoundTrip},
	{"normalised values", testNormalised},
	{"history order", testHistoryOrder},
	{"unchanged body", testUnchangedBody},
	{"urls kept apart", testURLsApart},
	{"copies not aliases", testCopies},
	{"missing keys", testMissing},
	{"bad keys", testBadKeys},
	{"robots", testRobots},
	{"refusals order", testRefusals},
	{"host records", testHosts},
	{"rests", testRests},
	{"concurrent writers", testConcurrent},
	{"closed", testClosed},
}

func TestStoreContract(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			for _, c := range storeContract {
				t.Run(c.name, func(t *testing.T) {
					s := kind.open(t)
					defer s.Close()
					c.test(t, s)
				})
			}
		})
	}
}

// when is a time with nanoseconds in a zone other than UTC.
func when(i int) time.Time {
	return storeTestTime.Add(time.Duration(i)*time.Hour + 123456789)
}

var storeTestTime = time.Date(2026, 5, 17, 14, 3, 7, 1, time.FixedZone("CEST", 2*3600))

// pageVersion is version i of url, fetched at when(i).
func pageVersion(url string, i int) Page {
	return Page{
		URL:    url,
		Status: 200,
		Header: http.Header{
			"Content-Type":  {"text/html; charset=utf-8"},
			"Etag":          {fmt.Sprintf(`"v%d"`, i)},
			"Last-Modified": {"Mon, 02 Jan 2006 15:04:05 GMT"},
			"Vary":          {"Accept-Encoding", "Accept-Language"},
		},
		Body:    fmt.Appendf(nil, "<html><body>%s version %d</body></html>", url, i),
		Fetched: when(i),
	}
}

// etag is the ETag field of a header as stored.
func etag(h map[string][]string) string { return http.Header(h).Get("Etag") }

// samePage compares a loaded page with the one saved: same instant, in
// UTC.
func samePage(t *testing.T, got, want Page) {
	t.Helper()
	if got.URL != want.URL || got.Status != want.Status || !bytes.Equal(got.Body, want.Body) ||
		!reflect.DeepEqual(got.Header, want.Header) {
		t.Fatalf("page:\n got %q %d %v %q\nwant %q %d %v %q", got.URL, got.Status, got.Header, got.Body,
			want.URL, want.Status, want.Header, want.Body)
	}
	if !got.Fetched.Equal(want.Fetched) || got.Fetched.Location() != time.UTC {
		t.Fatalf("fetched: got %v, want %v in UTC", got.Fetched, want.Fetched)
	}
}

func mustSave(t *testing.T, s records, p Page) {
	t.Helper()
	if err := s.SavePage(p); err != nil {
		t.Fatal(err)
	}
}

func mustLoad(t *testing.T, s records, url string) Page {
	t.Helper()
	p, ok, err := s.LoadPage(url)
	if err != nil || !ok {
		t.Fatalf("LoadPage(%q) = %v, %v", url, ok, err)
	}
	return p
}

func mustHistory(t *testing.T, s records, url string) []Page {
	t.Helper()
	h, err := s.PageHistory(url)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func testPageRoundTrip(t *testing.T, s records) {
	want := pageVersion("https://example.org/a", 1)
	mustSave(t, s, want)
	got := mustLoad(t, s, want.URL)
	samePage(t, got, want)
	if got.Fetched != want.Fetched.UTC() {
		t.Errorf("fetched %#v, want %#v (UTC, no monotonic reading)", got.Fetched, want.Fetched.UTC())
	}
	h := mustHistory(t, s, want.URL)
	if len(h) != 1 {
		t.Fatalf("history has %d versions, want 1", len(h))
	}
	samePage(t, h[0], want)

	// A time with a monotonic reading, as time.Now gives.
	now := pageVersion("https://example.org/now", 2)
	now.Fetched = time.Now()
	mustSave(t, s, now)
	if got := mustLoad(t, s, now.URL); got.Fetched != now.Fetched.Round(0).UTC() {
		t.Errorf("fetched %#v, want %#v", got.Fetched, now.Fetched.Round(0).UTC())
	}

	// Large body, odd statuses and bytes.
	big := Page{URL: "https://example.org/big?q=ü&x=%00", Status: -1, Body: bytes.Repeat([]byte{0, 1, 2, 0xff}, 300_000),
		Header: http.Header{"X-Empty": {""}, "x-lower-case": {"kept as written"}}, Fetched: time.Unix(1<<40, 999_999_999)}
	mustSave(t, s, big)
	samePage(t, mustLoad(t, s, big.URL), big)
}

func testNormalised(t *testing.T, s records) {
	mustSave(t, s, Page{URL: "https://example.org/empty", Status: 204, Header: http.Header{}, Body: []byte{}})
	got := mustLoad(t, s, "https://example.org/empty")
	if got.Body != nil || got.Header != nil || got.Fetched != (time.Time{}) {
		t.Errorf("empty page loads as %#v, want nil body, nil header, zero time", got)
	}
	mustSave(t, s, Page{URL: "https://example.org/novalues", Header: http.Header{"X-None": {}}})
	got = mustLoad(t, s, "https://example.org/novalues")
	if vs, ok := got.Header["X-None"]; !ok || vs != nil {
		t.Errorf("field without values loads as %#v, %v; want a nil slice", vs, ok)
	}
	for _, at := range []time.Time{{}, time.Unix(0, 0), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.FixedZone("", -7*3600)), time.Date(1600, 2, 29, 0, 0, 0, 0, time.Local)} {
		if err := s.SaveHost(Host{Host: "t.example", CoolOffUntil: at}); err != nil {
			t.Fatal(err)
		}
		h, _, err := s.LoadHost("t.example")
		if err != nil || h.CoolOffUntil != at.UTC() {
			t.Errorf("time %v loads as %v, %v", at, h.CoolOffUntil, err)
		}
	}
}

func testHistoryOrder(t *testing.T, s records) {
	const url = "https://example.org/news"
	var want []Page
	for i := range 7 {
		p := pageVersion(url, i)
		if i == 3 {
			p.Status = 500
		}
		want = append(want, p)
		mustSave(t, s, p)
		samePage(t, mustLoad(t, s, url), p)
	}
	h := mustHistory(t, s, url)
	if len(h) != len(want) {
		t.Fatalf("history has %d versions, want %d", len(h), len(want))
	}
	for i := range h {
		samePage(t, h[i], want[i])
	}
}

func testUnchangedBody(t *testing.T, s records) {
	const url = "https://example.org/same"
	body := bytes.Repeat([]byte("<p>unchanged</p>"), 1000)
	for i := range 5 {
		p := pageVersion(url, i)
		p.Body = body
		mustSave(t, s, p)
	}
	// Another URL with the same body shares it too (on disk).
	p := pageVersion("https://example.org/mirror", 0)
	p.Body = body
	mustSave(t, s, p)
	h := mustHistory(t, s, url)
	if len(h) != 5 {
		t.Fatalf("history has %d versions, want 5 (each save is a version)", len(h))
	}
	for i, v := range h {
		if !bytes.Equal(v.Body, body) || etag(v.Header) != fmt.Sprintf(`"v%d"`, i) {
			t.Fatalf("version %d: body %d bytes, ETag %s", i, len(v.Body), etag(v.Header))
		}
	}
	h[0].Body[0] = 'X' // versions sharing a body on disk come back as separate copies
	if h[1].Body[0] == 'X' {
		t.Error("two versions returned share one body slice")
	}
	samePage(t, mustLoad(t, s, "https://example.org/mirror"), p)
}

func testURLsApart(t *testing.T, s records) {
	urls := []string{"http://a", "http://a/", "http://a/b", "http://a/\x00", "http://a/\x00\x00", "\x01", "\x02\x01", strings.Repeat("x", 200), strings.Repeat("x", 201)}
	for round := range 3 {
		for i, u := range urls {
			p := pageVersion(u, round*100+i)
			mustSave(t, s, p)
		}
	}
	for i, u := range urls {
		h := mustHistory(t, s, u)
		if len(h) != 3 {
			t.Fatalf("%q: %d versions, want 3", u, len(h))
		}
		for round, v := range h {
			samePage(t, v, pageVersion(u, round*100+i))
		}
	}
	if h := mustHistory(t, s, "http://a/b/"); len(h) != 0 {
		t.Errorf("a URL never saved has %d versions", len(h))
	}
}

func testCopies(t *testing.T, s records) {
	p := pageVersion("https://example.org/c", 1)
	want := pageVersion("https://example.org/c", 1)
	want.Fetched = p.Fetched
	mustSave(t, s, p)
	// Change the argument after the save.
	p.Body[0] = 'X'
	p.Header["Etag"][0] = "changed"
	p.Header["X-New"] = []string{"1"}
	samePage(t, mustLoad(t, s, p.URL), want)

	// Change what a load returned.
	got := mustLoad(t, s, p.URL)
	got.Body[0] = 'Y'
	got.Header["Etag"][0] = "changed"
	got.Header["X-New"] = []string{"1"}
	h := mustHistory(t, s, p.URL)
	h[0].Body[1] = 'Z'
	h[0].Header["Vary"][0] = "changed"
	samePage(t, mustLoad(t, s, p.URL), want)
	samePage(t, mustHistory(t, s, p.URL)[0], want)

	r := Robots{Origin: "https://example.org:443", Status: 200, Header: http.Header{"Etag": {`"r"`}}, Body: []byte("User-agent: *\n")}
	if err := s.SaveRobots(r); err != nil {
		t.Fatal(err)
	}
	r.Body[0] = 'X'
	r.Header["Etag"][0] = "changed"
	gotR, _, err := s.LoadRobots(r.Origin)
	if err != nil || string(gotR.Body) != "User-agent: *\n" || etag(gotR.Header) != `"r"` {
		t.Fatalf("robots changed through the argument: %q %v %v", gotR.Body, gotR.Header, err)
	}
	gotR.Body[0] = 'Y'
	gotR.Header["Etag"][0] = "changed"
	gotR, _, _ = s.LoadRobots(r.Origin)
	if string(gotR.Body) != "User-agent: *\n" || etag(gotR.Header) != `"r"` {
		t.Fatalf("robots changed through a loaded copy: %q %v", gotR.Body, gotR.Header)
	}

	if err := s.AddRefusal(Refusal{Host: "h", URL: "u", Kind: "refused"}); err != nil {
		t.Fatal(err)
	}
	rs, _ := s.Refusals()
	rs[0].Kind = "changed"
	if rs, _ := s.Refusals(); rs[0].Kind != "refused" {
		t.Fatal("refusals changed through a returned slice")
	}
}

func testMissing(t *testing.T, s records) {
	mustSave(t, s, pageVersion("https://example.org/present", 0))
	if p, ok, err := s.LoadPage("https://example.org/absent"); err != nil || ok || !reflect.DeepEqual(p, Page{}) {
		t.Errorf("LoadPage(missing) = %v, %v, %v", p, ok, err)
	}
	if h, err := s.PageHistory("https://example.org/absent"); err != nil || len(h) != 0 {
		t.Errorf("PageHistory(missing) = %v, %v", h, err)
	}
	if r, ok, err := s.LoadRobots("https://example.org:443"); err != nil || ok || !reflect.DeepEqual(r, Robots{}) {
		t.Errorf("LoadRobots(missing) = %v, %v, %v", r, ok, err)
	}
	if h, ok, err := s.LoadHost("example.org"); err != nil || ok || h != (Host{}) {
		t.Errorf("LoadHost(missing) = %v, %v, %v", h, ok, err)
	}
	if rs, err := s.Refusals(); err != nil || len(rs) != 0 {
		t.Errorf("Refusals() on a new store = %v, %v", rs, err)
	}
}

func testBadKeys(t *testing.T, s records) {
	long := "https://example.org/" + strings.Repeat("a", 17<<10)
	for _, k := range []string{"", long} {
		errs := []error{
			s.SavePage(Page{URL: k}),
			s.SaveRobots(Robots{Origin: k}),
			s.SaveHost(Host{Host: k}),
		}
		_, _, err := s.LoadPage(k)
		errs = append(errs, err)
		_, err = s.PageHistory(k)
		errs = append(errs, err)
		_, _, err = s.LoadRobots(k)
		errs = append(errs, err)
		_, _, err = s.LoadHost(k)
		errs = append(errs, err)
		for i, err := range errs {
			if !errors.Is(err, ErrKey) {
				t.Errorf("key of %d bytes, call %d: err = %v, want ErrKey", len(k), i, err)
			}
		}
	}
	if err := s.SavePage(Page{URL: long[:16<<10]}); err != nil {
		t.Errorf("a 16 KiB URL: %v", err)
	}
}

func testRobots(t *testing.T, s records) {
	const origin = "https://example.org:443"
	r := Robots{Origin: origin, Status: 200, Body: []byte("User-agent: *\nDisallow: /private\n"),
		Header: http.Header{"Etag": {`"abc"`}, "Last-Modified": {"Mon, 02 Jan 2006 15:04:05 GMT"}}, Fetched: when(0)}
	if err := s.SaveRobots(r); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.LoadRobots(origin)
	if err != nil || !ok || got.Origin != origin || got.Status != 200 || !bytes.Equal(got.Body, r.Body) ||
		!reflect.DeepEqual(got.Header, r.Header) || !got.Fetched.Equal(r.Fetched) {
		t.Fatalf("LoadRobots = %#v, %v, %v", got, ok, err)
	}
	r2 := Robots{Origin: origin, Status: 404, Fetched: when(1)}
	if err := s.SaveRobots(r2); err != nil {
		t.Fatal(err)
	}
	got, _, _ = s.LoadRobots(origin)
	if got.Status != 404 || got.Body != nil || got.Header != nil || !got.Fetched.Equal(r2.Fetched) {
		t.Fatalf("after replacing: %#v", got)
	}
	if _, ok, _ := s.LoadRobots("http://example.org:80"); ok {
		t.Fatal("another origin has a copy")
	}
}

func testRefusals(t *testing.T, s records) {
	var want []Refusal
	for i := range 300 {
		r := Refusal{Host: fmt.Sprintf("h%d.example", i%7), URL: fmt.Sprintf("https://h%d.example/%d", i%7, i),
			Status: 403, Kind: []string{"refused", "failures"}[i%2], Evidence: fmt.Sprintf("cf-mitigated: challenge #%d", i), At: when(i)}
		want = append(want, r)
		if err := s.AddRefusal(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Refusals()
	if err != nil || len(got) != len(want) {
		t.Fatalf("Refusals() = %d records, %v; want %d", len(got), err, len(want))
	}
	for i := range got {
		w := want[i]
		w.At = w.At.UTC()
		if got[i] != w {
			t.Fatalf("refusal %d:\n got %#v\nwant %#v", i, got[i], w)
		}
	}
}

func testHosts(t *testing.T, s records) {
	h := Host{Host: "example.org", Stops: 1, CoolOffUntil: when(6), LastReason: "403 on /"}
	if err := s.SaveHost(h); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.LoadHost("example.org")
	if err != nil || !ok || got.Host != h.Host || got.Stops != 1 || !got.CoolOffUntil.Equal(h.CoolOffUntil) || got.LastReason != h.LastReason {
		t.Fatalf("LoadHost = %#v, %v, %v", got, ok, err)
	}
	h2 := Host{Host: "example.org", Stops: 2, CoolOffUntil: when(12), LastReason: "five failures"}
	if err := s.SaveHost(h2); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.LoadHost("example.org"); got != (Host{Host: h2.Host, Stops: 2, CoolOffUntil: h2.CoolOffUntil.UTC(), LastReason: h2.LastReason}) {
		t.Fatalf("after replacing: %#v", got)
	}
	if _, ok, _ := s.LoadHost("www.example.org"); ok {
		t.Fatal("another host has a record")
	}
}

// testRests (R1.4): a rest is kept under its address and its host, to the
// nanosecond and in UTC; a later save replaces it only if it ends later,
// so a rest is never shortened; an IPv4-mapped address is its IPv4 one.
func testRests(t *testing.T, s records) {
	addr := netip.MustParseAddr("192.0.2.7")
	for _, load := range []func() (Rest, bool, error){
		func() (Rest, bool, error) { return s.LoadAddrRest(addr) },
		func() (Rest, bool, error) { return s.LoadHostRest("a.example") },
	} {
		if r, ok, err := load(); err != nil || ok || r != (Rest{}) {
			t.Fatalf("a rest never saved: %v, %v, %v", r, ok, err)
		}
	}
	a := Rest{Addr: addr, Host: "a.example", Until: when(1), Rest: 3*time.Second + 1}
	if err := s.SaveRests([]Rest{a}); err != nil {
		t.Fatal(err)
	}
	want := a
	want.Until = a.Until.UTC()
	check := func(what string, got Rest, ok bool, err error, want Rest) {
		t.Helper()
		if err != nil || !ok || got != want || got.Until.Location() != time.UTC {
			t.Errorf("%s = %#v, %v, %v; want %#v", what, got, ok, err, want)
		}
	}
	got, ok, err := s.LoadAddrRest(addr)
	check("LoadAddrRest", got, ok, err, want)
	got, ok, err = s.LoadAddrRest(netip.AddrFrom16(addr.As16()))
	check("LoadAddrRest(IPv4-mapped)", got, ok, err, want)
	got, ok, err = s.LoadHostRest("a.example")
	check("LoadHostRest", got, ok, err, want)

	// Another host on the address, with a rest that ends sooner: the
	// address keeps a's, the new host has its own.
	b := Rest{Addr: addr, Host: "b.example", Until: when(0), Rest: time.Second}
	if err := s.SaveRests([]Rest{b}); err != nil {
		t.Fatal(err)
	}
	got, ok, err = s.LoadAddrRest(addr)
	check("address after a rest that ends sooner", got, ok, err, want)
	wantB := b
	wantB.Until = b.Until.UTC()
	got, ok, err = s.LoadHostRest("b.example")
	check("LoadHostRest(b)", got, ok, err, wantB)

	// a on another address, ending later: a's host and the new address
	// take it; the first address keeps what it had.
	other := netip.MustParseAddr("2001:db8::7")
	c := Rest{Addr: other, Host: "a.example", Until: when(2), Rest: 30 * time.Second}
	if err := s.SaveRests([]Rest{c}); err != nil {
		t.Fatal(err)
	}
	wantC := c
	wantC.Until = c.Until.UTC()
	got, ok, err = s.LoadHostRest("a.example")
	check("host after a later rest", got, ok, err, wantC)
	got, ok, err = s.LoadAddrRest(other)
	check("the other address", got, ok, err, wantC)
	got, ok, err = s.LoadAddrRest(addr)
	check("the first address", got, ok, err, want)

	for i, bad := range []Rest{
		{Host: "a.example", Until: when(3)},
		{Addr: addr, Until: when(3)},
		{Addr: addr, Host: "a.example", Until: when(3), Rest: -time.Second},
	} {
		if err := s.SaveRests([]Rest{{Addr: addr, Host: "d.example", Until: when(3)}, bad}); err == nil {
			t.Errorf("bad rest %d saved: %#v", i, bad)
		}
		if _, ok, err := s.LoadHostRest("d.example"); ok || err != nil {
			t.Errorf("bad rest %d: the sound one saved with it was kept (%v, %v); want none of them", i, ok, err)
		}
	}
	// Many at once: each kept, the one ending last of an address winning
	// whatever its place.
	var many []Rest
	for i := range 50 {
		many = append(many, Rest{Addr: netip.AddrFrom4([4]byte{198, 51, 100, byte(i % 5)}), Host: fmt.Sprintf("m%d.example", i),
			Until: when(10 + (i*7)%50), Rest: time.Duration(i) * time.Second})
	}
	if err := s.SaveRests(many); err != nil {
		t.Fatal(err)
	}
	for i, r := range many {
		got, ok, err := s.LoadHostRest(r.Host)
		r.Until = r.Until.UTC()
		check(fmt.Sprintf("host %d of many", i), got, ok, err, r)
	}
	for a := range 5 {
		addr := netip.AddrFrom4([4]byte{198, 51, 100, byte(a)})
		var last Rest
		for _, r := range many {
			if r.Addr == addr && r.Until.After(last.Until) {
				last = r
			}
		}
		last.Until = last.Until.UTC()
		got, ok, err := s.LoadAddrRest(addr)
		check("address "+addr.String()+" of many", got, ok, err, last)
	}
	if _, _, err := s.LoadAddrRest(netip.Addr{}); !errors.Is(err, ErrKey) {
		t.Errorf("LoadAddrRest(invalid): %v, want ErrKey", err)
	}
	if _, _, err := s.LoadHostRest(""); !errors.Is(err, ErrKey) {
		t.Errorf("LoadHostRest(\"\"): %v, want ErrKey", err)
	}
}

// testConcurrent: 64 writers, each saving its own pages and versions of
// one shared page, with readers alongside (run under -race).
func testConcurrent(t *testing.T, s records) {
	const writers, pages = 64, 12
	const shared = "https://example.org/shared"
	var wg sync.WaitGroup
	errc := make(chan error, 2*writers)
	for w := range writers {
		wg.Go(func() {
			for i := range pages {
				p := pageVersion(fmt.Sprintf("https://w%d.example/%d", w, i), i)
				if err := s.SavePage(p); err != nil {
					errc <- err
					return
				}
				if i%4 == 0 {
					if err := s.SavePage(pageVersion(shared, w)); err != nil {
						errc <- err
						return
					}
					if err := s.AddRefusal(Refusal{Host: fmt.Sprintf("w%d.example", w), Kind: "refused"}); err != nil {
						errc <- err
						return
					}
				}
				if err := s.SaveHost(Host{Host: fmt.Sprintf("w%d.example", w), Stops: i}); err != nil {
					errc <- err
					return
				}
			}
		})
		wg.Go(func() { // a reader: whatever it sees is whole
			for i := range pages {
				p, ok, err := s.LoadPage(fmt.Sprintf("https://w%d.example/%d", w, i))
				if err != nil || (ok && !bytes.Equal(p.Body, pageVersion(p.URL, i).Body)) {
					errc <- fmt.Errorf("concurrent load: %v, %q", err, p.Body)
					return
				}
				if _, err := s.PageHistory(shared); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	for w := range writers {
		for i := range pages {
			want := pageVersion(fmt.Sprintf("https://w%d.example/%d", w, i), i)
			samePage(t, mustLoad(t, s, want.URL), want)
		}
		if h, _, _ := s.LoadHost(fmt.Sprintf("w%d.example", w)); h.Stops != pages-1 {
			t.Fatalf("host w%d: stops %d, want %d", w, h.Stops, pages-1)
		}
	}
	if h := mustHistory(t, s, shared); len(h) != writers*pages/4 {
		t.Fatalf("shared page has %d versions, want %d", len(h), writers*pages/4)
	}
	if rs, _ := s.Refusals(); len(rs) != writers*pages/4 {
		t.Fatalf("%d refusals, want %d", len(rs), writers*pages/4)
	}
}

func testClosed(t *testing.T, s records) {
	mustSave(t, s, pageVersion("https://example.org/a", 0))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	_, _, err1 := s.LoadPage("https://example.org/a")
	err2 := s.SavePage(pageVersion("https://example.org/a", 1))
	_, err3 := s.Refusals()
	err4 := s.AddRefusal(Refusal{})
	err5 := s.SaveRests([]Rest{{Addr: netip.MustParseAddr("192.0.2.1"), Host: "example.org", Until: when(0)}})
	_, _, err6 := s.LoadAddrRest(netip.MustParseAddr("192.0.2.1"))
	_, _, err7 := s.LoadHostRest("example.org")
	for i, err := range []error{err1, err2, err3, err4, err5, err6, err7} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("call %d after Close: %v, want ErrClosed", i, err)
		}
	}
}
