package urltrap

import (
	"slices"
	"strings"
)

// Per-host bounds on the Tracker's memory of bodies, so that a host
// serving endless distinct pages cannot grow it without end. When full,
// the oldest entry goes: a trap repeats itself quickly, so what it needs
// to be caught is recent memory, not all of it.
const (
	// contentPerHost bounds the (body, pattern) pairs remembered per host;
	// each holds at most Limits.SameContent URL hashes.
	contentPerHost = 4096
	// droppedPerHost bounds the dropped patterns kept per host. One that is
	// forgotten is dropped again after SameContent more identical pages.
	droppedPerHost = 1024
)

// A Tracker is the trap memory of one run: for each host the URL patterns whose pages keep serving the same body.
//
// A URL's pattern is its path with every run of digits written "{n}",
// then its query's parameter names, sorted and each once, with values
// written "{v}": "/cal/2031/04?view=day&id=7" has the pattern
// "/cal/{n}/{n}?id={v}&view={v}". Sorting the names makes the parameter
// permutations of one page one pattern. When one body has been served
// under Limits.SameContent distinct URLs of one pattern on one host,
// that pattern is dropped for the host. Pages of unrelated patterns
// sharing a body, a site-wide "not found" page, drop nothing: that is
// one page, not a trap, and dropping the common prefix would drop the
// site.
//
// Duplicates (URLSet) are found by a 64-bit FNV-1a hash of the normalised URL,
// not the URL itself: 8 bytes per URL (plus the table's spare slots)
// instead of ~100. Two distinct URLs collide with probability about n²/2⁶⁵ over
// n URLs, one in 400,000 for ten million URLs; a collision skips one URL
// as a duplicate, nothing worse. A host's seen set lasts as long as the
// caller keeps the host (URLSet.Forget).
//
// A Tracker is not safe for concurrent use: the scheduler owns it and
// calls it with its lock held. The zero value is ready to use with
// the default Limits.
type Tracker struct {
	limits Limits
	hosts  map[string]*hostMemory
	// firsts holds, for each host Content has seen once, that one call's
	// page: the host's memory is made at its second call, even for the
	// same URL. Many hosts of a broad crawl serve one page, which can
	// never be a trap. Unused when SameContent is 1 or less.
	firsts  map[string]firstPage
	scratch []byte   // the pattern being built, reused between calls
	names   []string // query names being sorted, reused between calls
}

// firstPage is a host's one page so far: its (body, pattern) pair and its
// URL's hash.
type firstPage struct {
	key contentKey
	url uint64
}

// hostMemory is what a Tracker remembers of one host's bodies.
type hostMemory struct {
	// bodies maps a (body, pattern) pair to the distinct URLs that served
	// it, at most SameContent of them; order is its entries, oldest at
	// next once full (a ring), for eviction.
	bodies map[contentKey][]uint64
	order  []contentKey
	next   int

	// dropped maps a pattern's hash to the pattern; droppedOrder is its
	// ring, like order.
	dropped      map[uint64]string
	droppedOrder []uint64
	droppedNext  int
}

type contentKey struct{ body, pattern uint64 }

// NewTracker returns an empty Tracker judging by l (zero fields meaning
// the defaults).
func NewTracker(l Limits) *Tracker {
	return &Tracker{limits: l.withDefaults()}
}

// URLSet is the set of normalised URLs admitted in a run, by host, held
// as their 64-bit hashes (see Tracker for the odds of a collision): a
// host's set can be forgotten with the host. The zero value is empty and
// ready; it is not safe for concurrent use.
type URLSet struct{ hosts map[string]*hashSet }

// Add records the normalised URL of host, and reports whether it was
// already there: a Duplicate.
func (s *URLSet) Add(host, normalised string) (already bool) {
	set := s.hosts[host]
	if set == nil {
		if s.hosts == nil {
			s.hosts = make(map[string]*hashSet)
		}
		set = &hashSet{}
		s.hosts[host] = set
	}
	return set.add(hashString(normalised))
}

// Forget drops what the set holds of host: its URLs are new again.
func (s *URLSet) Forget(host string) { delete(s.hosts, host) }

// Forget drops what the Tracker remembers of host.
func (t *Tracker) Forget(host string) {
	delete(t.hosts, host)
	delete(t.firsts, host)
}

