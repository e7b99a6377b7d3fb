package polite

import (
	"errors"
	"testing"
)

func TestUserAgentDefault(t *testing.T) {
	const want = "PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)" // R4.1, exactly
	if got := (identity{}).String(); got != want {
		t.Errorf("default User-Agent = %q, want %q", got, want)
	}
	if got := (identity{}).from(); got != "" {
		t.Errorf("default From = %q, want none (R4.2)", got)
	}
	if got := (identity{}).product(); got != "PoliteCrawler" {
		t.Errorf("default product token = %q", got)
	}
}

func TestUserAgentContact(t *testing.T) {
	u := identity{Contact: "ops@example.org"}
	if err := u.validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := u.String(), "PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/; ops@example.org)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if u.from() != "ops@example.org" {
		t.Errorf("From() = %q", u.from())
	}
	c := identity{Name: "acme-indexer", Version: "2.1", InfoURL: "https://acme.example/bot"}
	if err := c.validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := c.String(), "acme-indexer/2.1 (+https://acme.example/bot)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// R4.3: a name that pretends is an error from New; malformed ones too.
func TestUserAgentRejects(t *testing.T) {
	cases := []struct {
		u    identity
		want error
	}{
		{identity{Name: "Mozilla", InfoURL: "https://x.example/"}, ErrImpersonation},
		{identity{Name: "MyChromeFetcher", InfoURL: "https://x.example/"}, ErrImpersonation},
		{identity{Name: "Googlebot", InfoURL: "https://x.example/"}, ErrImpersonation},
		{identity{Name: "not-bingbot", InfoURL: "https://x.example/"}, ErrImpersonation},
		{identity{Name: "Safari", InfoURL: "https://x.example/"}, ErrImpersonation},
		{identity{Name: "GPTBot", InfoURL: "https://x.example/"}, ErrImpersonation},
		{identity{Name: "Edge", InfoURL: "https://x.example/"}, ErrImpersonation},
		{identity{Name: "has space", InfoURL: "https://x.example/"}, ErrUserAgent},
		{identity{Name: "slash/bot", InfoURL: "https://x.example/"}, ErrUserAgent},
		{identity{Name: "mine"}, ErrUserAgent},
		{identity{Name: "mine", InfoURL: "ftp://x.example/"}, ErrUserAgent},
		{identity{Name: "mine", InfoURL: "/relative"}, ErrUserAgent},
		{identity{Name: "mine", Version: "1 2", InfoURL: "https://x.example/"}, ErrUserAgent},
		{identity{Name: "mine", InfoURL: "https://x.example/", Contact: "not an address"}, ErrUserAgent},
		{identity{Name: "mine", InfoURL: "https://x.example/", Contact: "Ops <ops@x.example>"}, ErrUserAgent},
		{identity{Name: "mine-unrestricted", InfoURL: "https://x.example/"}, ErrUserAgent},
		{identity{Version: "1.0"}, ErrUserAgent},
	}
	for _, c := range cases {
		err := c.u.validate()
		if !errors.Is(err, c.want) {
			t.Errorf("%+v: validate() = %v, want %v", c.u, err, c.want)
		}
		if _, err := New(Config{Name: c.u.Name, Version: c.u.Version, InfoURL: c.u.InfoURL, Contact: c.u.Contact}); !errors.Is(err, c.want) {
			t.Errorf("%+v: New() = %v, want %v", c.u, err, c.want)
		}
	}
	// Honest names that merely contain short tokens are fine.
	for _, name := range []string{"knowledge-bot", "crawler", "edgewise", "Tieline"} {
		if err := (identity{Name: name, InfoURL: "https://x.example/"}).validate(); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
}
