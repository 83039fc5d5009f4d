package durable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

// Keys. Pebble has one ordered key space; the first byte of a key says
// what it holds (see the package doc for the layout).
const (
	prefixVersion   = 'v' // "v": format magic and version
	prefixConfig    = 'c' // "c": settings fixed at creation (the order)
	prefixCounters  = 'n' // "n": Seq and the stats counters
	prefixAuthority = 'a' // "a" id: an authority's name, queue size, hold
	prefixQueue     = 'q' // "q" id class sortkey: a queued request
	prefixLease     = 'l' // "l" seq: a leased request
	prefixSeen      = 's' // "s" fingerprint: a URL seen
	prefixMeta      = 'm' // "m" key: the caller's meta data
)

// Queue key classes: retried (and, after a crash, leased) requests go
// before every request pushed, newest first.
const (
	classFront  = 0
	classPushed = 1
)

// formatMagic starts the value of the version key, so that a Pebble store
// written by something else is told apart from a damaged heed one.
const formatMagic = "heed frontier state"

// FormatVersion is the version of the on-disk layout this package writes
// and reads. Open refuses a state with another version with a *FormatError.
const FormatVersion = 1

func versionValue() []byte {
	return binary.AppendUvarint([]byte(formatMagic), FormatVersion)
}

// parseVersion returns the version in a version key's value.
func parseVersion(v []byte) (uint64, error) {
	if len(v) < len(formatMagic) || string(v[:len(formatMagic)]) != formatMagic {
		return 0, errors.New("not a heed frontier state (bad magic)")
	}
	n, k := binary.Uvarint(v[len(formatMagic):])
	if k <= 0 {
		return 0, errors.New("not a heed frontier state (bad version number)")
	}
	return n, nil
}

func authorityKey(id uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{prefixAuthority}, id)
}

func queuePrefix(id uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{prefixQueue}, id)
}

// sortable maps a signed int to a uint64 of the same order.
func sortable(v int) uint64 { return uint64(int64(v)) ^ 1<<63 }

// pushedKey is the queue key of a pushed request: its authority, then
// frontier.Order.Less spelled as bytes: priority (higher first), depth and
// Seq (ascending for BreadthFirst, descending for DepthFirst).
func pushedKey(id uint32, o frontier.Order, r *frontier.Request) []byte {
	k := append(queuePrefix(id), classPushed)
	k = binary.BigEndian.AppendUint64(k, ^sortable(r.Priority))
	depth, seq := sortable(r.Depth), r.Seq
	if o == frontier.DepthFirst {
		depth, seq = ^depth, ^seq
	}
	k = binary.BigEndian.AppendUint64(k, depth)
	return binary.BigEndian.AppendUint64(k, seq)
}

// frontKey is the queue key of a request put back at the head: the later
// put back, the smaller the key, so the last one is the head.
func frontKey(id uint32, n uint64) []byte {
	k := append(queuePrefix(id), classFront)
	return binary.BigEndian.AppendUint64(k, ^n)
}

// queueKeyAuthority returns the authority id of a queue key.
func queueKeyAuthority(k []byte) (uint32, bool) {
	if len(k) < 6 || k[0] != prefixQueue {
		return 0, false
	}
	return binary.BigEndian.Uint32(k[1:5]), true
}

func leaseKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixLease}, seq)
}

func seenKey(fp frontier.Fingerprint) []byte {
	return append([]byte{prefixSeen}, fp[:]...)
}

func metaKey(key string) []byte {
	return append([]byte{prefixMeta}, key...)
}

// upperBound returns the smallest key greater than every key with prefix p.
func upperBound(p []byte) []byte {
	u := slices.Clone(p)
	for i := len(u) - 1; i >= 0; i-- {
		if u[i] != 0xff {
			u[i]++
			return u[:i+1]
		}
	}
	return nil // p is all 0xff: no upper bound
}

// counters is the value of the counters key.
type counters struct {
	seq      uint64 // last Seq assigned
	front    uint64 // last front-of-queue number assigned
	nextAuth uint32 // next authority id
	seen     uint64
	dups     uint64
	rejects  uint64
}

func (c counters) encode() []byte {
	b := make([]byte, 0, 40)
	b = binary.AppendUvarint(b, c.seq)
	b = binary.AppendUvarint(b, c.front)
	b = binary.AppendUvarint(b, uint64(c.nextAuth))
	b = binary.AppendUvarint(b, c.seen)
	b = binary.AppendUvarint(b, c.dups)
	return binary.AppendUvarint(b, c.rejects)
}

func decodeCounters(b []byte) (counters, error) {
	d := decoder{b: b}
	c := counters{
		seq:      d.uvarint(),
		front:    d.uvarint(),
		nextAuth: uint32(d.uvarint()),
		seen:     d.uvarint(),
		dups:     d.uvarint(),
		rejects:  d.uvarint(),
	}
	return c, d.finish("counters")
}

// authRecord is the value of an authority key.
type authRecord struct {
	name   string
	queued int
	hold   time.Time // zero: none
}

