package storage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The process tests re-run this test binary as a child that works on a
// store: TestCrashChild does the child's part when storeChildEnv is set.
const (
	storeChildEnv  = "POLITE_STORE_CHILD" // "save" or "hold"
	storePathEnv   = "POLITE_STORE_PATH"
	storeRoundEnv  = "POLITE_STORE_ROUND"
	crashWorkers   = 4
	crashLinesRead = 200
)

// crashBody is the body of a page the crash child saves: large enough to
// take several bbolt pages, distinct per URL.
func crashBody(url string) []byte {
	return bytes.Repeat([]byte("<p>"+url+"</p>\n"), 1+8000/(len(url)+8))
}

// TestCrashChild is the child's side of TestStoreCrash and
// TestStoreLockedByProcess; run directly, it skips.
func TestCrashChild(t *testing.T) {
	mode := os.Getenv(storeChildEnv)
	if mode == "" {
		t.Skip("the child of TestStoreCrash and TestStoreLockedByProcess")
	}
	s, err := Open(os.Getenv(storePathEnv), Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	switch mode {
	case "hold":
		fmt.Println("ready")
		for {
			time.Sleep(time.Hour) // until killed
		}
	case "save":
		// Workers save pages in a loop and print each URL once SavePage
		// has returned; the parent kills the process at some point.
		round := os.Getenv(storeRoundEnv)
		var mu sync.Mutex
		for w := range crashWorkers {
			go func() {
				for i := 0; ; i++ {
					p := pageVersion(fmt.Sprintf("https://r%s-w%d.example/%d", round, w, i), i)
					p.Body = crashBody(p.URL)
					if err := s.SavePage(p); err != nil {
						fmt.Println("error", err)
						os.Exit(2)
					}
					if i%10 == 0 {
						if err := s.AddRefusal(Refusal{Host: p.URL, Kind: "refused"}); err != nil {
							fmt.Println("error", err)
							os.Exit(2)
						}
					}
					mu.Lock()
					fmt.Println("saved", p.URL)
					mu.Unlock()
				}
			}()
		}
		for {
			time.Sleep(time.Hour)
		}
	}
	t.Fatalf("unknown child mode %q", mode)
}

func skipProcessTests(t *testing.T) {
	switch runtime.GOOS {
	case "js", "wasip1", "ios", "android":
		t.Skipf("no child processes on %s", runtime.GOOS)
	}
}

// startStoreChild runs TestCrashChild in a new process and returns its
// stdout lines.
func startStoreChild(t *testing.T, mode, path string, round int) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), storeChildEnv+"="+mode, storePathEnv+"="+path, fmt.Sprintf("%s=%d", storeRoundEnv, round))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, bufio.NewScanner(out)
}

// TestStoreCrash: a child saving pages with four workers is killed with
// SIGKILL; the store opens afterwards, passes bbolt's consistency check
// and holds every page whose save the child reported, with its body.
// Three rounds on one file: each child starts from a store a killed
// child left.
func TestStoreCrash(t *testing.T) {
	skipProcessTests(t)
	path := filepath.Join(t.TempDir(), "crash.db")
	var reported []string
	for round := range 3 {
		cmd, lines := startStoreChild(t, "save", path, round)
		n := 0
		for n < crashLinesRead && lines.Scan() {
			line := lines.Text()
			url, ok := strings.CutPrefix(line, "saved ")
			if !ok {
				t.Fatalf("child: %s", line)
			}
			reported = append(reported, url)
			n++
		}
		if n < crashLinesRead {
			t.Fatalf("round %d: child stopped after %d saves: %v", round, n, lines.Err())
		}
		// Kill it (SIGKILL on Unix) somewhere in a save.
		time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		// What it printed between our last read and its death counts
		// too; Wait closes the pipe, so read first.
		for lines.Scan() {
			if url, ok := strings.CutPrefix(lines.Text(), "saved "); ok {
				reported = append(reported, url)
			}
		}
		var exit *exec.ExitError
		if err := cmd.Wait(); !errors.As(err, &exit) {
			t.Fatalf("round %d: child ended with %v, want killed", round, err)
		}

		if err := Check(path); err != nil {
			t.Fatalf("bbolt check: %v", err)
		}
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("round %d: the store does not open after the kill: %v", round, err)
		}
		for _, url := range reported {
			p, ok, err := s.LoadPage(url)
			if err != nil || !ok {
				t.Fatalf("round %d: %s reported saved, LoadPage = %v, %v", round, url, ok, err)
			}
			if !bytes.Equal(p.Body, crashBody(url)) || p.Status != 200 {
				t.Fatalf("round %d: %s: status %d, body of %d bytes", round, url, p.Status, len(p.Body))
			}
		}
		rs, err := s.Refusals()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: %d pages reported saved so far, all there; %d refusals", round, len(reported), len(rs))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStoreLockedByProcess: while a child process holds the store, Open
// returns ErrLocked within about a second, not a hang; once the child is
// gone, the store opens.
func TestStoreLockedByProcess(t *testing.T) {
	skipProcessTests(t)
	path := filepath.Join(t.TempDir(), "held.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustSave(t, s, pageVersion("https://example.org/", 0))
	s.Close()

	cmd, lines := startStoreChild(t, "hold", path, 0)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("child: %q %v", lines.Text(), lines.Err())
	}
	before, _ := os.ReadFile(path)
	start := time.Now()
	s, err = Open(path, Options{})
	elapsed := time.Since(start)
	if err == nil {
		s.Close()
		t.Fatal("opened a store another process holds")
	}
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	t.Logf("%v after %v", err, elapsed.Round(time.Millisecond))
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the file changed")
	}

	cmd.Process.Kill()
	cmd.Wait()
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatalf("after the child is gone: %v", err)
	}
	mustLoad(t, s, "https://example.org/")
	s.Close()
}
