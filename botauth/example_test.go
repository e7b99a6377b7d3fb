package botauth_test

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"log"
	"net/http"
	"strings"

	"github.com/politecrawler/polite/botauth"
)

// A Signer signs a request as the fetcher signs each of its own (set it
// as polite.Config.Signer); the site it names serves the Directory of
// its key. The key here is made from a fixed seed only so that the
// output stays put: make yours with GenerateKey or polite keys new.
func ExampleNewSigner() {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize))
	signer, err := botauth.NewSigner(key, "https://crawler.example", botauth.Options{})
	if err != nil {
		log.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "https://www.example.org/", nil)
	if err := signer.SignRequest(req); err != nil {
		log.Fatal(err)
	}
	in := req.Header.Get("Signature-Input")
	fmt.Println("Signature-Agent:", req.Header.Get("Signature-Agent"))
	fmt.Println("covers:", in[len("sig1="):strings.Index(in, ";")])
	fmt.Println("keyid:", signer.KeyID())

	dir, err := botauth.NewDirectory(key)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(botauth.DirectoryPath, dir) // on https://crawler.example
	fmt.Println("directory:", strings.Contains(string(dir.Document()), signer.KeyID()))
	// Output:
	// Signature-Agent: sig1="https://crawler.example"
	// covers: ("@authority" "signature-agent")
	// keyid: UDDReOZl1ipXAfp9wYsm13sDBMK5og--QWdBjzuf6o4
	// directory: true
}
