package polite

import (
	"context"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestExpConnCost(t *testing.T) {
	const hosts = 4000
	fp := startFarmProcess(t, hosts)
	defer fp.close()
	ms := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}, {Name: "/gc/heap/live:bytes"}, {Name: "/sched/goroutines:goroutines"}, {Name: "/gc/scan/stack:bytes"}}
	snap := func(label string) {
		runtime.GC()
		metrics.Read(ms)
		t.Logf("%-28s stacks %7.2f MiB  live %7.2f MiB  goroutines %6d  scanned stack %7.2f MiB fds %d", label,
			float64(ms[0].Value.Uint64())/(1<<20), float64(ms[1].Value.Uint64())/(1<<20), ms[2].Value.Uint64(), float64(ms[3].Value.Uint64())/(1<<20), countFDs())
	}
	snap("before")
	f, err := New(Config{Resolver: fp.resolver(), AllowPrivateNetworks: true, Logger: quiet, MaxInFlight: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	time.Sleep(200 * time.Millisecond)
	snap("fetcher, idle workers")
	ctx := context.Background()
	for i := range hosts {
		f.Add(ctx, fp.url(i, "/p0"))
	}
	for range hosts {
		if r, _ := f.Next(ctx); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	snap("after, idle conns (1 GC)")
	snap("after, 2 GC")
	snap("after, 3 GC")
	snap("after, 4 GC")
	f.transport.Load().CloseIdleConnections()
	time.Sleep(500 * time.Millisecond)
	snap("conns closed")
	snap("conns closed 2")
	snap("conns closed 3")
}
