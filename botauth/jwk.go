package botauth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
)

// b64url is the unpadded base64url of JWKs and thumbprints (RFC 7515 §2).
var b64url = base64.RawURLEncoding

// JWK is a public Ed25519 key as a JSON Web Key (RFC 8037 §2), with its
// thumbprint as kid, as the directory wants it. Its fields are in the
// order the draft's examples print them.
type JWK struct {
	KeyType string `json:"kty"` // "OKP"
	Curve   string `json:"crv"` // "Ed25519"
	KeyID   string `json:"kid"` // Thumbprint of the key
	X       string `json:"x"`   // the public key, base64url
	Use     string `json:"use"` // "sig"
}

// PublicJWK is pub as a JWK.
func PublicJWK(pub ed25519.PublicKey) JWK {
	return JWK{KeyType: "OKP", Curve: "Ed25519", KeyID: Thumbprint(pub), X: b64url.EncodeToString(pub), Use: "sig"}
}

// JWKS is a JSON Web Key Set (RFC 7517 §5): a directory's document.
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// Thumbprint is the base64url JWK SHA-256 thumbprint of pub (RFC 7638
// §3, RFC 8037 Appendix A.3): the keyid a signature names its key by.
func Thumbprint(pub ed25519.PublicKey) string {
	// The required members, in lexicographic order, without spaces.
	canon, _ := json.Marshal(struct {
		Crv string `json:"crv"`
		Kty string `json:"kty"`
		X   string `json:"x"`
	}{"Ed25519", "OKP", b64url.EncodeToString(pub)})
	sum := sha256.Sum256(canon)
	return b64url.EncodeToString(sum[:])
}

// publicOf is the public half of key.
func publicOf(key ed25519.PrivateKey) ed25519.PublicKey {
	return key.Public().(ed25519.PublicKey)
}
