package redisshare_test

import (
	"context"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/redistest"
	"github.com/politecrawler/polite/redisshare"
	"github.com/redis/go-redis/v9"
)

// BenchmarkShardTakeRest measures what one redis-server sustains: each
// op is a request's two calls, a Take granted and its Rest (of 0, so the
// address may be taken again at once), over 64 goroutines on addresses
// of their own, through one client pool. It reports the pairs per
// second, that is the requests per second one shard can coordinate, and
// the CPU redis-server used per pair; with the append-only file written
// to disk at every write (appendfsync always), and once a second.
//
//	go test -run '^$' -bench ShardTakeRest -benchtime 200000x ./redisshare
func BenchmarkShardTakeRest(b *testing.B) {
	for _, fsync := range []string{"always", "everysec"} {
		b.Run("appendfsync="+fsync, func(b *testing.B) { benchTakeRest(b, redistest.Start(b, "--appendfsync", fsync)) })
	}
}

func benchTakeRest(b *testing.B, srv *redistest.Server) {
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 64})
	defer rdb.Close()
	sh := redisshare.New(rdb, redisshare.Options{})
	defer sh.Close()
	ctx := context.Background()
	// Past the grace of a fresh server.
	rdb.Set(ctx, redisshare.DefaultPrefix+"epoch", strconv.FormatInt(time.Now().Add(-time.Minute).UnixMilli(), 10), 0)
	var next atomic.Uint32
	b.SetParallelism(32) // 64 goroutines on 2 cores
	cpu0 := serverCPU(b, srv)
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		n := next.Add(1)
		addr := netip.AddrFrom4([4]byte{127, 50, byte(n >> 8), byte(n)})
		ask := polite.Ask{Addr: addr, Host: "h" + strconv.Itoa(int(n)) + ".test", Lease: time.Minute, LeaseRest: 10 * time.Second, Floor: 3 * time.Second}
		for pb.Next() {
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
