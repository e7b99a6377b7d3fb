package htmlpass

import "unicode/utf8"

// maxPreSpace bounds the run of white space kept inside <pre>: beyond it,
// more blanks say nothing.
const maxPreSpace = 256

// textWriter collects readable text as it streams by. White space is held
// back until the next visible character, so the text never starts or ends
// with it: a run of it becomes one space, or a line end when a block
// element ended or began in the run; inside <pre> it is kept as written.
// In countOnly mode it keeps nothing and counts characters.
type textWriter struct {
	b         []byte
	max       int  // bytes of text kept at most
	countOnly bool // count, keep nothing
	n         int  // characters written
	size      int  // bytes written
	lastNL    bool // the last character written is a line end
	full      bool // max reached: nothing more is written

	pendSpace bool   // white space seen since the last character
	pendLine  bool   // a block boundary seen since the last character
	pendPre   []byte // white space seen inside <pre>, kept as written
}

// space marks a word boundary, such as between table cells.
func (w *textWriter) space() { w.pendSpace = true }

// block marks a block boundary: the next text starts a line.
func (w *textWriter) block() { w.pendLine = true }

// write adds text; pre keeps its white space.
func (w *textWriter) write(s []byte, pre bool) {
	for i := 0; i < len(s) && !w.full; {
		c := s[i]
		if ' ' < c && c < 0x7f { // a run of visible ASCII, the bulk of any text
			j := i + 1
			for j < len(s) && ' ' < s[j] && s[j] < 0x7f {
				j++
			}
			w.flush()
			w.emit(s[i:j], j-i, false)
			i = j
			continue
		}
		if c < utf8.RuneSelf {
			i++
			// White space, and controls, which show as none.
			if pre && (c == ' ' || c == '\t' || c == '\n') {
				if len(w.pendPre) < maxPreSpace {
					w.pendPre = append(w.pendPre, c)
				}
			} else {
				w.pendSpace = true
			}
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == '\u00a0' && !pre: // &nbsp; spaces words as a space does
			w.pendSpace = true
		case r == utf8.RuneError && size == 1:
			w.flush()
			w.emit([]byte("\uFFFD"), 1, false)
		default:
			w.flush()
			w.emit(s[i:i+size], 1, false)
		}
		i += size
	}
}

// flush writes the white space held back before a visible character.
func (w *textWriter) flush() {
	if !w.pendLine && !w.pendSpace && len(w.pendPre) == 0 {
		return
	}
	line, pre, space := w.pendLine, w.pendPre, w.pendSpace
	w.pendLine, w.pendPre, w.pendSpace = false, w.pendPre[:0], false
	if w.n == 0 {
		return // no leading white space
	}
	if line {
		if !w.lastNL {
			w.emit([]byte{'\n'}, 1, true)
		}
		// White space inside <pre> after a line end keeps its indent.
		for i, c := range pre {
			if c == '\n' {
				pre = pre[i+1:]
				break
			}
		}
	}
	switch {
	case len(pre) > 0:
		w.emit(pre, len(pre), pre[len(pre)-1] == '\n')
	case space && !line && !w.lastNL:
		w.emit([]byte{' '}, 1, false)
	}
}

// emit writes p, runes characters. What does not fit within max is cut at
// a character boundary, and sets full: nothing more is written.
func (w *textWriter) emit(p []byte, runes int, endsLine bool) {
	if w.full {
		return
	}
	if w.size+len(p) > w.max {
		cut := w.max - w.size
		for cut > 0 && !utf8.RuneStart(p[cut]) {
			cut--
		}
		p, runes, w.full = p[:cut], utf8.RuneCount(p[:cut]), true
		if len(p) == 0 {
			return
		}
	}
	if !w.countOnly {
		w.b = append(w.b, p...)
	}
	w.size += len(p)
	w.n += runes
	w.lastNL = endsLine
}
