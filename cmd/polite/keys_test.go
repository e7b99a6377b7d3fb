package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/politecrawler/polite/politetest"
)

// newKeyFile runs polite keys new into dir and returns the file and the
// thumbprint it printed.
func newKeyFile(t *testing.T, dir, name string) (path, thumbprint string) {
	t.Helper()
	path = filepath.Join(dir, name)
	r := runCmd(t, "", "keys", "new", path)
	m := regexp.MustCompile(`thumbprint \(keyid\): ([A-Za-z0-9_-]{43})\n`).FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil || !strings.Contains(r.stdout, `public JWK: {"kty":"OKP","crv":"Ed25519","kid":"`+m[1]+`"`) {
		t.Fatalf("keys new: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"d":"`) || strings.Contains(r.stdout, `"d":`) {
		t.Fatal("the private key is not in the file, or was printed")
	}
	return path, m[1]
}

// keys new writes a key of mode 0600 and never over another; keys
// directory lists the keys given, in order: the rotation's overlap.
func TestKeysNewAndDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k1, id1 := newKeyFile(t, dir, "now.key")
	k2, id2 := newKeyFile(t, dir, "next.key")
	if r := runCmd(t, "", "keys", "new", k1); r.code != 1 {
		t.Errorf("a second keys new over %s: exit %d", k1, r.code)
	}
	r := runCmd(t, "", "keys", "directory", k1, k2)
	var set struct {
		Keys []struct{ Kid, Kty, Crv, X string } `json:"keys"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &set); err != nil || r.code != 0 {
		t.Fatalf("keys directory: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if len(set.Keys) != 2 || set.Keys[0].Kid != id1 || set.Keys[1].Kid != id2 || strings.Contains(r.stdout, `"d"`) {
		t.Errorf("directory %s, want %s then %s", r.stdout, id1, id2)
	}
	if r := runCmd(t, "", "keys", "mint"); r.code != 2 {
		t.Errorf("keys mint: exit %d", r.code)
	}
}

// R4: get -sign signs robots.txt and the page with the key, naming the
// agent; a key file open to others is refused before any request, and
// -sign without -signature-agent is a usage error.
func TestGetSigned(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	base := addrSite(t, fm, politetest.Site{})
	key, id := newKeyFile(t, t.TempDir(), "crawler.key")
	r := runCmd(t, "", "get", "-allow-private", "-sign", key, "-signature-agent", "https://crawler.example", base+"/")
	if r.code != 0 {
		t.Fatalf("get -sign: exit %d\n%s", r.code, r.stderr)
	}
	vs := fm.Audit().VisitsTo(hostOf(base))
	if len(vs) != 2 {
		t.Fatalf("farm saw %d requests", len(vs))
	}
	for _, v := range vs {
		if v.Header.Get("Signature-Agent") != `sig1="https://crawler.example"` || !strings.Contains(v.Header.Get("Signature-Input"), `keyid="`+id+`"`) ||
			!strings.HasPrefix(v.Header.Get("Signature"), "sig1=:") {
			t.Errorf("%s asked with %v", v.Path, v.Header)
		}
	}

	if err := os.Chmod(key, 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCmd(t, "", "get", "-allow-private", "-sign", key, "-signature-agent", "https://crawler.example", base+"/other")
	if r.code != 1 {
		t.Errorf("a key file of mode 0644: exit %d", r.code)
	}
	r.oneLine(t, "chmod 600")
	if r := runCmd(t, "", "get", "-allow-private", "-sign", key, base+"/other"); r.code != 2 {
		t.Errorf("-sign without -signature-agent: exit %d", r.code)
	}
	if n := fm.Audit().Count(hostOf(base)); n != 2 {
		t.Errorf("farm saw %d requests, want the first two only", n)
	}
}
