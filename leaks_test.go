package polite_test

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// leakChecked holds the tests whose leak check is registered: one check a
// test, made after all of its cleanups, so a test may make several rigs.
var leakChecked sync.Map

// checkNoLeaks fails the test if a goroutine of the fetcher or of its HTTP
// transport outlives the test's cleanups (Close must end them all).
func checkNoLeaks(t *testing.T) {
	if _, registered := leakChecked.LoadOrStore(t, true); registered {
		return
	}
	t.Cleanup(func() {
		defer leakChecked.Delete(t)
		deadline := time.Now().Add(5 * time.Second)
		for {
			leaked := fetcherGoroutines()
			if len(leaked) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines left after Close:\n%s", len(leaked), strings.Join(leaked, "\n\n"))
				return
			}
			runtime.Gosched()
			time.Sleep(10 * time.Millisecond) // goroutine exit is asynchronous; this waits for no rule
		}
	})
}

// fetcherGoroutines are the stacks of the running goroutines that belong
// to a Fetcher, its scheduler or its HTTP connections.
func fetcherGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var leaked []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "polite.(*Fetcher)") || strings.Contains(g, "schedule.(*Scheduler)") ||
			strings.Contains(g, "net/http.(*persistConn)") {
			leaked = append(leaked, g)
		}
	}
	return leaked
}
