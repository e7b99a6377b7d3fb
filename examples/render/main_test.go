package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The example as README runs it: the text is the API's, and the farm saw
// robots.txt, the page and the API request, nothing of the image or font.
func TestRender(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium not found (CI=true: .ci/run installs it): %v", err)
		}
		t.Skip("chromium not found")
	}
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{`rendered text: "In stock: teapot, kettle"`, "GET /robots.txt", "GET /api/items.json", "refused: type Image"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "GET /logo.png") || strings.Contains(got, "GET /fonts/") {
		t.Errorf("the farm saw a refused request:\n%s", got)
	}
}
