package frontier

import (
	"encoding/hex"
	"fmt"
	"math/bits"
)

// Fingerprint identifies a request for deduplication: the 128-bit FNV-1a
// hash of its method and canonical URL. It is comparable, so it serves as a
// map key, and its value is part of heed's storage format: durable and
// distributed backends store it, so it is the same on every machine, in
// every process and in every version of heed.
//
// 128 bits make an accidental collision (two URLs taken for one) negligible:
// about 1.5e-21 for a crawl of a billion URLs.
type Fingerprint [16]byte

// FNV-1a 128-bit parameters (http://www.isthe.com/chongo/tech/comp/fnv/).
const (
	fnvOffsetHi = 0x6c62272e07bb0142
	fnvOffsetLo = 0x62b821756295c58d
	fnvPrimeLo  = 0x13b // the prime is 2^88 + 0x13b
	fnvPrimeSh  = 24    // 88 - 64
)

// NewFingerprint returns the fingerprint of a request with the given method
// and canonical URL: the FNV-1a 128 hash of the method, a space and the URL.
// An empty method means GET; other methods are taken as written (HTTP
// methods are case-sensitive). The URL should be canonical (see
// [Canonicalize]); two spellings of one URL have different fingerprints.
func NewFingerprint(method, canonicalURL string) Fingerprint {
	if method == "" {
		method = "GET"
	}
	hi, lo := uint64(fnvOffsetHi), uint64(fnvOffsetLo)
	hi, lo = fnvAdd(hi, lo, method)
	hi, lo = fnvAdd(hi, lo, " ")
	hi, lo = fnvAdd(hi, lo, canonicalURL)
	var f Fingerprint
	for i := 0; i < 8; i++ {
		f[i] = byte(hi >> (56 - 8*i))
		f[8+i] = byte(lo >> (56 - 8*i))
	}
	return f
}

// fnvAdd hashes s into the 128-bit FNV-1a state hi:lo without allocating
// (hash/fnv's New128a returns an interface and escapes).
func fnvAdd(hi, lo uint64, s string) (uint64, uint64) {
	for i := 0; i < len(s); i++ {
		lo ^= uint64(s[i])
		// hi:lo * (2^88 + 0x13b) mod 2^128
		h, l := bits.Mul64(lo, fnvPrimeLo)
		h += hi*fnvPrimeLo + lo<<fnvPrimeSh
		hi, lo = h, l
	}
	return hi, lo
}

// Fingerprint returns the fingerprint the frontier deduplicates r by. The
// URL is used as is: call it on a request that went through Push, whose URL
// is canonical. A request without a body has KeyOf(kind, method, url); one
// with a body (a POST) has the key of a method that carries the body's
// own 128-bit FNV-1a hash, so two posts of different forms to one URL are
// two requests, and a post is never taken for a GET of its URL.
func (r *Request) Fingerprint() Fingerprint {
	method := r.Method
	if len(r.Body) > 0 {
		if method == "" {
			method = "GET"
		}
		hi, lo := fnvAdd(uint64(fnvOffsetHi), uint64(fnvOffsetLo), string(r.Body))
		method = fmt.Sprintf("%s body:%016x%016x", method, hi, lo)
	}
	return KeyOf(r.Kind, method, r.URL)
}

// KeyOf returns the dedup fingerprint of a request of the given kind,
// method and canonical URL. A sitemap and a page at the same URL are
// different requests (a page may link to /sitemap.xml before heed reads it
// as a sitemap), so a sitemap's key includes its kind; a page's key is
// NewFingerprint(method, url), unchanged.
func KeyOf(kind Kind, method, canonicalURL string) Fingerprint {
	if kind == KindSitemap {
		if method == "" {
			method = "GET"
		}
		method = "sitemap " + method
	}
	return NewFingerprint(method, canonicalURL)
}

// String returns f as 32 lower-case hex digits.
func (f Fingerprint) String() string {
	return hex.EncodeToString(f[:])
}

// ParseFingerprint parses the 32 hex digits written by Fingerprint.String.
func ParseFingerprint(s string) (Fingerprint, error) {
	var f Fingerprint
	if len(s) != 2*len(f) {
		return f, fmt.Errorf("frontier: fingerprint %q is not 32 hex digits", s)
	}
	if _, err := hex.Decode(f[:], []byte(s)); err != nil {
		return f, fmt.Errorf("frontier: fingerprint %q: %w", s, err)
	}
	return f, nil
}
