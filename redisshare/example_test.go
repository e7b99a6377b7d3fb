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
