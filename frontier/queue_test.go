package frontier

import (
	"context"
	"math"
	"reflect"
	"strconv"
	"testing"
	"unsafe"
)

// TestCompactQueueKeepsEveryField pushes requests that take each road
// through the compact queue (plain, with a referrer, kept whole for each
// field the entry does not hold, priorities and depths beyond 32 bits) and
// checks that Next gives each back with every field as pushed.
func TestCompactQueueKeepsEveryField(t *testing.T) {
	ctx := context.Background()
	base := "https://a.example/"
	reqs := []*Request{
		{URL: base + "plain"},
		{URL: base + "ref", Referrer: "https://b.example/page", Depth: 2},
		{URL: base + "ref2", Referrer: "https://b.example/page", Depth: 2},
		{URL: base + "method", Method: "HEAD"},
		{URL: base + "sitemap.xml", Kind: KindSitemap},
		{URL: base + "cb", Callback: "parseItem", Referrer: "https://b.example/x"},
		{URL: base + "meta", Meta: map[string]string{"k": "v"}},
		{URL: base + "redirected", Redirects: []string{"https://a.example/old"}},
		{URL: base + "attempt", Attempt: 2},
		{URL: base + "big-priority", Priority: math.MaxInt16 + 5},
		{URL: base + "sat-priority", Priority: math.MaxInt16},
		{URL: base + "low-priority", Priority: math.MinInt16 - 1},
		{URL: base + "deep", Depth: math.MaxInt16 + 1},
		{URL: base + "deep-sat", Depth: math.MaxInt16},
		{URL: base + "negative", Priority: -3, Depth: 1},
	}
	for _, order := range []Order{BreadthFirst, DepthFirst} {
		t.Run(order.String(), func(t *testing.T) {
			m := NewMemory(WithOrder(order), WithLeasesPerAuthority(len(reqs)))
			defer m.Close()
			want := map[string]Request{}
			for _, r := range reqs {
				c := *r
				if res, err := m.Push(ctx, &c); res != Added || err != nil {
					t.Fatalf("Push(%s) = %v, %v", r.URL, res, err)
				}
				want[c.URL] = c
			}
			var got []*Request
			for range reqs {
				r, err := m.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, r)
				if w := want[r.URL]; !reflect.DeepEqual(*r, w) {
					t.Errorf("Next = %+v\nwant  %+v", *r, w)
				}
			}
			for i := 1; i < len(got); i++ {
				if order.Less(got[i], got[i-1]) {
					t.Errorf("%s (p%d d%d) handed out after %s (p%d d%d)", got[i].URL, got[i].Priority, got[i].Depth,
						got[i-1].URL, got[i-1].Priority, got[i-1].Depth)
				}
			}
			for _, r := range got {
				if err := m.Done(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			if len(m.store.extras) != 0 || len(m.store.refs.ids) != 0 {
				t.Errorf("after every Done: %d extras, %d referrers kept", len(m.store.extras), len(m.store.refs.ids))
			}
		})
	}
}

// TestCompactQueueArena interleaves pushes and takes on one authority so
// that its text arena is compacted many times, and checks that every URL
// comes back once, in order, and that the arena stays within twice the
// text of what is queued.
func TestCompactQueueArena(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	defer m.Close()
	next, pushed := 0, 0
	push := func(n int) {
		for range n {
			u := "https://a.example/p/" + strconv.Itoa(pushed) + "?q=" + strconv.Itoa(pushed*7)
			if res, err := m.Push(ctx, &Request{URL: u, Referrer: "https://a.example/p/" + strconv.Itoa(pushed/10)}); res != Added || err != nil {
				t.Fatalf("Push(%s) = %v, %v", u, res, err)
			}
			pushed++
		}
	}
	take := func(n int) {
		for range n {
			r, err := m.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := "https://a.example/p/" + strconv.Itoa(next) + "?q=" + strconv.Itoa(next*7)
			if r.URL != want || r.Referrer != "https://a.example/p/"+strconv.Itoa(next/10) {
				t.Fatalf("Next = %s (from %s), want %s", r.URL, r.Referrer, want)
			}
			next++
			if err := m.Done(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	push(5000)
	for range 40 {
		push(300)
		take(400)
		a := m.auths["https://a.example"]
		if a == nil {
			t.Fatal("the authority was forgotten while it had requests queued")
		}
		live := 0
		for _, e := range a.queue {
			live += int(e.n)
		}
		if unsafe.Sizeof(entry{}) != 24 {
			t.Errorf("an entry is %d bytes", unsafe.Sizeof(entry{}))
		}
		if len(a.text)-a.dead != live || len(a.text) > 2*live+4096 {
			t.Fatalf("arena of %d bytes, %d dead, for %d bytes queued", len(a.text), a.dead, live)
		}
	}
	take(pushed - next)
	if _, err := m.Next(ctx); err != ErrExhausted {
		t.Fatalf("Next after all: %v", err)
	}
}
