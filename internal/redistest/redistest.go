// Package redistest runs a real redis-server (Debian's redis-server
// package, found on PATH) for tests: on a free loopback port, in a temp
// dir, stopped when the test ends. Where it is missing a test skips, but
// in CI (CI=true) it fails: .ci/run installs it.
package redistest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Server is one redis-server process and the directory it keeps its
// data in; Restart starts it again on the same port.
type Server struct {
	tb   testing.TB
	args []string
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
	exit chan error
}

// Start starts a redis-server that keeps its data in an append-only file
// written at every command, so a Stop and a Start lose nothing, and
// stops it at the test's end. args are more of redis-server's options,
// which override those (such as "--appendfsync", "everysec").
func Start(tb testing.TB, args ...string) *Server {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("redis-server not found (CI=true: .ci/run installs the redis-server package): %v", err)
		}
		tb.Skipf("redis-server not found (apt-get install -y redis-server): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &Server{tb: tb, args: args, bin: bin, dir: tb.TempDir(), port: port}
	s.Restart()
	tb.Cleanup(func() { s.Stop() })
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// Restart starts the server again (or the first time), with the data it
// kept, and returns once it accepts connections.
func (s *Server) Restart() {
	s.tb.Helper()
	if s.cmd != nil {
		s.tb.Fatal("redistest: Restart of a running server")
	}
	cmd := exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--dir", s.dir, "--save", "", "--appendonly", "yes", "--appendfsync", "always",
		"--protected-mode", "no", "--daemonize", "no", "--logfile", "")
	cmd.Args = append(cmd.Args, s.args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		s.tb.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		s.tb.Fatal(err)
	}
	// The server says when it is ready; what it says after is drained.
	ready := make(chan error, 1)
	go func() {
		r := bufio.NewReader(out)
		var seen strings.Builder
		for {
			line, err := r.ReadString('\n')
			seen.WriteString(line)
			if strings.Contains(line, "Ready to accept connections") {
				ready <- nil
				io.Copy(io.Discard, r)
				return
			}
			if err != nil {
				ready <- fmt.Errorf("redis-server ended before it was ready: %v\n%s", err, seen.String())
				return
			}
		}
	}()
	if err := <-ready; err != nil {
		cmd.Wait()
		s.tb.Fatal(err)
	}
	s.cmd = cmd
	s.exit = make(chan error, 1)
	go func() { s.exit <- cmd.Wait() }()
}

// Stop ends the server (SIGTERM) and waits for it; its data stays.
func (s *Server) Stop() { s.end(syscall.SIGTERM) }

// Kill ends the server with SIGKILL and deletes its data: the next
// Restart is a server that lost everything.
func (s *Server) Kill() {
	s.end(syscall.SIGKILL)
	entries, _ := os.ReadDir(s.dir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(s.dir, e.Name()))
	}
}

func (s *Server) end(sig syscall.Signal) {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(sig)
	<-s.exit
	s.cmd = nil
}

// Pid is the server process's id; 0 when it is not running.
func (s *Server) Pid() int {
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Pause stops the server's process (SIGSTOP): it hangs, its connections
// open and unanswered, until Resume.
func (s *Server) Pause() { s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume lets a paused server go on (SIGCONT).
func (s *Server) Resume() { s.cmd.Process.Signal(syscall.SIGCONT) }

// Crash ends the server with SIGKILL and keeps its data: its append-only
// file, written at every command, has everything it answered, and the
// next Restart has it again.
func (s *Server) Crash() { s.end(syscall.SIGKILL) }
