package polite_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/botauth"
	"github.com/politecrawler/polite/politetest"
)

// agent is the Signature-Agent the tests' crawler names. Its directory is
// served on loopback; the verifier is pointed there.
const agent = "https://crawler.test"

// newEd25519 is a fresh key.
func newEd25519(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// newSigner signs with key for agent, failing the test on an error.
func newSigner(t *testing.T, key ed25519.PrivateKey, opt botauth.Options) *botauth.Signer {
	t.Helper()
	s, err := botauth.NewSigner(key, agent, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serveDirectory serves the directory of keys on loopback and returns
// its URL.
func serveDirectory(t *testing.T, keys ...ed25519.PrivateKey) string {
	t.Helper()
	d, err := botauth.NewDirectory(keys...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(botauth.DirectoryPath, d)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + botauth.DirectoryPath
}

// asSent is a farm visit as the verifier takes it.
func asSent(name string, v politetest.Visit) signedRequest {
	h := map[string]string{}
	for k, vs := range v.Header {
		h[k] = strings.Join(vs, ", ")
	}
	return signedRequest{Name: name, Authority: v.Authority, Path: v.Path, Headers: h}
}

// R4: with a Signer set, every request the farm received carries a Web
// Bot Auth signature that Cloudflare's verifier accepts with the keys of
// the crawler's directory: robots.txt, pages, a redirect hop, a retry
// (signed afresh), a page asked through Fetch as a renderer asks its
// subrequests, and a host of Config.Unrestricted, signed like the rest.
// The politeness audit stays clean. A header changed on the way, a
// signature past its expiry and a key the directory does not list each
// fail the same verification.
func TestEveryRequestIsSignedAndVerifies(t *testing.T) {
	r := newFarmRig(t)
	shop := r.site(politetest.Site{Name: "shop.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nAllow: /\n"),
		"/old":                {Status: 301, Redirect: "/new"},
		"/flaky":              {Sequence: []politetest.Page{{Status: 503}, {}}},
	}})
	other := r.site(politetest.Site{Name: "other.test"})
	own := r.site(politetest.Site{Name: "own.test"})
	current, next := newEd25519(t), newEd25519(t)
	directory := serveDirectory(t, current, next)
	r.start(polite.Config{
		Signer:       newSigner(t, current, botauth.Options{}),
		Unrestricted: polite.Unrestricted{Hosts: []string{own}, Reason: "our own site, for the test"},
	}, jitter(0.5))

	ctx := context.Background()
	if res, err := r.f.Fetch(ctx, r.url(other, "/asked")); err != nil || res.Err != nil {
		t.Fatalf("Fetch: %v %v", err, res.Err)
	}
	urls := []string{r.url(shop, "/"), r.url(shop, "/old"), r.url(shop, "/flaky"), r.url(other, "/"), r.url(own, "/")}
	r.add(urls...)
	for u, res := range r.results(len(urls)) {
		if res.Err != nil || res.Status != 200 {
			t.Errorf("%s: %d %v", u, res.Status, res.Err)
		}
	}

	visits := r.farm.Audit().Visits()
	var reqs []signedRequest
	seen := map[string]bool{}
	kinds := map[string]int{}
	for i, v := range visits {
		name := v.Host + v.Path + "#" + string(rune('a'+i))
		for _, h := range []string{"Signature-Agent", "Signature-Input", "Signature"} {
			if len(v.Header[h]) != 1 {
				t.Errorf("%s: %s %q", name, h, v.Header[h])
			}
		}
		if sig := v.Header.Get("Signature"); seen[sig] {
			t.Errorf("%s: a signature sent twice", name)
		} else {
			seen[sig] = true
		}
		kinds[v.Path]++
		reqs = append(reqs, asSent(name, v))
	}
	if kinds[politetest.RobotsPath] != 2 || kinds["/new"] != 1 || kinds["/flaky"] != 2 || kinds["/asked"] != 1 {
		t.Errorf("farm saw %v", kinds)
	}

	// What a verifier must refuse.
	first := visits[0]
	tampered := asSent("tampered", first)
	tampered.Headers["Signature-Agent"] = botauth.Label + `="https://impostor.test"`
	signed := func(name string, s *botauth.Signer) signedRequest {
		req, _ := http.NewRequest("GET", "http://"+first.Authority+first.Path, nil)
		req.Header.Set("User-Agent", r.f.UserAgent())
		if err := s.SignRequest(req); err != nil {
			t.Fatal(err)
		}
		h := map[string]string{}
		for k := range req.Header {
			h[k] = req.Header.Get(k)
		}
		return signedRequest{Name: name, Authority: first.Authority, Path: first.Path, Headers: h}
	}
	past := func() time.Time { return time.Now().Add(-2 * time.Hour) }
	expired := signed("expired", newSigner(t, current, botauth.Options{Lifetime: time.Minute, Now: past}))
	stranger := signed("unlisted key", newSigner(t, newEd25519(t), botauth.Options{}))
	rotated := signed("next key", newSigner(t, next, botauth.Options{}))
	reqs = append(reqs, tampered, expired, stranger, rotated)

	got := webBotAuth(t, directory, reqs)
	for _, c := range reqs[:len(visits)] {
		if err, ok := got[c.Name]; !ok || err != "" {
			t.Errorf("%s: not verified: %q", c.Name, err)
		}
	}
	for _, check := range []string{"directory media type", "directory content-digest", "directory proof 0", "directory proof 1", "next key"} {
		if err, ok := got[check]; !ok || err != "" {
			t.Errorf("%s: %q", check, err)
		}
	}
	for name, want := range map[string]string{"tampered": "invalid signature", "expired": "xpired", "unlisted key": "not in the directory"} {
		if err := got[name]; !strings.Contains(err, want) {
			t.Errorf("%s: verifier said %q, want a rejection (%q)", name, err, want)
		}
	}
	t.Logf("web-bot-auth verified %d requests the farm received; rejected: tampered %q, expired %q, unlisted %q",
		len(visits), got["tampered"], got["expired"], got["unlisted key"])

	if rep := r.farm.Audit().Report(politetest.AtLeast(polite.MinRest)); !rep.Polite() {
		t.Errorf("signing on: %v", rep)
	}
}

// failingSigner cannot sign.
type failingSigner struct{}

func (failingSigner) SignRequest(*http.Request) error { return errors.New("no key at hand") }

// R4: a request the Signer cannot sign is not sent unsigned: its Result
// carries the error, robots.txt's included, and the farm sees nothing.
func TestUnsignedRequestsAreNotSent(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "signed-only.test"})
	r.start(polite.Config{Signer: failingSigner{}})
	u := r.url(h, "/")
	r.add(u)
	if res := r.results(1)[u]; res.Err == nil || !strings.Contains(res.Err.Error(), "no key at hand") {
		t.Errorf("Result error %v, want the signer's", res.Err)
	}
	if n := r.farm.Audit().Count(h); n != 0 {
		t.Errorf("farm saw %d requests", n)
	}
}
