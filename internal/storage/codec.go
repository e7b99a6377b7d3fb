package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"
)

// The records are a small hand-written binary format rather than gob or
// JSON: gob repeats its type descriptions in every independently decoded
// value and decodes by reflection; JSON turns bodies into base64 and
// times into text. Here a record is a version byte followed by fields in
// a fixed order: integers as (zig-zag) varints, strings and byte slices
// as a uvarint length and the bytes, times as Unix seconds (varint) and
// nanoseconds (uvarint). The decoder checks every length against what
// is left, so a damaged record is an error, never a panic or a huge
// allocation (FuzzDecode checks it).

// recordVersion is the first byte of every record. A change of layout
// takes a new value here and a new FormatVersion.
const recordVersion = 1

// errRecord is the cause of every decoding failure.
var errRecord = errors.New("malformed record")

type encoder struct{ b []byte }

func (e *encoder) int(v int64)     { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) uint(v uint64)   { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) bytes(v []byte)  { e.uint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *encoder) string(v string) { e.uint(uint64(len(v))); e.b = append(e.b, v...) }

// time keeps the instant to the nanosecond; the location is not kept
// (times load in UTC) and neither is the monotonic reading.
func (e *encoder) time(t time.Time) {
	e.int(t.Unix())
	e.uint(uint64(t.Nanosecond()))
}

// header writes the fields in sorted key order, so that equal headers
// encode to equal bytes.
func (e *encoder) header(h map[string][]string) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.uint(uint64(len(keys)))
	for _, k := range keys {
		e.string(k)
		vs := h[k]
		e.uint(uint64(len(vs)))
		for _, v := range vs {
			e.string(v)
		}
	}
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: bad %s", errRecord, what)
	}
}

func (d *decoder) int() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("integer")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("integer")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a number of items, each taking at least least bytes, refusing
// counts the remaining bytes cannot hold.
func (d *decoder) count(least int) int {
	n := d.uint()
	if d.err == nil && n > uint64(len(d.b)/least) {
		d.fail("count")
		return 0
	}
	return int(n)
}

