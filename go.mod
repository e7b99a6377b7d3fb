module github.com/politecrawler/polite

go 1.26.0

require (
	github.com/temoto/robotstxt v1.1.2
	go.etcd.io/bbolt v1.4.3
	golang.org/x/net v0.62.0
	golang.org/x/time v0.16.0
)

require (
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
