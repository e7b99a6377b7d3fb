// Package agentcard makes the Signature Agent Card of a polite crawler
// (draft-meunier-webbotauth-registry-04): who it is, where its keys are
// and how it paces itself, for a site owner or a registry to read. It is
// apart from package botauth so that botauth does not import polite.
package agentcard

import (
	"fmt"
	"net/url"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/botauth"
)

// Card is a Signature Agent Card:
// what a site owner, or a registry, reads of the crawler — who it is,
// where to learn more and whom to write to, where its keys are, and how
// it paces itself. It marshals to the draft's JSON.
type Card struct {
	ClientID   string   `json:"client_id,omitempty"` // the URL the card is served at, when known
	ClientName string   `json:"client_name"`
	ClientURI  string   `json:"client_uri"`         // the crawler's info page
	Contacts   []string `json:"contacts,omitempty"` // mailto: URIs
	JWKSURI    string   `json:"jwks_uri"`           // the key directory
	WebBotAuth CardBot  `json:"web_bot_auth"`
}

// CardBot is the card's web_bot_auth object: the crawler's robots.txt
// name and its manners.
type CardBot struct {
	ExpectedUserAgent string   `json:"expected-user-agent"`
	ProductToken      string   `json:"rfc9309-product-token"`
	Compliance        bool     `json:"rfc9309-compliance"`
	Trigger           string   `json:"trigger"`
	RateControl       string   `json:"rate-control"`
	RateExpectation   string   `json:"rate-expectation"`
	KnownURLs         []string `json:"known-urls"`
}

// New is the card of a fetcher made with cfg, whose keys are at the
// directory of agent (the Signer's Signature-Agent). Its manners are the
// rules package polite keeps whatever cfg says (R1–R5): one request at a
// time per server address, the rests of R2 (raised, never lowered, by
// cfg), robots.txt first and obeyed, Retry-After honoured, a refusal
// final.
func New(cfg polite.Config, agent string) (Card, error) {
	origin, err := url.Parse(agent)
	if err != nil || origin.Scheme != "https" || origin.Host == "" || (origin.Path != "" && origin.Path != "/") {
		return Card{}, fmt.Errorf("agentcard: agent %q: want the https origin of the key directory", agent)
	}
	name, info := cfg.Name, cfg.InfoURL
	if name == "" {
		name, info = polite.DefaultName, polite.DefaultInfoURL
	}
	if u, err := url.Parse(info); err != nil || u.Host == "" {
		return Card{}, fmt.Errorf("agentcard: info URL %q: want the crawler's info page", info)
	}
	rest := max(cfg.MinRest, polite.MinRest)
	factor := max(cfg.DurationFactor, polite.MinDurationFactor)
	c := Card{
		ClientName: name,
		ClientURI:  info,
		JWKSURI:    "https://" + origin.Host + botauth.DirectoryPath,
		WebBotAuth: CardBot{
			ExpectedUserAgent: name + "/*",
			ProductToken:      name,
			Compliance:        true,
			Trigger:           "crawler",
			RateControl: fmt.Sprintf("robots.txt Crawl-delay (up to %v); 429 or 503 with Retry-After (up to %v, beyond it the host waits for the next run); 402, 403 or a challenge page stops the crawler for the run",
				polite.CrawlDelayCap, polite.DefaultHorizon),
			RateExpectation: fmt.Sprintf("one request at a time per server address; after each, a rest of at least %v and %d times the response's duration (up to %v)",
				rest, factor, polite.DurationRestCap),
			KnownURLs: []string{"/robots.txt"},
		},
	}
	if cfg.Contact != "" {
		c.Contacts = []string{"mailto:" + cfg.Contact}
	}
	return c, nil
}
