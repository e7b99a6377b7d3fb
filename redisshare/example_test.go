package redisshare_test

import (
	"context"
	"fmt"
	"log"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/redisshare"
	"github.com/redis/go-redis/v9"
)

// Every process of a crawl makes its Fetcher this way, with the same
// Redis: they keep one request at a time per server address and its rest
// among them all, fetch each robots.txt once, and stop a host refused to
// any of them in all. (Not run: it needs a Redis server.)
func ExampleNew() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()
	shared, err := redisshare.New(rdb, redisshare.Options{})
	if err != nil {
		log.Fatal(err) // unreachable, or a Redis that may evict keys
	}
	defer shared.Close()
	f, err := polite.New(polite.Config{
		Name:    "acme-indexer",
		InfoURL: "https://acme.example/crawler",
		Shared:  shared,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	if err := f.Add(ctx, "https://example.com/"); err != nil {
		log.Fatal(err)
	}
	for r, err := range f.Results(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.URL, r.Status, r.Err)
	}
	st, _ := f.Stats(ctx)
	if st.SharedDown {
		fmt.Println("Redis did not answer: no request was sent meanwhile")
	}
}

// On a Redis Cluster, every process gives the same masters (or some of
// them: the client finds the rest). Each script touches the keys of one
// address, which share its hash tag: one slot's call. (Not run: it needs
// a cluster.)
func Example_cluster() {
	rdb := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs: []string{"redis-1.internal:6379", "redis-2.internal:6379", "redis-3.internal:6379"},
	})
	defer rdb.Close()
	shared, err := redisshare.New(rdb, redisshare.Options{Prefix: "acme:"})
	if err != nil {
		log.Fatal(err)
	}
	defer shared.Close()
	_, _ = polite.New(polite.Config{Name: "acme-indexer", InfoURL: "https://acme.example/crawler", Shared: shared})
}

// With Sentinel, the client follows the primary through a failover. A
// replica that had not caught up loses the rests written last, as a
// crash with a lagging sync would. (Not run.)
func Example_sentinel() {
	rdb := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:    "crawl",
		SentinelAddrs: []string{"sentinel-1.internal:26379", "sentinel-2.internal:26379"},
	})
	defer rdb.Close()
	shared, err := redisshare.New(rdb, redisshare.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer shared.Close()
}

// A managed Redis over TLS, as an ACL user: a rediss:// URL says both. A
// user who may not run CONFIG GET gets one warning to check the server's
// maxmemory-policy by hand. (Not run.)
func Example_tls() {
	opt, err := redis.ParseURL("rediss://crawler:secret@redis.example.net:6380/0")
	if err != nil {
		log.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	shared, err := redisshare.New(rdb, redisshare.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer shared.Close()
}
