package polite

import "github.com/politecrawler/polite/internal/weburl"

// DisplayURL returns u, a URL the fetcher requests or found (Result.URL,
// Link.URL), as a person reads it, for printing: the host in Unicode
// ("xn--e1afmkfd.example" is "пример.example"), and percent-encoded UTF-8
// shown as its characters where they are printable and cannot pass for
// URL syntax. What it shows names the same resource, but it is for the
// eye: requests go to u as it is, ASCII, as a browser sends it (R8.4).
func DisplayURL(u string) string { return weburl.Display(u) }
