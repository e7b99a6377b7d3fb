package redisshare

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/politecrawler/polite"
)

// The records every process reads: robots.txt copies (polite.RobotsStore,
// R5.3), and host records and refusals (polite.HostStore, R3.3-4). A
// host record's cool-off is also what takeScript reads to tell a process
// that the host was stopped by another.

// storeTimeout bounds one record call: the Store methods take no context.
const storeTimeout = 5 * time.Second

// maxKey is the longest URL, origin or host a record accepts, as in
// polite's own stores.
const maxKey = 16 << 10

func (s *Shared) recordCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), storeTimeout)
}

// storeErr wraps err in polite.ErrStore, as every Store's errors are.
func storeErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: redisshare: %s: %w", polite.ErrStore, what, err)
}

func (s *Shared) checkKey(what, k string) error {
	switch {
	case s.isClosed():
		return storeErr(what, ErrClosed)
	case k == "":
		return storeErr(what, errors.New("empty key"))
	case len(k) > maxKey:
		return storeErr(what, fmt.Errorf("key of %d bytes, more than %d", len(k), maxKey))
	}
	return nil
}

// LoadRobots returns the robots.txt copy of origin (polite.RobotsStore).
func (s *Shared) LoadRobots(origin string) (polite.StoredRobots, bool, error) {
	if err := s.checkKey("load robots.txt", origin); err != nil {
		return polite.StoredRobots{}, false, err
	}
	ctx, cancel := s.recordCtx()
	defer cancel()
	s.calls.Add(1)
	v, err := s.rdb.HMGet(ctx, s.robotsKey(origin), "status", "header", "body", "fetched").Result()
	if err != nil {
		return polite.StoredRobots{}, false, storeErr("load robots.txt", err)
	}
	if v[0] == nil {
		return polite.StoredRobots{}, false, nil
	}
	r := polite.StoredRobots{Origin: origin}
	var perr error
	r.Status, perr = strconv.Atoi(str(v[0]))
	header, herr := decodeHeader(str(v[1]))
	r.Header = header
	if b := str(v[2]); b != "" {
		r.Body = []byte(b)
	}
	ns, ferr := strconv.ParseInt(str(v[3]), 10, 64)
	r.Fetched = time.Unix(0, ns).UTC()
	if err := errors.Join(perr, herr, ferr); err != nil {
		return polite.StoredRobots{}, false, storeErr("load robots.txt: damaged record", err)
	}
	return r, true, nil
}

// SaveRobots replaces the robots.txt copy of r.Origin (polite.RobotsStore).
func (s *Shared) SaveRobots(r polite.StoredRobots) error {
	if err := s.checkKey("save robots.txt", r.Origin); err != nil {
		return err
	}
	header, err := encodeHeader(r.Header)
	if err != nil {
		return storeErr("save robots.txt", err)
	}
	ctx, cancel := s.recordCtx()
	defer cancel()
	s.calls.Add(1)
	err = saveRobotsScript.Run(ctx, s.rdb, []string{s.robotsKey(r.Origin)},
		r.Status, header, r.Body, r.Fetched.UnixNano(), polite.RobotsStaleLimit.Milliseconds()).Err()
	return storeErr("save robots.txt", err)
}

// refusal is a polite.RefusalRecord as kept in Redis.
type refusal struct {
	Host, URL string
	Status    int
	Kind      string
	Evidence  string
	At        int64 // Unix nanoseconds
}

// AddRefusal keeps a refusal record (polite.HostStore).
func (s *Shared) AddRefusal(r polite.RefusalRecord) error {
	if err := s.checkKey("add refusal", r.Host); err != nil {
		return err
	}
	b, err := json.Marshal(refusal{Host: r.Host, URL: r.URL, Status: r.Status, Kind: string(r.Kind), Evidence: r.Evidence, At: r.At.UnixNano()})
	if err != nil {
		return storeErr("add refusal", err)
	}
	return s.record("add refusal", func(ctx context.Context) error {
		return s.rdb.RPush(ctx, s.refusalsKey(), b).Err()
	})
}

