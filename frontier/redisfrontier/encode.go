package redisfrontier

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/heedcrawl/heed/frontier"
)

// Layout of a queue member (see scripts.go): sort key, queue-order Seq,
// Seq, JSON.
const (
	sortKeyLen  = 16
	seqHexLen   = 16
	memberHead  = sortKeyLen + 2*seqHexLen
	maxMemberMB = 1 << 20 // a stored request larger than this is corrupt
)

// sortKey encodes what orders an authority's queue ahead of the Seq, so
// that byte order is [frontier.Order.Less] order: priority (higher first),
// then depth (shallower first for BreadthFirst, deeper for DepthFirst).
// Both are offset-binary, big-endian, so that negative values sort too.
func sortKey(r *frontier.Request, o frontier.Order) []byte {
	var k [sortKeyLen]byte
	p := uint64(int64(r.Priority)) ^ 1<<63
	d := uint64(int64(r.Depth)) ^ 1<<63
	if o == frontier.DepthFirst {
		d = ^d
	}
	binary.BigEndian.PutUint64(k[:8], ^p)
	binary.BigEndian.PutUint64(k[8:], d)
	return k[:]
}

// requestJSON is the request as stored: everything but Seq, which the
// member carries (Push assigns it inside its script).
func requestJSON(r *frontier.Request) ([]byte, error) {
	c := *r
	c.Seq = 0
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, fmt.Errorf("redisfrontier: encode request %s: %w", r.URL, err)
	}
	return b, nil
}

// seqID is the lease id of a request: its Seq as 16 hex digits.
func seqID(seq uint64) string {
	s := strconv.FormatUint(seq, 16)
	return strings.Repeat("0", seqHexLen-len(s)) + s
}

// errMember is wrapped by decodeMember's errors.
var errMember = errors.New("redisfrontier: malformed queue entry")

// decodeMember reads a stored queue member back into a Request.
func decodeMember(m string) (*frontier.Request, error) {
	if len(m) < memberHead+2 {
		return nil, fmt.Errorf("%w: %d bytes", errMember, len(m))
	}
	if len(m) > maxMemberMB {
		return nil, fmt.Errorf("%w: %d bytes", errMember, len(m))
	}
	seq, err := strconv.ParseUint(m[sortKeyLen+seqHexLen:memberHead], 16, 64)
	if err != nil || seq == 0 {
		return nil, fmt.Errorf("%w: seq %q", errMember, m[sortKeyLen+seqHexLen:memberHead])
	}
	r := new(frontier.Request)
	if err := json.Unmarshal([]byte(m[memberHead:]), r); err != nil {
		return nil, fmt.Errorf("%w: seq %d: %v", errMember, seq, err)
	}
	if r.URL == "" {
		return nil, fmt.Errorf("%w: seq %d has no URL", errMember, seq)
	}
	r.Seq = seq
	return r, nil
}

// authorityOf returns the authority a canonical URL starts with.
func authorityOf(canon string) string {
	i := strings.Index(canon, "://") + 3
	j := strings.IndexByte(canon[i:], '/')
	if j < 0 {
		return canon
	}
	return canon[:i+j]
}
