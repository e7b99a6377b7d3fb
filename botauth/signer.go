package botauth

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Signature lifetimes (the draft's expires).
const (
	// DefaultLifetime is how long a request's signature is valid when
	// Options.Lifetime is zero: long enough for a slow dial and a verifier
	// whose clock is a little ahead, short enough that a copied signature
	// is soon worth nothing.
	DefaultLifetime = 5 * time.Minute
	// MaxLifetime bounds Options.Lifetime: the draft recommends no more
	// than 24 h.
	MaxLifetime = 24 * time.Hour
)

// The protocol's names.
const (
	// Tag is the tag parameter of a request's signature.
	Tag = "web-bot-auth"
	// Label is the label of the signature in Signature-Input and Signature
	// and of its member of Signature-Agent.
	Label = "sig1"
	// NonceBytes is the length of a signature's nonce before base64.
	NonceBytes = 64
)

// ErrAgent is returned by NewSigner for a Signature-Agent that is not an
// https origin.
var ErrAgent = errors.New("botauth: signature agent: want an https origin, such as https://crawler.example")

// Options are a Signer's settings beyond its key and agent. The zero
// Options are the defaults.
type Options struct {
	// Lifetime is how long each signature is valid from its creation.
	// Zero: DefaultLifetime; above MaxLifetime: MaxLifetime.
	Lifetime time.Duration
	// Now is the clock of created and expires. Nil: time.Now. It is the
	// wall clock on purpose, not a fetcher's scheduling clock: a verifier
	// checks both against its own.
	Now func() time.Time
	// Rand is where nonces come from; the fetcher signs from many
	// goroutines, so it must be safe for concurrent use. Nil: crypto/rand.
	Rand io.Reader
	// Member, when set, covers the Signature-Agent member alone
	// ("signature-agent";key="sig1"), the draft's own wording, in place of
	// the whole field. Verifiers that read the key parameter take either;
	// npm web-bot-auth 0.1.3 takes only the whole field.
	Member bool
}

// Signer signs requests with one Ed25519 key under the Web Bot Auth
// protocol. Each request gets three headers:
//
//	Signature-Agent: sig1="https://crawler.example"
//	Signature-Input: sig1=("@authority" "signature-agent");created=…;keyid="…";alg="ed25519";expires=…;nonce="…";tag="web-bot-auth"
//	Signature: sig1=:…:
//
// The signature covers the request's authority and the Signature-Agent
// field, names the key by its thumbprint, lives for Options.Lifetime and
// carries a fresh 64-byte nonce. Signature-Agent is the draft's
// Dictionary; the signature covers the whole field, which holds only its
// own member, rather than the member alone ("signature-agent";key="sig1"):
// the two are the same bytes to sign over, and the published verifier
// (npm web-bot-auth 0.1.3) reads only the first. Options.Member covers
// the member alone instead.
//
// A Signer is safe for concurrent use. It satisfies polite.RequestSigner.
type Signer struct {
	key      ed25519.PrivateKey
	keyID    string
	agent    string // the Signature-Agent field value
	lifetime time.Duration
	now      func() time.Time
	rand     io.Reader
	prefix   string    // the Signature-Input value up to created's value
	keyIDAlg string    // ;keyid="…";alg="ed25519";expires=
	covered  component // the Signature-Agent component and its value
}

// NewSigner returns a Signer that signs with key and names agent, the
// https origin whose DirectoryPath serves key's public half (a Directory).
func NewSigner(key ed25519.PrivateKey, agent string, opt Options) (*Signer, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, errors.New("botauth: not an Ed25519 private key")
	}
	origin, err := agentOrigin(agent)
	if err != nil {
		return nil, err
	}
	s := &Signer{key: key, keyID: Thumbprint(publicOf(key)), agent: Label + "=" + sfString(origin),
		lifetime: opt.Lifetime, now: opt.Now, rand: opt.Rand}
	if s.lifetime <= 0 {
		s.lifetime = DefaultLifetime
	}
	s.lifetime = min(s.lifetime, MaxLifetime)
	if s.now == nil {
		s.now = time.Now
	}
	if s.rand == nil {
		s.rand = rand.Reader
	}
	s.covered = component{`"signature-agent"`, s.agent}
	if opt.Member {
		s.covered = component{`"signature-agent";key="` + Label + `"`, sfString(origin)}
	}
	s.prefix = `("@authority" ` + s.covered.id + `);created=`
	s.keyIDAlg = `;keyid=` + sfString(s.keyID) + `;alg="ed25519";expires=`
	return s, nil
}

// agentOrigin checks that agent is an https origin (a path of "/" is
// let through, as the draft allows) and returns its ASCII serialisation.
func agentOrigin(agent string) (string, error) {
	u, err := url.Parse(agent)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" ||
		(u.Path != "" && u.Path != "/") || strings.ContainsAny(agent, " \"\\") {
		return "", fmt.Errorf("%w: %q", ErrAgent, agent)
	}
	return "https://" + authority("https", u.Host), nil
}

// KeyID is the thumbprint of the Signer's key: the keyid of its signatures.
func (s *Signer) KeyID() string { return s.keyID }

// Agent is the Signature-Agent field value the Signer sends.
func (s *Signer) Agent() string { return s.agent }

// SignRequest adds Signature-Agent, Signature-Input and Signature to req,
// replacing any it had. Call it once the request's headers are all set,
// before it is sent: each attempt of a request is signed afresh.
func (s *Signer) SignRequest(req *http.Request) error {
	host := req.Host
	if host == "" && req.URL != nil {
		host = req.URL.Host
	}
	if host == "" {
		return errors.New("botauth: a request without a host cannot be signed")
	}
	scheme := "https"
	if req.URL != nil {
		scheme = req.URL.Scheme
	}
	var nonce [NonceBytes]byte
	if _, err := io.ReadFull(s.rand, nonce[:]); err != nil {
		return fmt.Errorf("botauth: a nonce: %w", err)
	}
	created := s.now().Unix()
	params := s.prefix + sfInt(created) + s.keyIDAlg + sfInt(created+int64(s.lifetime/time.Second)) +
		`;nonce="` + base64.StdEncoding.EncodeToString(nonce[:]) + `";tag="` + Tag + `"`
	base := signatureBase([]component{
		{`"@authority"`, authority(scheme, host)},
		s.covered,
	}, params)
	sig := ed25519.Sign(s.key, []byte(base))
	h := req.Header
	h["Signature-Agent"] = []string{s.agent}
	h["Signature-Input"] = []string{Label + "=" + params}
	h["Signature"] = []string{Label + "=" + sfBytes(sig)}
	return nil
}