// record writes a stop's part; one that fails is kept and sent again by
// the watch until Redis takes it, and the error says so.
func (s *Shared) record(what string, write func(context.Context) error) error {
	ctx, cancel := s.recordCtx()
	defer cancel()
	s.calls.Add(1)
	err := write(ctx)
	if err == nil {
		return nil
	}
	s.mu.Lock()
	s.owedRecords = append(s.owedRecords, write)
	s.mu.Unlock()
	return storeErr(what+" (sent again once Redis answers)", err)
}

// Refusals returns every refusal record, in the order added
// (polite.HostStore).
func (s *Shared) Refusals() ([]polite.RefusalRecord, error) {
	if s.isClosed() {
		return nil, storeErr("refusals", ErrClosed)
	}
	ctx, cancel := s.recordCtx()
	defer cancel()
	s.calls.Add(1)
	vs, err := s.rdb.LRange(ctx, s.refusalsKey(), 0, -1).Result()
	if err != nil {
		return nil, storeErr("refusals", err)
	}
	var out []polite.RefusalRecord
	for _, v := range vs {
		var r refusal
		if err := json.Unmarshal([]byte(v), &r); err != nil {
			return nil, storeErr("refusals: damaged record", err)
		}
		out = append(out, polite.RefusalRecord{Host: r.Host, URL: r.URL, Status: r.Status,
			Kind: polite.StopKind(r.Kind), Evidence: r.Evidence, At: time.Unix(0, r.At).UTC()})
	}
	return out, nil
}

// LoadHost returns what is remembered of host (polite.HostStore).
func (s *Shared) LoadHost(host string) (polite.HostRecord, bool, error) {
	if err := s.checkKey("load host", host); err != nil {
		return polite.HostRecord{}, false, err
	}
	ctx, cancel := s.recordCtx()
	defer cancel()
	s.calls.Add(1)
	v, err := s.rdb.HMGet(ctx, s.hostKey(host), "stops", "untilns", "reason").Result()
	if err != nil {
		return polite.HostRecord{}, false, storeErr("load host", err)
	}
	if v[0] == nil {
		return polite.HostRecord{}, false, nil
	}
	h := polite.HostRecord{Host: host, LastReason: str(v[2])}
	var serr, uerr error
	h.Stops, serr = strconv.Atoi(str(v[0]))
	ns, uerr := strconv.ParseInt(str(v[1]), 10, 64)
	if ns != 0 {
		h.CoolOffUntil = time.Unix(0, ns).UTC()
	}
	if err := errors.Join(serr, uerr); err != nil {
		return polite.HostRecord{}, false, storeErr("load host: damaged record", err)
	}
	return h, true, nil
}

// SaveHost replaces the record of h.Host (polite.HostStore). Its
// cool-off, in milliseconds as "until", is what stops the host for every
// process sharing the server before its next request (takeScript). A
// save that fails is sent again until Redis takes it. (The count of
// stops is read, then written: two processes stopping one host at once
// may count one stop.)
func (s *Shared) SaveHost(h polite.HostRecord) error {
	if err := s.checkKey("save host", h.Host); err != nil {
		return err
	}
	var ns, ms int64
	if !h.CoolOffUntil.IsZero() {
		ns, ms = h.CoolOffUntil.UnixNano(), h.CoolOffUntil.UnixMilli()
	}
	return s.record("save host", func(ctx context.Context) error {
		return s.rdb.HSet(ctx, s.hostKey(h.Host), "stops", h.Stops, "untilns", ns, "until", ms, "reason", h.LastReason).Err()
	})
}

// str is a reply value as a string; "" for nil.
func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func encodeHeader(h http.Header) (string, error) {
	if len(h) == 0 {
		return "", nil
	}
	b, err := json.Marshal(h)
	return string(b), err
}

func decodeHeader(s string) (http.Header, error) {
	if s == "" {
		return nil, nil
	}
	var h http.Header
	if err := json.Unmarshal([]byte(s), &h); err != nil {
		return nil, err
	}
	return h, nil
}

var _ polite.Shared = (*Shared)(nil)
