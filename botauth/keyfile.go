package botauth

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxKeyFileBytes bounds a key file read: a key is under 200 bytes.
const MaxKeyFileBytes = 64 << 10

// ErrKeyFile is the error of a key file that holds no Ed25519 private
// key, or whose permissions let others read it.
var ErrKeyFile = errors.New("botauth: key file")

// privateJWK is the private key as a JWK (RFC 8037 §2): the public
// members, then d, the seed.
type privateJWK struct {
	KeyType string `json:"kty"`
	Curve   string `json:"crv"`
	KeyID   string `json:"kid,omitempty"`
	X       string `json:"x,omitempty"`
	D       string `json:"d"`
}

// GenerateKey makes a new Ed25519 private key from crypto/rand.
func GenerateKey() (ed25519.PrivateKey, error) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	return key, err
}

// MarshalPrivateKey is key as the private JWK a key file holds, its kid
// the thumbprint, and a newline.
func MarshalPrivateKey(key ed25519.PrivateKey) []byte {
	pub := publicOf(key)
	b, _ := json.Marshal(privateJWK{KeyType: "OKP", Curve: "Ed25519", KeyID: Thumbprint(pub),
		X: b64url.EncodeToString(pub), D: b64url.EncodeToString(key.Seed())})
	return append(b, '\n')
}

// ParsePrivateKey reads an Ed25519 private key from a private JWK (kty
// OKP, crv Ed25519, d; an x given must be d's public key) or a PEM
// "PRIVATE KEY" block (PKCS #8, as openssl genpkey -algorithm ed25519
// writes it).
func ParsePrivateKey(data []byte) (ed25519.PrivateKey, error) {
	trimmed := bytes.TrimSpace(data)
	if bytes.HasPrefix(trimmed, []byte("-----BEGIN")) {
		return parsePEM(trimmed)
	}
	var j privateJWK
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("%w: neither a JWK nor PEM: %v", ErrKeyFile, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrKeyFile)
	}
	if j.KeyType != "OKP" || j.Curve != "Ed25519" {
		return nil, fmt.Errorf("%w: kty %q, crv %q: want OKP and Ed25519", ErrKeyFile, j.KeyType, j.Curve)
	}
	seed, err := b64url.DecodeString(j.D)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%w: d is not a base64url Ed25519 seed", ErrKeyFile)
	}
	key := ed25519.NewKeyFromSeed(seed)
	if j.X != "" && j.X != b64url.EncodeToString(publicOf(key)) {
		return nil, fmt.Errorf("%w: x is not the public key of d", ErrKeyFile)
	}
	return key, nil
}

// parsePEM reads one PKCS #8 Ed25519 private key block.
func parsePEM(data []byte) (ed25519.PrivateKey, error) {
	block, rest := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("%w: want a PEM PRIVATE KEY block", ErrKeyFile)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, fmt.Errorf("%w: more than one PEM block", ErrKeyFile)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKeyFile, err)
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: a %T, not an Ed25519 key", ErrKeyFile, k)
	}
	return key, nil
}

// LoadKeyFile reads the private key of the file at path. A file that
// its group or others may read or write is refused, key unread: a
// signing key that others can read is no longer the crawler's alone.
func LoadKeyFile(path string) (ed25519.PrivateKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrKeyFile, path)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o, open to its group or others: chmod 600 %s", ErrKeyFile, path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxKeyFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	if len(data) > MaxKeyFileBytes {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrKeyFile, path, MaxKeyFileBytes)
	}
	key, err := ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// WriteKeyFile writes key to a new file at path, readable and writable
// by its owner only (mode 0600). An existing file is left as it is: a
// key is never overwritten.
func WriteKeyFile(path string, key ed25519.PrivateKey) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	if _, err := f.Write(MarshalPrivateKey(key)); err != nil {
		f.Close()
		return fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	return f.Close()
}
