package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
)

func TestExplainRateLimit(t *testing.T) {
	h := headerFlags{}
	if err := h.Set("Retry-After: 120"); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	explain(&out, polite.Classify(429, http.Header(h), nil))
	for _, want := range []string{"rate-limited: ", "wait: 120 s from Retry-After\n", "note: none\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestExplainSavedChallenge(t *testing.T) {
	status, h, body, err := readResponse("../../testdata/responses/perimeterx-block.http")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	explain(&out, polite.Classify(status, http.Header(h), body))
	for _, want := range []string{"refused: ", "challenge: yes (PerimeterX)", "wait: none"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := h.Set("no colon"); err == nil {
		t.Error("a header without a colon was accepted")
	}
}
