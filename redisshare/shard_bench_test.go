package redisshare_test

import (
	"context"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/redistest"
	"github.com/politecrawler/polite/redisshare"
	"github.com/redis/go-redis/v9"
)

// BenchmarkShardOwnership measures what one redis-server sustains: each
// op is a request, over 64 goroutines on addresses of their own through
// one Shared; an address is claimed, asked ten times (nine rests kept
// without a call), and given up with a rest of 0 so that it may be
// claimed again at once, as an owner with ten requests queued does. It
// reports the requests per second one shard coordinates that way, and
// redis-server's CPU a request; with the append-only file written to
// disk at every write (appendfsync always), and once a second.
//
//	go test -run '^$' -bench ShardOwnership -benchtime 200000x ./redisshare
func BenchmarkShardOwnership(b *testing.B) {
	for _, fsync := range []string{"always", "everysec"} {
		b.Run("appendfsync="+fsync, func(b *testing.B) { benchOwnership(b, redistest.Start(b, "--appendfsync", fsync)) })
	}
}

func benchOwnership(b *testing.B, srv *redistest.Server) {
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 64})
	defer rdb.Close()
	sh, err := redisshare.New(rdb, redisshare.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer sh.Close()
	ctx := context.Background()
	asks := make([]polite.Ask, 64)
	var warm sync.WaitGroup
	for n := range asks {
		addr := netip.AddrFrom4([4]byte{127, 50, byte(n >> 8), byte(n)})
		asks[n] = polite.Ask{Addr: addr, Host: "h" + strconv.Itoa(n) + ".test", Lease: time.Minute, LeaseRest: 10 * time.Second, Floor: 3 * time.Second}
		// Past the grace of each fresh slot, before the clock starts.
		warm.Go(func() {
			for {
				turn, err := sh.Take(ctx, asks[n])
				if err != nil {
					b.Error(err)
					return
				}
				if turn.Granted {
					sh.Rest(ctx, turn, 0)
					return
				}
				time.Sleep(turn.Wait)
			}
		})
	}
	warm.Wait()
	var next atomic.Int32
	b.SetParallelism(32) // 64 goroutines on 2 cores
	calls0, commands0, cpu0 := sh.Calls(), sh.Commands(), serverCPU(b, srv)
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ask := asks[next.Add(1)-1]
		for i := 0; pb.Next(); i++ {
			ask.More = i%10 != 9
			turn, err := sh.Take(ctx, ask)
			if err != nil || !turn.Granted {
				b.Errorf("Take: %+v, %v", turn, err)
				return
			}
			if err := sh.Rest(ctx, turn, 0); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	secs := time.Since(start).Seconds()
	b.ReportMetric(float64(b.N)/secs, "requests/s")
	b.ReportMetric(float64((serverCPU(b, srv)-cpu0).Microseconds())/float64(b.N), "redis_cpu_µs/request")
	b.ReportMetric(float64(sh.Calls()-calls0)/float64(b.N), "calls/request")
	b.ReportMetric(float64(sh.Commands()-commands0)/float64(b.N), "commands/request")
}

// serverCPU is the CPU redis-server has used, from /proc.
func serverCPU(b *testing.B, srv *redistest.Server) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(srv.Pid()) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // clock ticks of 1/100 s
}
