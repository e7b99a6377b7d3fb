package botauth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The key directory's names (the protocol draft's well-known URI and
// media type).
const (
	// DirectoryPath is where a site serves its key directory.
	DirectoryPath = "/.well-known/http-message-signatures-directory"
	// DirectoryMediaType is the directory's Content-Type.
	DirectoryMediaType = "application/http-message-signatures-directory+json"
	// DirectoryTag is the tag of the directory response's own signatures.
	DirectoryTag = "http-message-signatures-directory"
	// DirectoryProofLifetime is how long a directory response's signatures
	// are valid: a copy of the key set carries its proof this long.
	DirectoryProofLifetime = 24 * time.Hour
	// DirectoryMaxAge is the Cache-Control max-age of the directory: a
	// key dropped from it stops verifying within this long. Keep a key
	// being retired listed at least this long after its last signature.
	DirectoryMaxAge = time.Hour
)

// Directory is the key directory of a crawler (the protocol draft's HTTP
// Message Signatures Directory): an http.Handler that answers GET and
// HEAD with the JWK Set of its keys, as DirectoryMediaType. Mount it at
// DirectoryPath on the origin the Signer names as its Signature-Agent.
//
// Each key also signs the response (the directory response signature,
// tag DirectoryTag), over the authority the request named and the
// Content-Digest of the body, proving that whoever holds each key put it
// in this set, for this site.
//
// A directory lists every key a verifier may meet: the one signing now
// and, while keys rotate, the next (listed before it signs) or the last
// (listed until verifiers' cached copies expire, DirectoryMaxAge). A
// Directory is safe for concurrent use.
type Directory struct {
	keys   []ed25519.PrivateKey
	ids    []string
	body   []byte
	digest string // the Content-Digest field value
	now    func() time.Time
}

// NewDirectory returns the directory of keys, in the order given; at
// least one, none twice.
func NewDirectory(keys ...ed25519.PrivateKey) (*Directory, error) {
	if len(keys) == 0 {
		return nil, errors.New("botauth: a directory needs a key")
	}
	d := &Directory{now: time.Now}
	var set JWKS
	seen := map[string]bool{}
	for _, k := range keys {
		if len(k) != ed25519.PrivateKeySize {
			return nil, errors.New("botauth: not an Ed25519 private key")
		}
		jwk := PublicJWK(publicOf(k))
		if seen[jwk.KeyID] {
			return nil, errors.New("botauth: a key listed twice in a directory: " + jwk.KeyID)
		}
		seen[jwk.KeyID] = true
		d.keys, d.ids = append(d.keys, k), append(d.ids, jwk.KeyID)
		set.Keys = append(set.Keys, jwk)
	}
	d.body, _ = json.Marshal(set)
	sum := sha256.Sum256(d.body)
	d.digest = "sha-256=" + sfBytes(sum[:])
	return d, nil
}

// Document is the directory's JSON body: the JWK Set of its public keys.
func (d *Directory) Document() []byte { return append([]byte(nil), d.body...) }

// KeyIDs are the thumbprints of the directory's keys, in its order.
func (d *Directory) KeyIDs() []string { return append([]string(nil), d.ids...) }

// ServeHTTP answers GET and HEAD with the directory, signed by each key
// for the authority the request named.
func (d *Directory) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	input, sig := d.proof(authority(scheme, r.Host), d.now())
	h := w.Header()
	h.Set("Content-Type", DirectoryMediaType)
	h.Set("Cache-Control", "max-age="+strconv.Itoa(int(DirectoryMaxAge/time.Second)))
	h.Set("Content-Digest", d.digest)
	h.Set("Signature-Input", input)
	h.Set("Signature", sig)
	h.Set("Content-Length", strconv.Itoa(len(d.body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(d.body)
}

// proof is the Signature-Input and Signature field values of a
// directory response to a request for authority, one member per key,
// labelled binding0, binding1, …: each covers the request's @authority
// and the response's Content-Digest.
func (d *Directory) proof(authority string, now time.Time) (input, signature string) {
	var in, sigs []string
	for i, k := range d.keys {
		label := "binding" + strconv.Itoa(i)
		params, base := directoryBase(authority, d.digest, d.ids[i], now)
		in = append(in, label+"="+params)
		sigs = append(sigs, label+"="+sfBytes(ed25519.Sign(k, []byte(base))))
	}
	return strings.Join(in, ", "), strings.Join(sigs, ", ")
}

// directoryBase is the signature parameters and base of one directory
// response signature, in the order of the draft's vector.
func directoryBase(authority, digest, keyID string, now time.Time) (params, base string) {
	components := []component{{`"@authority";req`, authority}, {`"content-digest"`, digest}}
	created := now.Unix()
	params = innerList(components) + ";created=" + sfInt(created) +
		";expires=" + sfInt(created+int64(DirectoryProofLifetime/time.Second)) +
		";keyid=" + sfString(keyID) + ";tag=" + sfString(DirectoryTag)
	return params, signatureBase(components, params)
}