func (a authRecord) encode() []byte {
	b := make([]byte, 0, len(a.name)+16)
	b = appendString(b, a.name)
	b = binary.AppendVarint(b, int64(a.queued))
	var hold int64
	if !a.hold.IsZero() {
		hold = a.hold.UnixNano()
	}
	return binary.AppendVarint(b, hold)
}

func decodeAuthRecord(b []byte) (authRecord, error) {
	d := decoder{b: b}
	a := authRecord{name: d.string(), queued: d.int()}
	if h := d.varint(); h != 0 {
		a.hold = time.Unix(0, h)
	}
	return a, d.finish("authority record")
}

// requestVersion starts an encoded request, so that a later format can add
// fields. Version 2 added Header and Body after Seq; version 1 records
// (written before) are still read.
const requestVersion = 2

// encodeRequest appends r's fields to b: every field of frontier.Request,
// Meta in key order so that equal requests encode alike.
func encodeRequest(b []byte, r *frontier.Request) []byte {
	b = append(b, requestVersion)
	b = appendString(b, r.URL)
	b = appendString(b, r.Method)
	b = append(b, byte(r.Kind))
	b = binary.AppendVarint(b, int64(r.Depth))
	b = binary.AppendVarint(b, int64(r.Priority))
	b = appendString(b, r.Callback)
	b = binary.AppendUvarint(b, uint64(len(r.Meta)))
	keys := make([]string, 0, len(r.Meta))
	for k := range r.Meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = appendString(b, k)
		b = appendString(b, r.Meta[k])
	}
	b = appendString(b, r.Referrer)
	b = binary.AppendUvarint(b, uint64(len(r.Redirects)))
	for _, u := range r.Redirects {
		b = appendString(b, u)
	}
	b = binary.AppendVarint(b, int64(r.Attempt))
	b = binary.AppendUvarint(b, r.Seq)
	names := make([]string, 0, len(r.Header))
	for k := range r.Header {
		names = append(names, k)
	}
	slices.Sort(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, k := range names {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(len(r.Header[k])))
		for _, v := range r.Header[k] {
			b = appendString(b, v)
		}
	}
	return appendString(b, string(r.Body))
}

// decodeRequest parses what encodeRequest wrote. Damaged input gives an
// error, never a panic or an allocation larger than the input.
func decodeRequest(b []byte) (*frontier.Request, error) {
	if len(b) == 0 || b[0] < 1 || b[0] > requestVersion {
		return nil, errors.New("durable: request record: unknown version")
	}
	version := b[0]
	d := decoder{b: b[1:]}
	r := &frontier.Request{URL: d.string(), Method: d.string()}
	r.Kind = frontier.Kind(d.byte())
	r.Depth = d.int()
	r.Priority = d.int()
	r.Callback = d.string()
	if n := d.count(2); n > 0 {
		r.Meta = make(map[string]string, n)
		for i := 0; i < n; i++ {
			k := d.string()
			r.Meta[k] = d.string()
		}
	}
	r.Referrer = d.string()
	if n := d.count(1); n > 0 {
		r.Redirects = make([]string, n)
		for i := range r.Redirects {
			r.Redirects[i] = d.string()
		}
	}
	r.Attempt = d.int()
	r.Seq = d.uvarint()
	if version >= 2 {
		if n := d.count(2); n > 0 {
			r.Header = make(http.Header, n)
			for i := 0; i < n; i++ {
				k := d.string()
				vs := make([]string, d.count(1))
				for j := range vs {
					vs[j] = d.string()
				}
				r.Header[k] = vs
			}
		}
		if body := d.string(); body != "" {
			r.Body = []byte(body)
		}
	}
	if err := d.finish("request record"); err != nil {
		return nil, err
	}
	return r, nil
}

// leaseValue is a lease's value: the authority id and the request as
// handed out.
func leaseValue(id uint32, r *frontier.Request) []byte {
	return encodeRequest(binary.BigEndian.AppendUint32(nil, id), r)
}

func decodeLease(b []byte) (uint32, *frontier.Request, error) {
	if len(b) < 4 {
		return 0, nil, errors.New("durable: lease record too short")
	}
	r, err := decodeRequest(b[4:])
	return binary.BigEndian.Uint32(b), r, err
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads varints and strings, remembering the first error so that
// callers check once.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = errors.New(what)
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	return consume(d, v, n, "bad or truncated unsigned number")
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	return consume(d, v, n, "bad or truncated number")
}

// consume steps over the n bytes that v was read from, as binary.Uvarint
// and binary.Varint report them; n <= 0 fails with what.
func consume[T uint64 | int64](d *decoder, v T, n int, what string) T {
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int reads a varint that must fit an int.
func (d *decoder) int() int {
	v := d.varint()
	if int64(int(v)) != v {
		d.fail("number out of range")
		return 0
	}
	return int(v)
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("string longer than the record")
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// count reads a number of items each taking at least min bytes, and
// refuses one the rest of the record cannot hold.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/min) {
		d.fail("item count larger than the record")
		return 0
	}
	return int(n)
}

func (d *decoder) finish(what string) error {
	if d.err == nil && len(d.b) != 0 {
		d.err = errors.New("trailing bytes")
	}
	if d.err != nil {
		return fmt.Errorf("durable: %s: %w", what, d.err)
	}
	return nil
}
