package polite

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"
)

// benchStorePages is how many pages each batch saves or loads: ~20 KB
// HTML bodies, each different, with a server's usual headers.
const benchStorePages = 10_000

// BenchmarkStore measures the on-disk store per page, on batches of
// benchStorePages distinct pages:
//
//   - write: save every page into a new store;
//   - write-64: the same, from 64 goroutines at once (saves take turns:
//     one fsync'd transaction each);
//   - write-unchanged: save every page again with its body unchanged (a
//     new Date and fetch time): a new version costs its headers, not its
//     body;
//   - read: LoadPage of every page, in random order;
//   - open: OpenStore (which checks every record) and Close.
//
// ns/page is the time per page; bytes_on_disk/page the file's size (or,
// for write-unchanged, its growth) over the pages saved; used_bytes/page
// the same counting only the pages in use (the file grows in steps of up
// to 16 MiB and keeps freed pages for reuse).
//
//	go test -run '^$' -bench Store -benchtime 1x .
func BenchmarkStore(b *testing.B) {
	pages := benchCorpus()
	tmp, err := os.MkdirTemp("", "polite-store-bench")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	// template is a store holding every page once, for the benchmarks
	// that start from a full store.
	template := sync.OnceValue(func() string {
		path := filepath.Join(tmp, "template.db")
		s := benchOpen(b, path)
		for _, p := range pages {
			if err := s.SavePage(p); err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
		return path
	})

	b.Run("write", func(b *testing.B) {
		var size, used int64
		for range b.N {
			b.StopTimer()
			path := filepath.Join(b.TempDir(), "store.db")
			s := benchOpen(b, path)
			b.StartTimer()
			for _, p := range pages {
				if err := s.SavePage(p); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			s.Close()
			size, used = storeSizes(b, path)
			b.StartTimer()
		}
		reportStore(b, len(pages), size, used)
	})

	b.Run("write-64", func(b *testing.B) {
		const writers = 64
		var size, used int64
		for range b.N {
			b.StopTimer()
			path := filepath.Join(b.TempDir(), "store.db")
			s := benchOpen(b, path)
			var wg sync.WaitGroup
			b.StartTimer()
			for w := range writers {
				wg.Go(func() {
					for i := w; i < len(pages); i += writers {
						if err := s.SavePage(pages[i]); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			s.Close()
			size, used = storeSizes(b, path)
			b.StartTimer()
		}
		reportStore(b, len(pages), size, used)
	})

	b.Run("write-unchanged", func(b *testing.B) {
		again := make([]StoredPage, len(pages))
		for i, p := range pages {
			p.Fetched = p.Fetched.Add(24 * time.Hour)
			p.Header = p.Header.Clone()
			p.Header.Set("Date", p.Fetched.Format(http.TimeFormat))
			p.Header.Set("Age", "0")
			again[i] = p
		}
		var size, used int64
		for range b.N {
			b.StopTimer()
			path := filepath.Join(b.TempDir(), "store.db")
			copyFile(b, template(), path)
			size0, used0 := storeSizes(b, path)
			s := benchOpen(b, path)
			b.StartTimer()
			for _, p := range again {
				if err := s.SavePage(p); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			s.Close()
			size, used = storeSizes(b, path)
			size, used = size-size0, used-used0
			b.StartTimer()
		}
		reportStore(b, len(pages), size, used)
	})

	b.Run("read", func(b *testing.B) {
		path := template()
		s := benchOpen(b, path)
		defer s.Close()
		order := rand.New(rand.NewPCG(1, 2)).Perm(len(pages))
		b.ResetTimer()
		for range b.N {
			for _, i := range order {
				p, ok, err := s.LoadPage(pages[i].URL)
				if err != nil || !ok || len(p.Body) != len(pages[i].Body) {
					b.Fatalf("LoadPage(%s) = %v, %v", pages[i].URL, ok, err)
				}
			}
		}
		b.StopTimer()
		s.Close()
		size, used := storeSizes(b, path)
		reportStore(b, len(pages), size, used)
	})

	b.Run("open", func(b *testing.B) {
		path := template()
		b.ResetTimer()
		for range b.N {
			s := benchOpen(b, path)
			s.Close()
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/open")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pages)), "ns/page")
	})
}

func benchOpen(b *testing.B, path string) Store {
	s, err := OpenStore(path)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func reportStore(b *testing.B, pages int, size, used int64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pages), "ns/page")
	b.ReportMetric(float64(size)/float64(pages), "bytes_on_disk/page")
	b.ReportMetric(float64(used)/float64(pages), "used_bytes/page")
}

// storeSizes returns a closed store file's size and the bytes of its
// pages in use (bbolt's high-water mark less the free pages).
func storeSizes(b *testing.B, path string) (size, used int64) {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	db, err := bbolt.Open(path, 0, &bbolt.Options{ReadOnly: true, PreLoadFreelist: true, Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bbolt.Tx) error {
		used = tx.Size()
		return nil
	})
	used -= int64(db.Stats().FreePageN) * int64(db.Info().PageSize)
	return fi.Size(), used
}

func copyFile(b *testing.B, from, to string) {
	src, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		b.Fatal(err)
	}
	if err := dst.Sync(); err != nil { // no writeback left to slow the timed part
		b.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
}

// benchCorpus makes benchStorePages pages once: HTML of about 20 KB
// (head, navigation, an article of paragraphs, footer), each different,
// with headers as a typical server sends them.
var benchCorpus = sync.OnceValue(func() []StoredPage {
	words := []string{"the", "crawler", "waits", "between", "requests", "politely", "server", "page", "index",
		"robots", "archive", "history", "document", "network", "library", "garden", "river", "mountain", "report",
		"season", "market", "council", "weather", "research", "students", "village", "museum", "concert", "energy"}
	rng := rand.New(rand.NewPCG(7, 11))
	start := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	pages := make([]StoredPage, benchStorePages)
	var buf bytes.Buffer
	for i := range pages {
		site := fmt.Sprintf("site%d.example", i%500)
		url := fmt.Sprintf("https://%s/articles/%d/%s-%s", site, i, words[rng.IntN(len(words))], words[rng.IntN(len(words))])
		buf.Reset()
		fmt.Fprintf(&buf, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Article %d — %s</title>\n", i, site)
		fmt.Fprintf(&buf, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<link rel=\"stylesheet\" href=\"/static/site.%x.css\">\n<script src=\"/static/app.%x.js\" defer></script>\n</head>\n<body>\n<nav><ul>\n", rng.Uint32(), rng.Uint32())
		for j := range 40 {
			fmt.Fprintf(&buf, "<li><a href=\"/section/%d/%s\">%s</a></li>\n", j, words[rng.IntN(len(words))], words[rng.IntN(len(words))])
		}
		buf.WriteString("</ul></nav>\n<main><article>\n")
		for buf.Len() < 19_000+rng.IntN(2_000) {
			buf.WriteString("<p>")
			for range 40 + rng.IntN(40) {
				buf.WriteString(words[rng.IntN(len(words))])
				buf.WriteByte(' ')
			}
			buf.WriteString("</p>\n")
		}
		buf.WriteString("</article></main>\n<footer><p>&copy; 2026 " + site + "</p></footer>\n</body>\n</html>\n")
		body := bytes.Clone(buf.Bytes())
		fetched := start.Add(time.Duration(i) * 3 * time.Second)
		pages[i] = StoredPage{
			URL:    url,
			Status: 200,
			Header: http.Header{
				"Date":                      {fetched.Format(http.TimeFormat)},
				"Content-Type":              {"text/html; charset=utf-8"},
				"Content-Length":            {strconv.Itoa(len(body))},
				"Etag":                      {fmt.Sprintf(`W/"%x-%x"`, len(body), rng.Uint64())},
				"Last-Modified":             {fetched.Add(-time.Duration(rng.IntN(1000)) * time.Hour).Format(http.TimeFormat)},
				"Server":                    {"nginx/1.25.3"},
				"Cache-Control":             {"public, max-age=600"},
				"Vary":                      {"Accept-Encoding"},
				"Strict-Transport-Security": {"max-age=31536000; includeSubDomains"},
				"X-Content-Type-Options":    {"nosniff"},
				"X-Frame-Options":           {"SAMEORIGIN"},
				"Content-Language":          {"en"},
				"Accept-Ranges":             {"bytes"},
				"Age":                       {strconv.Itoa(rng.IntN(600))},
				"Link":                      {"<https://" + site + "/static/site.css>; rel=preload; as=style"},
			},
			Body:    body,
			Fetched: fetched,
		}
	}
	return pages
})
