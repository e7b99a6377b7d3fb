package sitemap_test

import (
	"fmt"
	"log"

	"github.com/politecrawler/polite/sitemap"
)

func ExampleParse() {
	body := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://example.org/pages.xml.gz</loc></sitemap>
  <sitemap><loc>https://example.org/news.txt</loc></sitemap>
</sitemapindex>`)
	f, err := sitemap.Parse(body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f.Kind)
	for _, loc := range f.Locs {
		fmt.Println(loc) // fetch it, and Parse it as well
	}
	// Output:
	// sitemapindex
	// https://example.org/pages.xml.gz
	// https://example.org/news.txt
}
