package challenge

import (
	"bytes"
	"math/bits"
)

// markerSet is a set of body markers: bit i stands for bodyMarkers[i].
type markerSet uint64

// bodyMarkers are the strings classification looks for in a body: the
// challenge markers in their order, then the CAPTCHA widgets in theirs.
var bodyMarkers = func() [][]byte {
	var out [][]byte
	for _, m := range challengeMarkers {
		out = append(out, []byte(m.text))
	}
	for _, w := range captchaWidgets {
		out = append(out, []byte(w))
	}
	return out
}()

// markerBit is the bit of challengeMarkers[i]; widgetBit that of
// captchaWidgets[i].
func markerBit(i int) markerSet { return 1 << i }
func widgetBit(i int) markerSet { return 1 << (len(challengeMarkers) + i) }

// shellMarkers are the markers that count on a 200 or 202: the shell
// markers and the widgets. allMarkers count with a refusal-ish status.
var shellMarkers, allMarkers = func() (shell, all markerSet) {
	for i, m := range challengeMarkers {
		if m.shell {
			shell |= markerBit(i)
		}
		all |= markerBit(i)
	}
	for i := range captchaWidgets {
		shell |= widgetBit(i)
		all |= widgetBit(i)
	}
	return shell, all
}()

// markerStarts says, for each byte value and each of a marker's first
// three positions, which markers have that byte there.
var markerStarts = func() (t [3][256]markerSet) {
	if len(bodyMarkers) > 64 {
		panic("challenge: more body markers than a markerSet holds")
	}
	for i, m := range bodyMarkers {
		if len(m) < len(t) {
			panic("challenge: a body marker shorter than the scan's window")
		}
		for pos := range t {
			t[pos][m[pos]] |= 1 << i
		}
	}
	return t
}()

// scanMarkers returns which of the wanted markers body contains, in one
// pass over it. Every response is scanned, to its first 64 KiB. On a
// 64 KiB page with no marker (BenchmarkDetect, 200), a search per marker
// took 0.49-0.62 ms and this pass 0.18-0.25 ms, in the same hour: at
// 10,000 hosts, about 3,300 pages a second, 1.8 cores against 0.7 on this
// 2-core machine.
func scanMarkers(body []byte, want markerSet) markerSet {
	var found markerSet
	for i := 0; i+len(markerStarts) <= len(body) && want != 0; i++ {
		c := markerStarts[0][body[i]] & want
		if c == 0 {
			continue
		}
		c &= markerStarts[1][body[i+1]] & markerStarts[2][body[i+2]]
		for c != 0 {
			k := bits.TrailingZeros64(uint64(c))
			c &= c - 1
			if bytes.HasPrefix(body[i:], bodyMarkers[k]) {
				found |= 1 << k
				want &^= 1 << k
			}
		}
	}
	return found
}