// Content records that the page at the normalised URL of host had a body
// hashing to bodyHash (any 64-bit hash of the body the caller likes). It
// reports whether the URL's pattern is dropped for the host, now or
// before, and the pattern: once SameContent distinct URLs of one pattern
// have served one body, the pattern is dropped, and the URL that tipped
// it is already a RepeatedContent result. The same URL fetched twice
// counts once.
func (t *Tracker) Content(host, normalised string, bodyHash uint64) (pattern string, dropped bool) {
	n := t.limits.withDefaults().SameContent
	if n < 0 {
		return "", false
	}
	p := t.pattern(normalised)
	ph := hashBytes(p)
	k := contentKey{body: bodyHash, pattern: ph}
	u := hashString(normalised)
	h := t.hosts[host]
	if h == nil {
		first, seen := t.firsts[host]
		if !seen && n > 1 { // one page cannot make SameContent URLs
			if t.firsts == nil {
				t.firsts = make(map[string]firstPage)
			}
			t.firsts[host] = firstPage{key: k, url: u}
			return "", false
		}
		h = t.host(host)
		if seen { // the host's second page: its first joins its memory
			delete(t.firsts, host)
			h.remember(first.key)
			h.bodies[first.key] = []uint64{first.url}
		}
	}
	if q, ok := h.dropped[ph]; ok && q == string(p) {
		return q, true
	}
	urls, known := h.bodies[k]
	if !known {
		h.remember(k)
	}
	if !slices.Contains(urls, u) {
		if len(urls) < n {
			urls = append(urls, u)
			h.bodies[k] = urls
		}
	}
	if len(urls) < n {
		return "", false
	}
	q := string(p)
	h.drop(ph, q)
	return q, true
}

// Dropped reports whether the normalised URL of host matches a pattern
// dropped for that host by Content, and which. A true result is a
// RepeatedContent trap, to be reported without fetching the URL.
func (t *Tracker) Dropped(host, normalised string) (pattern string, bad bool) {
	h := t.hosts[host]
	if h == nil || len(h.dropped) == 0 {
		return "", false // the common case: no pattern to build
	}
	p := t.pattern(normalised)
	if q, ok := h.dropped[hashBytes(p)]; ok && q == string(p) {
		return q, true
	}
	return "", false
}

// host returns the memory of host, making it on first use.
func (t *Tracker) host(host string) *hostMemory {
	if t.hosts == nil {
		t.hosts = make(map[string]*hostMemory)
	}
	h := t.hosts[host]
	if h == nil {
		// dropped is made by the first drop: most hosts have none.
		h = &hostMemory{bodies: make(map[contentKey][]uint64)}
		t.hosts[host] = h
	}
	return h
}

// remember makes room for a new (body, pattern) pair, forgetting the
// oldest when the host's share is full. The caller adds the pair to
// bodies when it has a URL for it.
func (h *hostMemory) remember(k contentKey) {
	if len(h.order) < contentPerHost {
		h.order = append(h.order, k)
		h.bodies[k] = nil
		return
	}
	delete(h.bodies, h.order[h.next])
	h.order[h.next] = k
	h.bodies[k] = nil
	h.next = (h.next + 1) % contentPerHost
}

// drop records a dropped pattern, forgetting the oldest when full.
func (h *hostMemory) drop(ph uint64, pattern string) {
	if h.dropped == nil {
		h.dropped = make(map[uint64]string)
	}
	if _, ok := h.dropped[ph]; ok {
		h.dropped[ph] = pattern
		return
	}
	if len(h.droppedOrder) < droppedPerHost {
		h.droppedOrder = append(h.droppedOrder, ph)
	} else {
		delete(h.dropped, h.droppedOrder[h.droppedNext])
		h.droppedOrder[h.droppedNext] = ph
		h.droppedNext = (h.droppedNext + 1) % droppedPerHost
	}
	h.dropped[ph] = pattern
}

// pattern builds the URL's pattern (see Tracker) in t.scratch; the result
// is valid until the next call.
func (t *Tracker) pattern(normalised string) []byte {
	path, query := splitURL(normalised)
	b := t.scratch[:0]
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case c == '%' && i+2 < len(path):
			b = append(b, path[i:i+3]...) // the hex of an escape is no number
			i += 2
		case isDigit(c):
			b = append(b, "{n}"...)
			for i+1 < len(path) && isDigit(path[i+1]) {
				i++
			}
		default:
			b = append(b, c)
		}
	}
	if query != "" {
		names := t.names[:0]
		for q := query; q != ""; {
			piece, rest, _ := strings.Cut(q, "&")
			q = rest
			name, _, _ := strings.Cut(piece, "=")
			names = append(names, name)
		}
		slices.Sort(names)
		names = slices.Compact(names)
		b = append(b, '?')
		for i, name := range names {
			if i > 0 {
				b = append(b, '&')
			}
			b = append(b, name...)
			b = append(b, "={v}"...)
		}
		clear(names) // hold no reference to the caller's string
		t.names = names[:0]
	}
	t.scratch = b
	return b
}
