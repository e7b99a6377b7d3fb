package polite

import (
	"bytes"
	"testing"
)

// markersByContains is the scan's oracle: one search per marker.
func markersByContains(body []byte, want markerSet) markerSet {
	var found markerSet
	for i, m := range bodyMarkers {
		if want&(1<<i) != 0 && bytes.Contains(body, m) {
			found |= 1 << i
		}
	}
	return found
}

func TestScanMarkersFindsEachMarkerAnywhere(t *testing.T) {
	for i, m := range bodyMarkers {
		bit := markerSet(1) << i
		for _, body := range [][]byte{
			m,
			append([]byte("<html><body>"), m...),
			append(append([]byte("x"), m...), "</body>"...),
			append(append([]byte{}, m[:len(m)-1]...), m...), // a false start just before it
		} {
			if got := scanMarkers(body, allMarkers); got&bit == 0 {
				t.Errorf("marker %q not found in %q", m, body)
			}
			if got := scanMarkers(body, allMarkers&^bit); got&bit != 0 {
				t.Errorf("marker %q reported though not wanted", m)
			}
		}
		if got := scanMarkers(m[:len(m)-1], allMarkers); got&bit != 0 {
			t.Errorf("marker %q found in its own prefix", m)
		}
	}
}

func TestScanMarkersShellSetOn200(t *testing.T) {
	body := []byte("Sorry, you have been blocked. Checking your browser <div class=g-recaptcha>")
	got := scanMarkers(body, shellMarkers)
	for i, m := range challengeMarkers {
		has := bytes.Contains(body, []byte(m.text))
		if want := has && m.shell; (got&markerBit(i) != 0) != want {
			t.Errorf("marker %q (shell %v): found %v, want %v", m.text, m.shell, got&markerBit(i) != 0, want)
		}
	}
	if got&widgetBit(0) == 0 {
		t.Errorf("widget %q not found", captchaWidgets[0])
	}
}

// FuzzScanMarkers: the one-pass scan finds exactly what a search per
// marker finds, for either set of markers.
func FuzzScanMarkers(f *testing.F) {
	for _, m := range bodyMarkers {
		f.Add(append([]byte("<p>"), m...), false)
	}
	f.Add([]byte("__cf_chl__cf_chl_window._cf_chl_opt"), true)
	f.Add([]byte("h-captchahcaptcha.com/1/api.jsh-"), false)
	f.Add([]byte("ab"), true)
	f.Fuzz(func(t *testing.T, body []byte, shell bool) {
		want := allMarkers
		if shell {
			want = shellMarkers
		}
		if got, oracle := scanMarkers(body, want), markersByContains(body, want); got != oracle {
			t.Fatalf("scan found %b, a search per marker %b", got, oracle)
		}
	})
}

// BenchmarkScanMarkers compares the one-pass scan with a search per
// marker, on a small page and on a page as long as the classification
// prefix.
func BenchmarkScanMarkers(b *testing.B) {
	line := []byte("<p>Some ordinary text with <a href=\"/cgi/page\">links</a> and words.</p>\n")
	pages := map[string][]byte{
		"small": bytes.Repeat(line, 4),
		"64KiB": bytes.Repeat(line, classifyPrefix/len(line)+1)[:classifyPrefix],
	}
	for _, size := range []string{"small", "64KiB"} {
		page := pages[size]
		for name, scan := range map[string]func([]byte, markerSet) markerSet{"one-pass": scanMarkers, "per-marker": markersByContains} {
			b.Run(size+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(page)))
				for b.Loop() {
					scan(page, shellMarkers)
				}
			})
		}
	}
}