// raw returns the next length-prefixed bytes, aliasing the input.
func (d *decoder) raw() []byte {
	n := d.count(1)
	if d.err != nil {
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string { return string(d.raw()) }

// bytes returns a copy of the next length-prefixed bytes; nil if empty.
func (d *decoder) bytes() []byte {
	v := d.raw()
	if len(v) == 0 {
		return nil
	}
	return append([]byte(nil), v...)
}

func (d *decoder) time() time.Time {
	sec := d.int()
	nsec := d.uint()
	if d.err != nil {
		return time.Time{}
	}
	if nsec >= uint64(time.Second) {
		d.fail("time")
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

// header decodes what encoder.header wrote; no fields decode as nil, a
// field without values as a nil slice.
func (d *decoder) header() map[string][]string {
	n := d.count(2) // a key and its value count take two bytes at least
	if d.err != nil || n == 0 {
		return nil
	}
	h := make(map[string][]string, n)
	for range n {
		k := d.string()
		nv := d.count(1)
		if d.err != nil {
			return nil
		}
		if _, dup := h[k]; dup {
			d.fail("header (repeated key)")
			return nil
		}
		var vs []string
		if nv > 0 {
			vs = make([]string, nv)
			for i := range vs {
				vs[i] = d.string()
			}
		}
		h[k] = vs
	}
	return h
}

func (d *decoder) version() {
	if len(d.b) == 0 || d.b[0] != recordVersion {
		d.fail("record version")
		return
	}
	d.b = d.b[1:]
}

// end reports the first error, or trailing bytes as one.
func (d *decoder) end() error {
	if d.err == nil && len(d.b) != 0 {
		d.fail("record (trailing bytes)")
	}
	return d.err
}

// pageRecord is one version of a page as kept in the pages bucket: the
// body itself is in the bodies bucket under its SHA-256.
type pageRecord struct {
	Status  int
	Header  map[string][]string
	Fetched time.Time
	BodyLen int
	BodySum [32]byte // zero when BodyLen is 0
}

func encodePage(r pageRecord) []byte {
	e := encoder{b: make([]byte, 0, 64+headerSize(r.Header))}
	e.b = append(e.b, recordVersion)
	e.int(int64(r.Status))
	e.time(r.Fetched)
	e.header(r.Header)
	e.uint(uint64(r.BodyLen))
	if r.BodyLen > 0 {
		e.b = append(e.b, r.BodySum[:]...)
	}
	return e.b
}

func decodePage(b []byte) (pageRecord, error) {
	d := decoder{b: b}
	var r pageRecord
	d.version()
	r.Status = int(d.int())
	r.Fetched = d.time()
	r.Header = d.header()
	n := d.uint()
	if d.err == nil && n > 0 {
		if n > maxValueSize || len(d.b) < len(r.BodySum) {
			d.fail("body reference")
		} else {
			r.BodyLen = int(n)
			copy(r.BodySum[:], d.b)
			d.b = d.b[len(r.BodySum):]
		}
	}
	return r, d.end()
}

func encodeRobots(r Robots) []byte {
	e := encoder{b: make([]byte, 0, 64+headerSize(r.Header)+len(r.Body))}
	e.b = append(e.b, recordVersion)
	e.int(int64(r.Status))
	e.time(r.Fetched)
	e.header(r.Header)
	e.bytes(r.Body)
	return e.b
}

func decodeRobots(origin string, b []byte) (Robots, error) {
	d := decoder{b: b}
	r := Robots{Origin: origin}
	d.version()
	r.Status = int(d.int())
	r.Fetched = d.time()
	r.Header = d.header()
	r.Body = d.bytes()
	return r, d.end()
}

func encodeRefusal(r Refusal) []byte {
	e := encoder{b: make([]byte, 0, 32+len(r.Host)+len(r.URL)+len(r.Kind)+len(r.Evidence))}
	e.b = append(e.b, recordVersion)
	e.string(r.Host)
	e.string(r.URL)
	e.int(int64(r.Status))
	e.string(r.Kind)
	e.string(r.Evidence)
	e.time(r.At)
	return e.b
}

func decodeRefusal(b []byte) (Refusal, error) {
	d := decoder{b: b}
	var r Refusal
	d.version()
	r.Host = d.string()
	r.URL = d.string()
	r.Status = int(d.int())
	r.Kind = d.string()
	r.Evidence = d.string()
	r.At = d.time()
	return r, d.end()
}

func encodeHost(h Host) []byte {
	e := encoder{b: make([]byte, 0, 32+len(h.LastReason))}
	e.b = append(e.b, recordVersion)
	e.int(int64(h.Stops))
	e.time(h.CoolOffUntil)
	e.string(h.LastReason)
	return e.b
}

func decodeHost(host string, b []byte) (Host, error) {
	d := decoder{b: b}
	h := Host{Host: host}
	d.version()
	h.Stops = int(d.int())
	h.CoolOffUntil = d.time()
	h.LastReason = d.string()
	return h, d.end()
}

// encodeRest writes a rest record: the same bytes under its address and
// under its host, each naming the other.
func encodeRest(r Rest) []byte {
	e := encoder{b: make([]byte, 0, 40+len(r.Host))}
	e.b = append(e.b, recordVersion)
	e.time(r.Until)
	e.int(int64(r.Rest))
	e.string(r.Addr.String())
	e.string(r.Host)
	return e.b
}

func decodeRest(b []byte) (Rest, error) {
	d := decoder{b: b}
	var r Rest
	d.version()
	r.Until = d.time()
	r.Rest = time.Duration(d.int())
	addr := d.string()
	r.Host = d.string()
	if d.err == nil {
		a, err := netip.ParseAddr(addr)
		if err != nil || r.Rest < 0 {
			d.fail("rest")
		}
		r.Addr = a
	}
	return r, d.end()
}

func headerSize(h map[string][]string) int {
	n := 0
	for k, vs := range h {
		n += len(k) + 4
		for _, v := range vs {
			n += len(v) + 2
		}
	}
	return n
}
