package botauth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"
)

// testKey is test-key-ed25519 of RFC 9421 Appendix B.1.4, the key of every
// Ed25519 vector below. A published key: never for use beyond a test.
func testKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	seed, err := b64url.DecodeString("n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU")
	if err != nil {
		t.Fatal(err)
	}
	key := ed25519.NewKeyFromSeed(seed)
	if x := b64url.EncodeToString(publicOf(key)); x != "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs" {
		t.Fatalf("public key x = %s", x)
	}
	return key
}

// signedAs signs base with key and checks the signature is want, in
// base64: Ed25519 is deterministic, so the bytes match exactly.
func signedAs(t *testing.T, key ed25519.PrivateKey, base, want string) {
	t.Helper()
	if got := base64.StdEncoding.EncodeToString(ed25519.Sign(key, []byte(base))); got != want {
		t.Errorf("signature\n got %s\nwant %s\nof base\n%s", got, want, base)
	}
}

// RFC 9421 Appendix B.2.6: the Ed25519 signature of test-request.
func TestRFC9421SignatureB26(t *testing.T) {
	components := []component{
		{`"date"`, "Tue, 20 Apr 2021 02:07:55 GMT"},
		{`"@method"`, "POST"},
		{`"@path"`, "/foo"},
		{`"@authority"`, authority("https", "example.com")},
		{`"content-type"`, "application/json"},
		{`"content-length"`, "18"},
	}
	params := innerList(components) + `;created=1618884473;keyid="test-key-ed25519"`
	base := signatureBase(components, params)
	wantBase := `"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@authority": example.com
"content-type": application/json
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`
	if base != wantBase {
		t.Fatalf("base\n%s\nwant\n%s", base, wantBase)
	}
	signedAs(t, testKey(t), base, "wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==")
}

// The thumbprint of test-key-ed25519, as the protocol draft's vectors
// name it (RFC 7638, RFC 8037 A.3).
func TestThumbprintOfTheTestKey(t *testing.T) {
	if got, want := Thumbprint(publicOf(testKey(t))), "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"; got != want {
		t.Errorf("thumbprint %s, want %s", got, want)
	}
}

// The protocol draft's Ed25519 vector with a Signature-Agent dictionary
// member ("signature-agent";key="agent2").
func TestDraftVectorDictionaryMember(t *testing.T) {
	components := []component{
		{`"@authority"`, "example.com"},
		{`"signature-agent";key="agent2"`, sfString("https://signature-agent.test")},
	}
	params := innerList(components) + `;created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=4889289600;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";tag="web-bot-auth"`
	signedAs(t, testKey(t), signatureBase(components, params),
		"RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==")
}

// legacyNonce and legacyInput are the protocol draft's Ed25519 vector
// with the whole Signature-Agent field covered.
const (
	legacyNonce = "e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg=="
	legacyInput = `("@authority" "signature-agent");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735693200;nonce="` + legacyNonce + `";tag="web-bot-auth"`
)

func TestDraftVectorWholeField(t *testing.T) {
	components := []component{
		{`"@authority"`, "example.com"},
		{`"signature-agent"`, sfString("https://signature-agent.test")},
	}
	signedAs(t, testKey(t), signatureBase(components, legacyInput),
		"jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==")
}

// A Signer at the vector's time, with its nonce, writes the vector's
// Signature-Input, parameter for parameter, and signs the base a verifier
// builds from the headers it sent: the vector's, with the field value
// the Signer sends (its dictionary member, not the bare string).
func TestSignerWritesTheDraftsParameters(t *testing.T) {
	nonce, _ := base64.StdEncoding.DecodeString(legacyNonce)
	s, err := NewSigner(testKey(t), "https://signature-agent.test", Options{
		Lifetime: time.Hour,
		Now:      func() time.Time { return time.Unix(1735689600, 0) },
		Rand:     bytes.NewReader(nonce),
	})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "https://Example.com:443/path?q=1", nil)
	if err := s.SignRequest(req); err != nil {
		t.Fatal(err)
	}
	if got, want := req.Header.Get("Signature-Input"), Label+"="+legacyInput; got != want {
		t.Errorf("Signature-Input\n got %s\nwant %s", got, want)
	}
	if got, want := req.Header.Get("Signature-Agent"), `sig1="https://signature-agent.test"`; got != want {
		t.Errorf("Signature-Agent %s, want %s", got, want)
	}
	base := "\"@authority\": example.com\n\"signature-agent\": " + req.Header.Get("Signature-Agent") + "\n\"@signature-params\": " + legacyInput
	sig := req.Header.Get("Signature")
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(sig, "sig1=:"), ":"))
	if err != nil || !ed25519.Verify(publicOf(testKey(t)), []byte(base), raw) {
		t.Errorf("Signature %s does not verify over\n%s", sig, base)
	}
}

