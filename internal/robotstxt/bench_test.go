package robotstxt

import (
	"strings"
	"testing"

	temoto "github.com/temoto/robotstxt"
)

// Benchmarks of our parser and matcher against temoto/robotstxt v1.1.2, the
// baseline named by the design (robots notes), on the same inputs: every
// corpus file as the fetcher would hand it over (at most MaxBytes).
//
//	go test -run '^$' -bench . -benchmem ./internal/robotstxt/

func benchTexts(b *testing.B) []string {
	files := corpus(b)
	texts := make([]string, len(files))
	for i, f := range files {
		texts[i] = readText(f.body)
	}
	return texts
}

func BenchmarkParse(b *testing.B) {
	texts := benchTexts(b)
	bodies := make([][]byte, len(texts))
	var size int
	for i, t := range texts {
		bodies[i] = []byte(t)
		size += len(t)
	}
	b.Run("impl=polite", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, body := range bodies {
				Parse(body)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(bodies)), "ns/file")
	})
	b.Run("impl=temoto", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, body := range bodies {
				_, _ = temoto.FromBytes(body)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(bodies)), "ns/file")
	})
}

// benchQuestion is one match: a file, an agent and a path.
type benchQuestion struct {
	file        int
	agent, path string
}

func BenchmarkMatch(b *testing.B) {
	texts := benchTexts(b)
	var ours []*File
	var theirs []*temoto.RobotsData
	var qs []benchQuestion
	for _, t := range texts {
		d, err := temoto.FromString(t)
		if err != nil {
			continue // temoto cannot answer for this file (its fault 1)
		}
		r := Parse([]byte(t))
		paths := oraclePaths(r) // generic paths first, then the file's own
		paths = paths[max(0, len(paths)-24):]
		for _, p := range paths {
			for _, agent := range []string{"PoliteCrawler", "Googlebot"} {
				qs = append(qs, benchQuestion{len(ours), agent, p})
			}
		}
		ours = append(ours, r)
		theirs = append(theirs, d)
	}
	b.Run("impl=polite", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, q := range qs {
				ours[q.file].Allowed(q.agent, q.path)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)), "ns/match")
	})
	b.Run("impl=temoto", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, q := range qs {
				theirs[q.file].TestAgent(q.path, q.agent)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)), "ns/match")
	})
}

// BenchmarkPathological matches a many-starred pattern against a 4 KB
// path that almost matches: the case that makes a backtracking matcher
// explode. It needs no corpus.
func BenchmarkPathological(b *testing.B) {
	const body = "User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*b\n"
	path := "/" + strings.Repeat("a", 4096)
	b.Run("impl=polite", func(b *testing.B) {
		r := Parse([]byte(body))
		for b.Loop() {
			if !r.Allowed("PoliteCrawler", path) {
				b.Fatal("matched")
			}
		}
	})
	b.Run("impl=temoto", func(b *testing.B) {
		d, err := temoto.FromString(body)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if !d.TestAgent(path, "PoliteCrawler") {
				b.Fatal("matched")
			}
		}
	})
}
