package storage

import (
	"bytes"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sync"
)

// Memory keeps the records of one run in memory, with the contract of DB:
// keys checked, values copied in and out, times in UTC, an empty body or
// header nil. A page saved with the same body as its latest version shares
// that body, as DB's content-addressed bodies do.
type Memory struct {
	mu       sync.RWMutex
	closed   bool
	pages    map[string][]Page // versions, oldest first
	robots   map[string]Robots
	refusals []Refusal
	hosts    map[string]Host
	// addrRests and hostRests hold each rest that ends last.
	addrRests map[netip.Addr]Rest
	hostRests map[string]Rest
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory {
	return &Memory{pages: make(map[string][]Page), robots: make(map[string]Robots), hosts: make(map[string]Host),
		addrRests: make(map[netip.Addr]Rest), hostRests: make(map[string]Rest)}
}

// LoadPage returns the latest version of url.
func (m *Memory) LoadPage(url string) (Page, bool, error) {
	if err := CheckKey("page URL", url); err != nil {
		return Page{}, false, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Page{}, false, ErrClosed
	}
	vs := m.pages[url]
	if len(vs) == 0 {
		return Page{}, false, nil
	}
	return copyPage(vs[len(vs)-1]), true, nil
}

// SavePage adds p as the latest version of p.URL.
func (m *Memory) SavePage(p Page) error {
	if err := CheckKey("page URL", p.URL); err != nil {
		return err
	}
	p = copyPage(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	vs := m.pages[p.URL]
	if n := len(vs); n > 0 && p.Body != nil && bytes.Equal(vs[n-1].Body, p.Body) {
		p.Body = vs[n-1].Body // never written to: shared
	}
	m.pages[p.URL] = append(vs, p)
	return nil
}

// PageHistory returns every version of url, oldest first.
func (m *Memory) PageHistory(url string) ([]Page, error) {
	if err := CheckKey("page URL", url); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	vs := m.pages[url]
	if len(vs) == 0 {
		return nil, nil
	}
	out := make([]Page, len(vs))
	for i, p := range vs {
		out[i] = copyPage(p)
	}
	return out, nil
}

// LoadRobots returns the robots.txt copy of origin.
func (m *Memory) LoadRobots(origin string) (Robots, bool, error) {
	if err := CheckKey("robots origin", origin); err != nil {
		return Robots{}, false, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Robots{}, false, ErrClosed
	}
	r, ok := m.robots[origin]
	if !ok {
		return Robots{}, false, nil
	}
	return copyRobots(r), true, nil
}

// SaveRobots replaces the robots.txt copy of r.Origin.
func (m *Memory) SaveRobots(r Robots) error {
	if err := CheckKey("robots origin", r.Origin); err != nil {
		return err
	}
	r = copyRobots(r)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.robots[r.Origin] = r
	return nil
}

// AddRefusal keeps r after those added before.
func (m *Memory) AddRefusal(r Refusal) error {
	r.At = r.At.UTC()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.refusals = append(m.refusals, r)
	return nil
}

// Refusals returns every refusal record, in the order added.
func (m *Memory) Refusals() ([]Refusal, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	return slices.Clone(m.refusals), nil
}

// LoadHost returns the record of host.
func (m *Memory) LoadHost(host string) (Host, bool, error) {
	if err := CheckKey("host", host); err != nil {
		return Host{}, false, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Host{}, false, ErrClosed
	}
	h, ok := m.hosts[host]
	return h, ok, nil
}

// SaveHost replaces the record of h.Host.
func (m *Memory) SaveHost(h Host) error {
	if err := CheckKey("host", h.Host); err != nil {
		return err
	}
	h.CoolOffUntil = h.CoolOffUntil.UTC()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.hosts[h.Host] = h
	return nil
}

// SaveRests keeps each of rs under its address and its host, each in
// place of the record there unless that one ends later, all or none, as
// DB does.
func (m *Memory) SaveRests(rs []Rest) error {
	for _, r := range rs {
		if err := CheckRest(r); err != nil {
			return err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	for _, r := range rs {
		r.Addr, r.Until = r.Addr.Unmap(), r.Until.UTC()
		if old, ok := m.addrRests[r.Addr]; !ok || !old.Until.After(r.Until) {
			m.addrRests[r.Addr] = r
		}
		if old, ok := m.hostRests[r.Host]; !ok || !old.Until.After(r.Until) {
			m.hostRests[r.Host] = r
		}
	}
	return nil
}

// LoadAddrRest returns the rest of the address a that ends last.
func (m *Memory) LoadAddrRest(a netip.Addr) (Rest, bool, error) {
	if !a.IsValid() {
		return Rest{}, false, fmt.Errorf("%w: invalid address", ErrKey)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Rest{}, false, ErrClosed
	}
	r, ok := m.addrRests[a.Unmap()]
	return r, ok, nil
}

// LoadHostRest returns the rest of host that ends last.
func (m *Memory) LoadHostRest(host string) (Rest, bool, error) {
	if err := CheckKey("host", host); err != nil {
		return Rest{}, false, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Rest{}, false, ErrClosed
	}
	r, ok := m.hostRests[host]
	return r, ok, nil
}

// Close drops every record; later calls return ErrClosed.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.pages, m.robots, m.refusals, m.hosts = nil, nil, nil, nil
	m.addrRests, m.hostRests = nil, nil
	return nil
}

// copyPage and copyRobots copy and normalise as DB's encoding does: UTC
// times, nil for an empty body or header.
func copyPage(p Page) Page {
	p.Header, p.Body, p.Fetched = copyHeader(p.Header), copyBody(p.Body), p.Fetched.UTC()
	return p
}

func copyRobots(r Robots) Robots {
	r.Header, r.Body, r.Fetched = copyHeader(r.Header), copyBody(r.Body), r.Fetched.UTC()
	return r
}

func copyBody(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return bytes.Clone(b)
}

func copyHeader(h map[string][]string) map[string][]string {
	if len(h) == 0 {
		return nil
	}
	c := maps.Clone(h)
	for k, vs := range c {
		if len(vs) == 0 {
			c[k] = nil
		} else {
			c[k] = slices.Clone(vs)
		}
	}
	return c
}
