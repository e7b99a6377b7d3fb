package botauth_test

import (
	"net/http"
	"testing"

	"github.com/politecrawler/polite/botauth"
)

// BenchmarkSignRequest is the cost of signing one request: the nonce,
// the signature base, one Ed25519 signature and the three headers.
//
//	go test -run '^$' -bench SignRequest ./botauth/
func BenchmarkSignRequest(b *testing.B) {
	s, err := botauth.NewSigner(newKey(b), "https://crawler.example", botauth.Options{})
	if err != nil {
		b.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "https://www.example.org/some/page", nil)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.SignRequest(req); err != nil {
			b.Fatal(err)
		}
	}
}
