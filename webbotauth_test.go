package polite_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// verifierDir holds the pinned web-bot-auth verifier (npm ci there).
var verifierDir = filepath.Join("botauth", "testdata", "verifier")

// signedRequest is one request for the web-bot-auth verifier: the
// authority and path it was sent to, and its headers.
type signedRequest struct {
	Name      string            `json:"name"`
	Authority string            `json:"authority"`
	Path      string            `json:"path"`
	Headers   map[string]string `json:"headers"`
}

// webBotAuth runs Cloudflare's web-bot-auth verifier (npm, under node)
// on reqs, with the keys of the directory served at directory, and
// returns each check's error by name: "" when it verified. The checks
// are the directory's own (its media type, each key's thumbprint and
// proof) and one per request. Under CI a missing node or npm ci is a
// failure; elsewhere the test is skipped.
func webBotAuth(t *testing.T, directory string, reqs []signedRequest) map[string]string {
	t.Helper()
	unavailable := func(why string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("web-bot-auth verifier: %s", why)
		}
		t.Skipf("web-bot-auth verifier: %s", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("no node on PATH")
	}
	if _, err := os.Stat(filepath.Join(verifierDir, "node_modules", "web-bot-auth", "package.json")); err != nil {
		unavailable("not installed: run npm ci in " + verifierDir)
	}
	cases, err := json.Marshal(map[string]any{"directory": directory, "requests": reqs})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(file, cases, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, "verify.mjs", file)
	cmd.Dir = verifierDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node verify.mjs: %v\n%s", err, stderr.Bytes())
	}
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var line struct {
			Name  string `json:"name"`
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("verify.mjs said %q: %v", sc.Text(), err)
		}
		if !line.OK && line.Error == "" {
			line.Error = "rejected"
		}
		got[line.Name] = line.Error
	}
	if len(got) == 0 {
		t.Fatal(errors.New("verify.mjs checked nothing"), stderr.String())
	}
	return got
}
