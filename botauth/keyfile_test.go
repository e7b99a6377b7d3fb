package botauth_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/politecrawler/polite/botauth"
)

// rfc9421KeyPEM is test-key-ed25519 of RFC 9421 Appendix B.1.4.
const rfc9421KeyPEM = `-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF
-----END PRIVATE KEY-----
`

// A key written is read back the same, from a file of mode 0600.
func TestKeyFileRoundTrip(t *testing.T) {
	key := newKey(t)
	path := filepath.Join(t.TempDir(), "crawler.key")
	if err := botauth.WriteKeyFile(path, key); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", st.Mode(), err)
	}
	got, err := botauth.LoadKeyFile(path)
	if err != nil || !got.Equal(key) {
		t.Fatalf("read back %v", err)
	}
	if err := botauth.WriteKeyFile(path, newKey(t)); err == nil {
		t.Error("an existing key file was overwritten")
	}
}

// A key file its group or others can read is refused, with what to do.
func TestKeyFileWithLoosePermissionsIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawler.key")
	if err := botauth.WriteKeyFile(path, newKey(t)); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o660, 0o644} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, err := botauth.LoadKeyFile(path)
		if !errors.Is(err, botauth.ErrKeyFile) || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %04o: %v", mode, err)
		}
	}
}

// The PEM of RFC 9421's test key and its JWK are the same key.
func TestParsePrivateKeyForms(t *testing.T) {
	fromPEM, err := botauth.ParsePrivateKey([]byte(rfc9421KeyPEM))
	if err != nil {
		t.Fatal(err)
	}
	jwk := `{"kty":"OKP","crv":"Ed25519","kid":"test-key-ed25519","d":"n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}`
	fromJWK, err := botauth.ParsePrivateKey([]byte(jwk))
	if err != nil || !fromJWK.Equal(fromPEM) {
		t.Fatalf("JWK: %v", err)
	}
	if id := botauth.Thumbprint(fromPEM.Public().(ed25519.PublicKey)); id != "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U" {
		t.Errorf("thumbprint %s", id)
	}
	for _, bad := range []string{
		"", "{}", "garbage",
		`{"kty":"OKP","crv":"X25519","d":"n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU"}`,
		`{"kty":"OKP","crv":"Ed25519","d":"n4Ni"}`,
		`{"kty":"OKP","crv":"Ed25519","d":"n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU","x":"AAAA"}`,
		jwk + jwk,
		rfc9421KeyPEM + rfc9421KeyPEM,
		strings.Replace(rfc9421KeyPEM, "PRIVATE KEY", "PUBLIC KEY", 2),
	} {
		if _, err := botauth.ParsePrivateKey([]byte(bad)); !errors.Is(err, botauth.ErrKeyFile) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// FuzzParsePrivateKey: no input makes the parser panic, and a key it
// reads is written and read back as the same key.
func FuzzParsePrivateKey(f *testing.F) {
	f.Add([]byte(rfc9421KeyPEM))
	f.Add(botauth.MarshalPrivateKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))))
	f.Fuzz(func(t *testing.T, data []byte) {
		key, err := botauth.ParsePrivateKey(data)
		if err != nil {
			return
		}
		again, err := botauth.ParsePrivateKey(botauth.MarshalPrivateKey(key))
		if err != nil || !again.Equal(key) {
			t.Fatalf("%q read as a key that does not read back: %v", data, err)
		}
	})
}
