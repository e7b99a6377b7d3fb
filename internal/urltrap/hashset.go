package urltrap

// hashSet is a set of 64-bit hashes in one open-addressed table, linear
// probing, kept between 3/8 and 3/4 full: 8 bytes a slot, so 11 to 21
// bytes an entry, against 30 or more for a Go map at its growth steps.
// Zero marks an empty slot, so the hash 0 is stored as 1 (one more, and
// harmless, collision).
type hashSet struct {
	slots []uint64
	n     int
}

// add inserts h and reports whether it was already there.
func (s *hashSet) add(h uint64) bool {
	if h == 0 {
		h = 1
	}
	if (s.n+1)*4 > len(s.slots)*3 {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return true
		case 0:
			s.slots[i] = h
			s.n++
			return false
		}
	}
}

func (s *hashSet) grow() {
	old := s.slots
	size := 8 // most hosts of a broad crawl have a few URLs
	if len(old) > 0 {
		size = len(old) * 2
	}
	s.slots, s.n = make([]uint64, size), 0
	for _, h := range old {
		if h != 0 {
			s.add(h)
		}
	}
}
