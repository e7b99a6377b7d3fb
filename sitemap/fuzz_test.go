package sitemap_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/politecrawler/polite/sitemap"
)

// FuzzParse: no body makes Parse panic, its locs keep File's promises,
// and a body reads the same gzipped as plain. Seeds: the table of
// TestParse and testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add([]byte(tt.body))
	}
	f.Add(gz(f, []byte(`<urlset><url><loc>http://a.test/</loc></url></urlset>`)))
	f.Add([]byte("\x1f\x8b\x08\x00garbage"))
	f.Fuzz(func(t *testing.T, body []byte) {
		file, err := sitemap.Parse(body)
		if len(file.Locs) > sitemap.MaxURLs {
			t.Fatalf("%d locs", len(file.Locs))
		}
		for _, loc := range file.Locs {
			if loc == "" || strings.TrimSpace(loc) != loc {
				t.Fatalf("loc %q not trimmed", loc)
			}
		}
		if err == nil && (file.Kind < sitemap.URLSet || file.Kind > sitemap.Text) {
			t.Fatalf("no error, and Kind %v", file.Kind)
		}
		if errors.Is(err, sitemap.ErrNotSitemap) && len(file.Locs) > 0 {
			t.Fatalf("ErrNotSitemap, and locs %q", file.Locs)
		}
		if bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
			return // gzipped again, it would be read as text
		}
		zipped, zerr := sitemap.Parse(gz(t, body))
		if !reflect.DeepEqual(zipped, file) || (zerr == nil) != (err == nil) {
			t.Fatalf("gzipped: %+v, %v\nplain:   %+v, %v", zipped, zerr, file, err)
		}
	})
}
