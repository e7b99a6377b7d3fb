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
	"github.com/redis/go-redis/v9"
)

// The records every process reads: robots.txt copies (polite.RobotsStore,
// R5.3), and host records and refusals (polite.HostStore, R3.3-4). Each
// is one key, and goes through the lane of the server that holds it. A
// stop is also written on the address its host was asked on, which a
// claim reads, and told on the channel of stops, which every Shared
// hears: the processes that have the host queued stop it too (R3).

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
	v, err := s.hmget(s.robotsKey(origin), "status", "header", "body", "fetched")
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
	key := s.robotsKey(r.Origin)
	err = s.laneOf(key).do(ctx, &call{script: saveRobotsScript, keys: []string{key},
		args: []any{r.Status, header, r.Body, r.Fetched.UnixNano(), polite.RobotsStaleLimit.Milliseconds()}})
	if err == nil {
		err = s.markRobots(ctx, r.Origin)
	}
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
	return s.record("add refusal", s.refusalsKey(), func(ctx context.Context, p redis.Pipeliner) redis.Cmder {
		return p.RPush(ctx, s.refusalsKey(), b)
	})
}

// record writes a stop's part, a command on key; one that fails is kept
// and sent again every beat until Redis takes it, and the error says so.
func (s *Shared) record(what, key string, write func(context.Context, redis.Pipeliner) redis.Cmder) error {
	ctx, cancel := s.recordCtx()
	defer cancel()
	l := s.laneOf(key)
	err := l.do(ctx, s.recordCall(l, write))
	if err == nil {
		return nil
	}
	return storeErr(what+" (sent again once Redis answers)", err)
}

// recordCall is a stop's part that, if it fails, is owed to l: queued
// again at its next beats until it is taken.
func (s *Shared) recordCall(l *lane, write func(context.Context, redis.Pipeliner) redis.Cmder) *call {
	c := &call{queue: write}
	c.apply = func(cmd redis.Cmder, _ time.Time) {
		if err := cmd.Err(); err != nil && !isReply(err) {
			s.mu.Lock()
			l.owedRecords = append(l.owedRecords, write)
			s.mu.Unlock()
		}
	}
	return c
}

// hmget reads fields of the hash key, through its lane.
func (s *Shared) hmget(key string, fields ...string) ([]any, error) {
	ctx, cancel := s.recordCtx()
	defer cancel()
	c := &call{queue: func(ctx context.Context, p redis.Pipeliner) redis.Cmder { return p.HMGet(ctx, key, fields...) }}
	if err := s.laneOf(key).do(ctx, c); err != nil {
		return nil, err
	}
	return c.cmd.(*redis.SliceCmd).Val(), nil
}

// Refusals returns every refusal record, in the order added
// (polite.HostStore).
func (s *Shared) Refusals() ([]polite.RefusalRecord, error) {
	if s.isClosed() {
		return nil, storeErr("refusals", ErrClosed)
	}
	ctx, cancel := s.recordCtx()
	defer cancel()
	key := s.refusalsKey()
	c := &call{queue: func(ctx context.Context, p redis.Pipeliner) redis.Cmder { return p.LRange(ctx, key, 0, -1) }}
	if err := s.laneOf(key).do(ctx, c); err != nil {
		return nil, storeErr("refusals", err)
	}
	vs := c.cmd.(*redis.StringSliceCmd).Val()
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
	v, err := s.hmget(s.hostKey(host), "stops", "untilns", "reason")
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

// SaveHost replaces the record of h.Host (polite.HostStore). A cool-off
// not yet over is a stop: it is also written on the address the host was
// asked on, which a claim of it reads, and told to every Shared on the
// channel of stops (R3). A save that fails is sent again until Redis
// takes it. (The count of stops is read, then written: two processes
// stopping one host at once may count one stop.)
func (s *Shared) SaveHost(h polite.HostRecord) error {
	if err := s.checkKey("save host", h.Host); err != nil {
		return err
	}
	var ns, ms int64
	if !h.CoolOffUntil.IsZero() {
		ns, ms = h.CoolOffUntil.UnixNano(), ceilUnixMs(h.CoolOffUntil)
	}
	err := s.record("save host", s.hostKey(h.Host), func(ctx context.Context, p redis.Pipeliner) redis.Cmder {
		return p.HSet(ctx, s.hostKey(h.Host), "stops", h.Stops, "untilns", ns, "until", ms, "reason", h.LastReason)
	})
	if !h.CoolOffUntil.After(time.Now()) {
		return err
	}
	reason := h.LastReason
	if reason == "" {
		reason = "stopped"
	}
	s.mu.Lock()
	a, asked := s.hosts.get(h.Host)
	s.mu.Unlock()
	if asked {
		key := s.stopsKey(a)
		left := time.Until(h.CoolOffUntil)
		err = errors.Join(err, s.record("save host", key, func(ctx context.Context, p redis.Pipeliner) redis.Cmder {
			p.HSet(ctx, key, h.Host, strconv.FormatInt(ms, 10)+"|"+reason)
			return p.PExpire(ctx, key, time.Duration(ceilMs(left))*time.Millisecond)
		}))
	}
	return errors.Join(err, s.record("save host", s.stopsChannel(), func(ctx context.Context, p redis.Pipeliner) redis.Cmder {
		return p.Publish(ctx, s.stopsChannel(), s.me+" "+strconv.FormatInt(ms, 10)+" "+h.Host+" "+reason)
	}))
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
