package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The test binary is the cluster's processes too, as the command is.
func TestMain(m *testing.M) {
	if role := os.Getenv(roleEnv); role != "" {
		if err := child(role, os.Args[1:]); err != nil {
			os.Stderr.WriteString("cluster " + role + ": " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The example as README runs it, smaller: its audit says the rules held
// over the processes.
func TestCluster(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server not found (CI=true: .ci/run installs it): %v", err)
		}
		t.Skip("redis-server not found")
	}
	var out strings.Builder
	if err := run(&out, "", 5, 2, 1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"15 requests to 5 addresses", "0 overlaps", "0 gaps shorter than 3s", "robots.txt asked once at 5 of 5 hosts", "calls to Redis"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
