package frontier_test

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/heedcrawl/heed/frontier"
)

// TestAuthorityKeepsNoURLAlive: an authority is kept for the whole crawl
// as a map key (pacing, robots.txt, budgets, statistics); it must not be
// a slice of the URL it came from, or every authority would keep its
// first URL (up to MaxURLLength) alive with it.
func TestAuthorityKeepsNoURLAlive(t *testing.T) {
	for _, raw := range []string{
		"https://example.com/" + strings.Repeat("a", 4000),
		"http://example.com:8080/x?q=1",
		"HTTP://Example.COM/messy/../path", // the slow path
	} {
		a, err := frontier.Authority(raw)
		if err != nil {
			t.Fatal(err)
		}
		start := uintptr(unsafe.Pointer(unsafe.StringData(raw)))
		p := uintptr(unsafe.Pointer(unsafe.StringData(a)))
		if p >= start && p < start+uintptr(len(raw)) {
			t.Errorf("Authority(%.40q) = %q shares the URL's memory", raw, a)
		}
	}
}
