package durable

import (
	"bytes"
	"math"
	"math/rand/v2"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
)

var codecRequests = []*frontier.Request{
	{URL: "http://a.example/"},
	{
		URL: "https://b.example:8443/p?q=1", Method: "POST", Kind: frontier.KindSitemap,
		Depth: 7, Priority: -3, Callback: "parseItem",
		Meta:     map[string]string{"z": "1", "a": "", "ü": "ö"},
		Referrer: "https://b.example:8443/", Redirects: []string{"http://b.example/x", "https://b.example/y"},
		Attempt: 2, Seq: math.MaxUint64,
	},
	{URL: "http://c.example/", Depth: math.MinInt64, Priority: math.MaxInt64},
	{
		URL: "http://d.example/login", Method: "POST",
		Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Two": {"a", "b"}},
		Body:   []byte("user=u&pass=p"),
	},
}

// TestRequestVersion1 reads a record written before requests had headers
// and a body.
func TestRequestVersion1(t *testing.T) {
	r := &frontier.Request{URL: "http://a.example/", Callback: "cb", Seq: 9}
	b := encodeRequest(nil, r)
	// Version 1 ended at Seq: drop the header count and the body length.
	v1 := append([]byte{1}, b[1:len(b)-2]...)
	got, err := decodeRequest(v1)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("decode(v1) = %+v, %v; want %+v", got, err, r)
	}
}

func TestRequestRoundTrip(t *testing.T) {
	for _, r := range codecRequests {
		b := encodeRequest(nil, r)
		got, err := decodeRequest(b)
		if err != nil {
			t.Fatalf("decode(encode(%+v)): %v", r, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip = %+v; want %+v", got, r)
		}
		// Every strict prefix is refused, never a panic.
		for i := 0; i < len(b); i++ {
			if _, err := decodeRequest(b[:i]); err == nil {
				t.Errorf("decode of %d of %d bytes succeeded", i, len(b))
			}
		}
		if _, err := decodeRequest(append(b, 0)); err == nil {
			t.Error("decode with a trailing byte succeeded")
		}
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, a := range []authRecord{
		{name: "http://a.example"},
		{name: "https://b.example:8443", queued: 1 << 40, hold: time.Unix(1_900_000_000, 123)},
	} {
		got, err := decodeAuthRecord(a.encode())
		if err != nil || got.name != a.name || got.queued != a.queued || !got.hold.Equal(a.hold) {
			t.Errorf("authority record round trip = %+v, %v; want %+v", got, err, a)
		}
	}
	c := counters{seq: 1, front: 2, nextAuth: math.MaxUint32, seen: 4, dups: 5, rejects: math.MaxUint64}
	if got, err := decodeCounters(c.encode()); err != nil || got != c {
		t.Errorf("counters round trip = %+v, %v; want %+v", got, err, c)
	}
}

// TestPushedKeyOrder checks that the bytes of queue keys sort as
// frontier.Order.Less does, for both orders and values of every sign.
func TestPushedKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := []int{math.MinInt64, -1000, -1, 0, 1, 2, 1000, math.MaxInt64}
	pick := func() int { return vals[rng.IntN(len(vals))] }
	for _, o := range []frontier.Order{frontier.BreadthFirst, frontier.DepthFirst} {
		for i := 0; i < 20000; i++ {
			a := &frontier.Request{Priority: pick(), Depth: pick(), Seq: uint64(rng.IntN(4))}
			b := &frontier.Request{Priority: pick(), Depth: pick(), Seq: uint64(rng.IntN(4))}
			ka, kb := pushedKey(9, o, a), pushedKey(9, o, b)
			if got, want := bytes.Compare(ka, kb) < 0, o.Less(a, b); got != want {
				t.Fatalf("%v: key(%+v) < key(%+v) = %v; Less says %v", o, a, b, got, want)
			}
		}
		// Every front key comes before every pushed key, the newest first.
		top := pushedKey(9, o, &frontier.Request{Priority: math.MaxInt64, Depth: math.MinInt64})
		if o == frontier.DepthFirst {
			top = pushedKey(9, o, &frontier.Request{Priority: math.MaxInt64, Depth: math.MaxInt64, Seq: math.MaxUint64})
		}
		if f1, f2 := frontKey(9, 1), frontKey(9, 2); bytes.Compare(f2, f1) >= 0 || bytes.Compare(f1, top) >= 0 {
			t.Errorf("%v: front keys %x, %x do not come before %x newest first", o, f2, f1, top)
		}
	}
	// Authorities do not mix.
	if k := pushedKey(1, frontier.BreadthFirst, &frontier.Request{Priority: math.MinInt64}); bytes.Compare(k, frontKey(2, math.MaxUint64)) >= 0 {
		t.Error("authority 1's last key sorts after authority 2's first")
	}
}

func TestUpperBound(t *testing.T) {
	for _, tt := range []struct{ in, want []byte }{
		{[]byte{'q', 0, 0, 0, 1}, []byte{'q', 0, 0, 0, 2}},
		{[]byte{'q', 0, 0, 0, 0xff}, []byte{'q', 0, 0, 1}},
		{[]byte{0xff, 0xff}, nil},
	} {
		if got := upperBound(tt.in); !bytes.Equal(got, tt.want) {
			t.Errorf("upperBound(%x) = %x; want %x", tt.in, got, tt.want)
		}
	}
}

// FuzzDecode feeds arbitrary bytes, as a damaged store might hold, to every
// record decoder: an error or a value, never a panic; a decoded request
// encodes back to the same request.
func FuzzDecode(f *testing.F) {
	for _, r := range codecRequests {
		f.Add(encodeRequest(nil, r))
		f.Add(leaseValue(3, r))
	}
	f.Add(authRecord{name: "http://a.example", queued: 3, hold: time.Unix(5, 0)}.encode())
	f.Add(counters{seq: 9, seen: 3}.encode())
	f.Add(versionValue())
	f.Add([]byte{requestVersion, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := decodeRequest(b); err == nil {
			// The input may use longer varints than encodeRequest writes,
			// so compare values, not bytes.
			r2, err := decodeRequest(encodeRequest(nil, r))
			if err != nil || !reflect.DeepEqual(r, r2) {
				t.Fatalf("re-encoding %+v does not decode to it: %+v, %v", r, r2, err)
			}
		}
		decodeLease(b)
		decodeAuthRecord(b)
		decodeCounters(b)
		parseVersion(b)
	})
}
