package main

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/politecrawler/polite"
)

// Layout of the picture, in SVG user units.
const (
	labelWidth = 230
	plotWidth  = 900
	rowHeight  = 34
	barHeight  = 16
	topMargin  = 50
)

// timelineSVG draws reqs: a row per address, a bar per request, its rest
// hatched after it.
func timelineSVG(reqs []polite.RequestEvent) string {
	if len(reqs) == 0 {
		return `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="40"><text x="10" y="25">no requests</text></svg>`
	}
	start, end := reqs[0].Started, reqs[0].Started
	rows := map[netip.Addr][]polite.RequestEvent{}
	names := map[netip.Addr][]string{}
	for _, q := range reqs {
		start = minTime(start, q.Started)
		end = maxTime(end, q.Started.Add(q.Duration).Add(q.Rest.Wait))
		rows[q.Addr] = append(rows[q.Addr], q)
		if u, err := url.Parse(q.URL); err == nil && !slices.Contains(names[q.Addr], u.Hostname()) {
			names[q.Addr] = append(names[q.Addr], u.Hostname())
		}
	}
	addrs := make([]netip.Addr, 0, len(rows))
	for a := range rows {
		addrs = append(addrs, a)
	}
	slices.SortFunc(addrs, netip.Addr.Compare)
	span := end.Sub(start)
	x := func(t time.Time) float64 { return labelWidth + float64(t.Sub(start))/float64(span)*plotWidth }
	w := func(d time.Duration) float64 { return max(float64(d)/float64(span)*plotWidth, 3) }

	var b strings.Builder
	height := topMargin + len(addrs)*rowHeight + 60
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", labelWidth+plotWidth+20, height)
	b.WriteString(`<defs><pattern id="rest" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#eef2f7"/><line x1="0" y1="0" x2="0" y2="6" stroke="#9aa8b8" stroke-width="2"/></pattern></defs>` + "\n")
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="10" y="22" font-size="15" font-weight="bold">One request at a time per server address, and a rest after each (polite, R1–R2)</text>`+"\n")
	// Time axis: a tick every second, labelled every five.
	for s := time.Duration(0); s <= span; s += time.Second {
		tx := x(start.Add(s))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e3e3e3"/>`+"\n", tx, topMargin-8, tx, topMargin+len(addrs)*rowHeight)
		if s%(5*time.Second) == 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#666" text-anchor="middle">%ds</text>`+"\n", tx, topMargin-12, int(s.Seconds()))
		}
	}
	for i, a := range addrs {
		y := topMargin + i*rowHeight
		fmt.Fprintf(&b, `<text x="10" y="%d">%s</text><text x="10" y="%d" fill="#666" font-size="10">%s</text>`+"\n",
			y+13, a, y+26, strings.Join(names[a], ", "))
		for _, q := range rows[a] {
			qEnd := q.Started.Add(q.Duration)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="url(#rest)"><title>rest %s after %s</title></rect>`+"\n",
				x(qEnd), y+4, w(q.Rest.Wait), barHeight, q.Rest, q.URL)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#4a5a6a" font-size="9">%s</text>`+"\n", x(qEnd)+3, y+30, q.Rest.Term)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %d in %s</title></rect>`+"\n",
				x(q.Started), y+4, w(q.Duration), barHeight, colour(q), q.URL, q.Status, q.Duration.Round(time.Millisecond))
		}
	}
	ly := topMargin + len(addrs)*rowHeight + 25
	legend := []struct{ fill, text string }{
		{"#2b6cb0", "page"}, {"#718096", "robots.txt"}, {"#c53030", "429, 5xx or failure"}, {"url(#rest)", "enforced rest (term of R2 below)"},
	}
	lx := labelWidth
	for _, l := range legend {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="18" height="12" fill="%s" stroke="#999" stroke-width="0.5"/><text x="%d" y="%d">%s</text>`+"\n", lx, ly, l.fill, lx+24, ly+11, l.text)
		lx += 48 + 7*len(l.text)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func colour(q polite.RequestEvent) string {
	switch {
	case q.Robots:
		return "#718096"
	case q.Err != nil || q.Status >= 400:
		return "#c53030"
	}
	return "#2b6cb0"
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
