package polite_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"

	"github.com/politecrawler/polite"
)

// The rest of storeContract: the records beside pages (robots.txt copies,
// refusals, host records), then a store under load and a closed one.

func testRobots(t *testing.T, s polite.Store) {
	const origin = "https://example.org:443"
	r := polite.StoredRobots{Origin: origin, Status: 200, Body: []byte("User-agent: *\nDisallow: /private\n"),
		Header: http.Header{"Etag": {`"abc"`}, "Last-Modified": {"Mon, 02 Jan 2006 15:04:05 GMT"}}, Fetched: when(0)}
	if err := s.SaveRobots(r); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.LoadRobots(origin)
	if err != nil || !ok || got.Origin != origin || got.Status != 200 || !bytes.Equal(got.Body, r.Body) ||
		!reflect.DeepEqual(got.Header, r.Header) || !got.Fetched.Equal(r.Fetched) {
		t.Fatalf("LoadRobots = %#v, %v, %v", got, ok, err)
	}
	r2 := polite.StoredRobots{Origin: origin, Status: 404, Fetched: when(1)}
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

func testRefusals(t *testing.T, s polite.Store) {
	var want []polite.RefusalRecord
	for i := range 300 {
		r := polite.RefusalRecord{Host: fmt.Sprintf("h%d.example", i%7), URL: fmt.Sprintf("https://h%d.example/%d", i%7, i),
			Status: 403, Kind: []polite.StopKind{polite.StopRefused, polite.StopFailures}[i%2], Evidence: fmt.Sprintf("cf-mitigated: challenge #%d", i), At: when(i)}
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

func testHosts(t *testing.T, s polite.Store) {
	h := polite.HostRecord{Host: "example.org", Stops: 1, CoolOffUntil: when(6), LastReason: "403 on /"}
	if err := s.SaveHost(h); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.LoadHost("example.org")
	if err != nil || !ok || got.Host != h.Host || got.Stops != 1 || !got.CoolOffUntil.Equal(h.CoolOffUntil) || got.LastReason != h.LastReason {
		t.Fatalf("LoadHost = %#v, %v, %v", got, ok, err)
	}
	h2 := polite.HostRecord{Host: "example.org", Stops: 2, CoolOffUntil: when(12), LastReason: "five failures"}
	if err := s.SaveHost(h2); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.LoadHost("example.org"); got != (polite.HostRecord{Host: h2.Host, Stops: 2, CoolOffUntil: h2.CoolOffUntil.UTC(), LastReason: h2.LastReason}) {
		t.Fatalf("after replacing: %#v", got)
	}
	if _, ok, _ := s.LoadHost("www.example.org"); ok {
		t.Fatal("another host has a record")
	}
}

// testConcurrent: 64 writers, each saving its own pages and versions of
// one shared page, with readers alongside (run under -race).
func testConcurrent(t *testing.T, s polite.Store) {
	const writers, pages = 64, 12
	const shared = "https://example.org/shared"
	var wg sync.WaitGroup
	errc := make(chan error, 2*writers)
	for w := range writers {
		wg.Go(func() {
			for i := range pages {
				p := testPage(fmt.Sprintf("https://w%d.example/%d", w, i), i)
				if err := s.SavePage(p); err != nil {
					errc <- err
					return
				}
				if i%4 == 0 {
					if err := s.SavePage(testPage(shared, w)); err != nil {
						errc <- err
						return
					}
					if err := s.AddRefusal(polite.RefusalRecord{Host: fmt.Sprintf("w%d.example", w), Kind: "refused"}); err != nil {
						errc <- err
						return
					}
				}
				if err := s.SaveHost(polite.HostRecord{Host: fmt.Sprintf("w%d.example", w), Stops: i}); err != nil {
					errc <- err
					return
				}
			}
		})
		wg.Go(func() { // a reader: whatever it sees is whole
			for i := range pages {
				p, ok, err := s.LoadPage(fmt.Sprintf("https://w%d.example/%d", w, i))
				if err != nil || (ok && !bytes.Equal(p.Body, testPage(p.URL, i).Body)) {
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
			want := testPage(fmt.Sprintf("https://w%d.example/%d", w, i), i)
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

func testClosed(t *testing.T, s polite.Store) {
	mustSave(t, s, testPage("https://example.org/a", 0))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	_, _, err1 := s.LoadPage("https://example.org/a")
	err2 := s.SavePage(testPage("https://example.org/a", 1))
	_, err3 := s.Refusals()
	err4 := s.AddRefusal(polite.RefusalRecord{})
	for i, err := range []error{err1, err2, err3, err4} {
		if !errors.Is(err, polite.ErrStore) {
			t.Errorf("call %d after Close: %v, want ErrStore", i, err)
		}
	}
}
