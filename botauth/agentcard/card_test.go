package agentcard_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/botauth"
	"github.com/politecrawler/polite/botauth/agentcard"
)

// The card names the crawler as its Config does, points at its key
// directory, and states the rules as its rate expectations, raised where
// the Config raises them.
func TestCardFromConfig(t *testing.T) {
	c, err := agentcard.New(polite.Config{Name: "ExampleCrawler", InfoURL: "https://crawler.example/bot", Contact: "ops@crawler.example", MinRest: 10 * time.Second},
		"https://crawler.example")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	bot, _ := got["web_bot_auth"].(map[string]any)
	if got["client_name"] != "ExampleCrawler" || got["client_uri"] != "https://crawler.example/bot" ||
		got["jwks_uri"] != "https://crawler.example"+botauth.DirectoryPath ||
		bot["rfc9309-product-token"] != "ExampleCrawler" || bot["rfc9309-compliance"] != true || bot["trigger"] != "crawler" {
		t.Errorf("card %s", b)
	}
	if cs, _ := got["contacts"].([]any); len(cs) != 1 || cs[0] != "mailto:ops@crawler.example" {
		t.Errorf("contacts %v", got["contacts"])
	}
	if rate, _ := bot["rate-expectation"].(string); !strings.Contains(rate, "one request at a time per server address") || !strings.Contains(rate, "10s") {
		t.Errorf("rate-expectation %q", rate)
	}
	def, err := agentcard.New(polite.Config{}, "https://crawler.example")
	if err != nil || def.ClientName != polite.DefaultName || def.ClientURI != polite.DefaultInfoURL || def.Contacts != nil ||
		!strings.Contains(def.WebBotAuth.RateExpectation, polite.MinRest.String()) {
		t.Errorf("default card %+v, %v", def, err)
	}
	if _, err := agentcard.New(polite.Config{}, "http://crawler.example"); err == nil {
		t.Error("an http agent was taken")
	}
}
