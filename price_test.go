package polite_test

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/botauth"
	"github.com/politecrawler/polite/politetest"
)

// R3.1: a 402 is a refusal, signed request or not: the host is stopped
// and nothing is paid. When it names a price (Cloudflare's crawler-price
// header), the refusal's error and its log line show it.
func TestPaymentRequiredShowsThePrice(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "paid.test", Pages: map[string]politetest.Page{
		"/article": {Status: 402, Header: http.Header{"Crawler-Price": {"USD 0.01"}}},
	}})
	logs := &logRecords{}
	r.start(polite.Config{Signer: newSigner(t, newEd25519(t), botauth.Options{}), Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	article, next := r.url(h, "/article"), r.url(h, "/next")
	r.add(article, next)
	res := r.results(2)
	var ref *polite.RefusalError
	if !errors.As(res[article].Err, &ref) || ref.Status != 402 || !strings.Contains(res[article].Err.Error(), "crawler-price: USD 0.01") {
		t.Fatalf("402: %v", res[article].Err)
	}
	if !errors.Is(res[next].Err, polite.ErrHostStopped) {
		t.Errorf("the next URL: %v", res[next].Err)
	}
	logged := false
	for _, rec := range logs.records(t) {
		if rec["status"] == float64(402) && strings.Contains(rec["evidence"].(string), "crawler-price: USD 0.01") {
			logged = true
		}
	}
	if !logged {
		t.Errorf("no refusal logged with its price: %v", logs.records(t))
	}
	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Path == "/next" || v.Header.Get("Signature") == "" {
			t.Errorf("farm saw %s, signature %q", v.Path, v.Header.Get("Signature"))
		}
	}
}
