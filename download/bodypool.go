package download

import "sync"

// Page bodies of a known, small length are read into buffers kept in
// pools by size (powers of two from 1 KiB to 64 KiB), so that a crawl
// whose pages no spider callback keeps does not allocate, and collect, a
// new buffer for every page. A buffer goes back only through the
// response's Recycle, which the engine calls when nothing can still hold
// the body (see middleware.Response.Recycle); a body that is never
// recycled is garbage like any other.
const (
	minPooled = 1 << 10
	maxPooled = 64 << 10
)

// bodyPools holds one pool per size class, smallest first.
var bodyPools [7]sync.Pool

// poolClass returns the index of the smallest class that holds n bytes,
// or -1 when n is too large to be pooled.
func poolClass(n int) int {
	if n > maxPooled {
		return -1
	}
	c, size := 0, minPooled
	for size < n {
		c, size = c+1, size*2
	}
	return c
}

// getBody returns a buffer of length n, from its class's pool when n is
// small enough to be pooled; pooled reports whether it may be given back.
func getBody(n int) (buf []byte, pooled bool) {
	c := poolClass(n)
	if n == 0 || c < 0 {
		return make([]byte, n), false
	}
	if p, ok := bodyPools[c].Get().(*[]byte); ok {
		return (*p)[:n], true
	}
	return make([]byte, n, minPooled<<c), true
}

// putBody gives back a buffer getBody returned as pooled. The caller must
// hold the only reference to it.
func putBody(buf []byte) {
	c := poolClass(cap(buf))
	if c < 0 || cap(buf) != minPooled<<c {
		return
	}
	buf = buf[:cap(buf)]
	bodyPools[c].Put(&buf)
}