func TestAuthority(t *testing.T) {
	for _, c := range []struct{ scheme, host, want string }{
		{"https", "Example.COM", "example.com"},
		{"https", "example.com:443", "example.com"},
		{"http", "example.com:80", "example.com"},
		{"http", "example.com:443", "example.com:443"},
		{"https", "127.20.0.1:8443", "127.20.0.1:8443"},
		{"https", "[::1]:443", "[::1]"},
		{"http", "[::1]:8080", "[::1]:8080"},
	} {
		if got := authority(c.scheme, c.host); got != c.want {
			t.Errorf("authority(%s, %s) = %s, want %s", c.scheme, c.host, got, c.want)
		}
	}
}

// The protocol draft's signed directory response: the body, its
// Content-Digest and the signature of test-key-ed25519 over them.
func TestDraftVectorSignedDirectory(t *testing.T) {
	d, err := NewDirectory(testKey(t))
	if err != nil {
		t.Fatal(err)
	}
	wantBody := `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig"}]}`
	if got := string(d.Document()); got != wantBody {
		t.Fatalf("document\n%s\nwant\n%s", got, wantBody)
	}
	if want := "sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:"; d.digest != want {
		t.Errorf("Content-Digest %s, want %s", d.digest, want)
	}
	// The vector's expires is far out; the parameters are otherwise ours.
	components := []component{{`"@authority";req`, "signature-agent.test"}, {`"content-digest"`, d.digest}}
	params := innerList(components) + `;created=1735689600;expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";tag="http-message-signatures-directory"`
	signedAs(t, testKey(t), signatureBase(components, params),
		"l6P8R67tm3kujAxbHWio7ll01qrEZ0dKD/WWlGhNYEmTnFZM8Wt0VQ9zqGfvo7T/UMkBxsigzChM1Gpz7gOVBg==")
	gotParams, gotBase := directoryBase("signature-agent.test", d.digest, d.ids[0], time.Unix(1735689600, 0))
	wantParams := strings.Replace(params, "4889289600", sfInt(1735689600+int64(DirectoryProofLifetime/time.Second)), 1)
	if gotParams != wantParams || gotBase != signatureBase(components, wantParams) {
		t.Errorf("directory proof parameters\n got %s\nwant %s", gotParams, wantParams)
	}
}

// With Options.Member the signature covers the Signature-Agent member
// alone, as the draft's dictionary vector does: its base line is the
// member's value, the URL as an sf-string.
func TestSignerCoversTheMember(t *testing.T) {
	s, err := NewSigner(testKey(t), "https://signature-agent.test", Options{Member: true,
		Now: func() time.Time { return time.Unix(1735689600, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "https://example.com/", nil)
	if err := s.SignRequest(req); err != nil {
		t.Fatal(err)
	}
	in := strings.TrimPrefix(req.Header.Get("Signature-Input"), Label+"=")
	if !strings.HasPrefix(in, `("@authority" "signature-agent";key="sig1");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735689900;nonce="`) {
		t.Errorf("Signature-Input %s", in)
	}
	base := "\"@authority\": example.com\n\"signature-agent\";key=\"sig1\": \"https://signature-agent.test\"\n\"@signature-params\": " + in
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(req.Header.Get("Signature"), "sig1=:"), ":"))
	if err != nil || !ed25519.Verify(publicOf(testKey(t)), []byte(base), raw) {
		t.Errorf("the signature does not verify over\n%s", base)
	}
}
