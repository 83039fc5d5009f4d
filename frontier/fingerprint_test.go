package frontier

import (
	"bytes"
	"context"
	"hash/fnv"
	"testing"
)

func TestFingerprintMatchesHashFNV(t *testing.T) {
	for _, tt := range []struct{ method, url string }{
		{"", "http://example.com/"},
		{"GET", "http://example.com/"},
		{"POST", "https://example.com/search?q=a+b"},
		{"get", "http://example.com/"},
		{"GET", ""},
		{"GET", "http://a/\x00\xff"},
	} {
		m := tt.method
		if m == "" {
			m = "GET"
		}
		h := fnv.New128a()
		h.Write([]byte(m + " " + tt.url))
		got := NewFingerprint(tt.method, tt.url)
		if !bytes.Equal(got[:], h.Sum(nil)) {
			t.Errorf("NewFingerprint(%q, %q) = %s, hash/fnv says %x", tt.method, tt.url, got, h.Sum(nil))
		}
	}
}

// The values are pinned: stored fingerprints must keep their meaning.
func TestFingerprintIsStable(t *testing.T) {
	for _, tt := range []struct{ method, url, want string }{
		{"", "http://example.com/", "d8c2657dab4ba76a619c515f7603c579"},
		{"POST", "http://example.com/", "f026b37848707c9113f549f8334896d1"},
	} {
		got := NewFingerprint(tt.method, tt.url).String()
		if got != tt.want {
			t.Errorf("NewFingerprint(%q, %q) = %s, want %s", tt.method, tt.url, got, tt.want)
		}
	}
}

func TestFingerprintDistinguishes(t *testing.T) {
	a := NewFingerprint("GET", "http://example.com/a")
	if a != NewFingerprint("", "http://example.com/a") {
		t.Error("empty method differs from GET")
	}
	for _, other := range []Fingerprint{
		NewFingerprint("GET", "http://example.com/b"),
		NewFingerprint("HEAD", "http://example.com/a"),
		NewFingerprint("get", "http://example.com/a"),
		NewFingerprint("GET", "https://example.com/a"),
	} {
		if other == a {
			t.Errorf("fingerprints collide: %s", a)
		}
	}
	r := &Request{URL: "http://example.com/a"}
	if r.Fingerprint() != a {
		t.Error("Request.Fingerprint differs from NewFingerprint")
	}
}

func TestParseFingerprint(t *testing.T) {
	f := NewFingerprint("GET", "http://example.com/")
	got, err := ParseFingerprint(f.String())
	if err != nil || got != f {
		t.Fatalf("ParseFingerprint(%s) = %s, %v", f, got, err)
	}
	for _, bad := range []string{"", "zz", f.String()[:30], f.String() + "00", "g" + f.String()[1:]} {
		if _, err := ParseFingerprint(bad); err == nil {
			t.Errorf("ParseFingerprint(%q) succeeded", bad)
		}
	}
}

func TestNewFingerprintDoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { NewFingerprint("GET", "http://example.com/a") }); n != 0 {
		t.Errorf("NewFingerprint allocates %v times", n)
	}
}

func TestSitemapAndPageAreDifferentRequests(t *testing.T) {
	const u = "http://a.test/sitemap.xml"
	if KeyOf(KindPage, "", u) != NewFingerprint("", u) {
		t.Error("a page's key changed: stored fingerprints would lose their meaning")
	}
	if KeyOf(KindSitemap, "", u) == KeyOf(KindPage, "", u) {
		t.Error("a sitemap and a page at one URL share a key")
	}
	m := NewMemory()
	ctx := context.Background()
	for i, step := range []struct {
		kind Kind
		want PushResult
	}{{KindPage, Added}, {KindSitemap, Added}, {KindSitemap, Duplicate}} {
		res, err := m.Push(ctx, &Request{URL: u, Kind: step.kind})
		if err != nil || res != step.want {
			t.Errorf("push %d (kind %d): %v, %v; want %v", i, step.kind, res, err, step.want)
		}
	}
	if st := m.Stats(); st.Queued != 2 || st.Duplicates != 1 {
		t.Errorf("stats %+v", st)
	}
}

// A body is part of a request's identity: two posts of different forms are
// two requests, a post is not its URL's GET, and a bodyless request keeps
// the key it always had.
func TestFingerprintBody(t *testing.T) {
	get := &Request{URL: "http://example.com/login"}
	post := &Request{URL: get.URL, Method: "POST"}
	alice := &Request{URL: get.URL, Method: "POST", Body: []byte("user=alice")}
	bob := &Request{URL: get.URL, Method: "POST", Body: []byte("user=bob")}
	alice2 := &Request{URL: get.URL, Method: "POST", Body: []byte("user=alice")}
	if get.Fingerprint() != NewFingerprint("", get.URL) || post.Fingerprint() != NewFingerprint("POST", get.URL) {
		t.Error("a request without a body changed its fingerprint")
	}
	if alice.Fingerprint() == bob.Fingerprint() || alice.Fingerprint() == post.Fingerprint() {
		t.Error("posts with different bodies share a fingerprint")
	}
	if alice.Fingerprint() != alice2.Fingerprint() {
		t.Error("equal posts have different fingerprints")
	}
}
