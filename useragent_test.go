package polite

import (
	"errors"
	"testing"
)

func TestUserAgentDefault(t *testing.T) {
	const want = "PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)" // R4.1, exactly
	if got := (UserAgent{}).String(); got != want {
		t.Errorf("default User-Agent = %q, want %q", got, want)
	}
	if got := (UserAgent{}).From(); got != "" {
		t.Errorf("default From = %q, want none (R4.2)", got)
	}
	if got := (UserAgent{}).Product(); got != "PoliteCrawler" {
		t.Errorf("default product token = %q", got)
	}
}

func TestUserAgentContact(t *testing.T) {
	u := UserAgent{Contact: "ops@example.org"}
	if err := u.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := u.String(), "PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/; ops@example.org)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if u.From() != "ops@example.org" {
		t.Errorf("From() = %q", u.From())
	}
	c := UserAgent{Name: "acme-indexer", Version: "2.1", InfoURL: "https://acme.example/bot"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := c.String(), "acme-indexer/2.1 (+https://acme.example/bot)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// R4.3: a name that pretends is an error from New; malformed ones too.
func TestUserAgentRejects(t *testing.T) {
	cases := []struct {
		u    UserAgent
		want error
	}{
		{UserAgent{Name: "Mozilla", InfoURL: "https://x.example/"}, ErrImpersonation},
		{UserAgent{Name: "MyChromeFetcher", InfoURL: "https://x.example/"}, ErrImpersonation},
		{UserAgent{Name: "Googlebot", InfoURL: "https://x.example/"}, ErrImpersonation},
		{UserAgent{Name: "not-bingbot", InfoURL: "https://x.example/"}, ErrImpersonation},
		{UserAgent{Name: "Safari", InfoURL: "https://x.example/"}, ErrImpersonation},
		{UserAgent{Name: "GPTBot", InfoURL: "https://x.example/"}, ErrImpersonation},
		{UserAgent{Name: "Edge", InfoURL: "https://x.example/"}, ErrImpersonation},
		{UserAgent{Name: "has space", InfoURL: "https://x.example/"}, ErrUserAgent},
		{UserAgent{Name: "slash/bot", InfoURL: "https://x.example/"}, ErrUserAgent},
		{UserAgent{Name: "mine"}, ErrUserAgent},
		{UserAgent{Name: "mine", InfoURL: "ftp://x.example/"}, ErrUserAgent},
		{UserAgent{Name: "mine", InfoURL: "/relative"}, ErrUserAgent},
		{UserAgent{Name: "mine", Version: "1 2", InfoURL: "https://x.example/"}, ErrUserAgent},
		{UserAgent{Name: "mine", InfoURL: "https://x.example/", Contact: "not an address"}, ErrUserAgent},
		{UserAgent{Name: "mine", InfoURL: "https://x.example/", Contact: "Ops <ops@x.example>"}, ErrUserAgent},
		{UserAgent{Name: "mine-unrestricted", InfoURL: "https://x.example/"}, ErrUserAgent},
		{UserAgent{Version: "1.0"}, ErrUserAgent},
	}
	for _, c := range cases {
		err := c.u.Validate()
		if !errors.Is(err, c.want) {
			t.Errorf("%+v: Validate() = %v, want %v", c.u, err, c.want)
		}
		if _, err := New(Config{Name: c.u.Name, Version: c.u.Version, InfoURL: c.u.InfoURL, Contact: c.u.Contact}); !errors.Is(err, c.want) {
			t.Errorf("%+v: New() = %v, want %v", c.u, err, c.want)
		}
	}
	// Honest names that merely contain short tokens are fine.
	for _, name := range []string{"knowledge-bot", "crawler", "edgewise", "Tieline"} {
		if err := (UserAgent{Name: name, InfoURL: "https://x.example/"}).Validate(); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
}
