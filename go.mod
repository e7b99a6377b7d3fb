module github.com/politecrawler/polite

go 1.26
