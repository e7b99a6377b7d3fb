package botauth_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/politecrawler/polite/botauth"
)

// newKey is a fresh Ed25519 key.
func newKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// During a rotation the directory lists the key signing now and the next
// one, with the media type, and a proof from each key for the authority
// asked.
func TestDirectoryListsEveryKeyOfARotation(t *testing.T) {
	now, next := newKey(t), newKey(t)
	d, err := botauth.NewDirectory(now, next)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	defer srv.Close()
	resp, err := http.Get(srv.URL + botauth.DirectoryPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != botauth.DirectoryMediaType {
		t.Fatalf("status %d, type %q", resp.StatusCode, ct)
	}
	var set botauth.JWKS
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, k := range set.Keys {
		ids = append(ids, k.KeyID)
		if k.KeyType != "OKP" || k.Curve != "Ed25519" || k.Use != "sig" {
			t.Errorf("key %+v", k)
		}
	}
	want := []string{botauth.Thumbprint(now.Public().(ed25519.PublicKey)), botauth.Thumbprint(next.Public().(ed25519.PublicKey))}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("directory lists %v, want %v", ids, want)
	}
	in := resp.Header.Get("Signature-Input")
	for i, id := range want {
		label := []string{"binding0", "binding1"}[i]
		if !strings.Contains(in, label+`=("@authority";req "content-digest");created=`) || !strings.Contains(in, `keyid="`+id+`";tag="http-message-signatures-directory"`) {
			t.Errorf("Signature-Input %s: no proof %s by %s", in, label, id)
		}
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Digest"), "sha-256=:") {
		t.Errorf("Content-Digest %q", resp.Header.Get("Content-Digest"))
	}
	if post, err := http.Post(srv.URL+botauth.DirectoryPath, "text/plain", nil); err != nil || post.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %v %v", post.Status, err)
	}
}

func TestDirectoryRefusesADuplicate(t *testing.T) {
	k := newKey(t)
	if _, err := botauth.NewDirectory(k, k); err == nil {
		t.Error("a key listed twice was taken")
	}
	if _, err := botauth.NewDirectory(); err == nil {
		t.Error("an empty directory was taken")
	}
}
