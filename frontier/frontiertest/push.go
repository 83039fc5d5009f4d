package frontiertest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/frontier"
)

func testPushCanonicalises(t *testing.T, s *suite) {
	f := s.new(t)
	r1 := &frontier.Request{URL: "HTTP://User:pw@Example.COM:80/a/./b/../c?x=%7e+1#frag"}
	push(t, f, r1)
	if want := "http://example.com/a/c?x=~+1"; r1.URL != want {
		t.Errorf("after Push, URL = %q, want %q", r1.URL, want)
	}
	r2 := &frontier.Request{URL: "http://example.com/d"}
	push(t, f, r2)
	if r1.Seq == 0 || r2.Seq <= r1.Seq {
		t.Errorf("Seq = %d then %d; want increasing from 1", r1.Seq, r2.Seq)
	}
	got := next(t, f)
	if got.URL != r1.URL || got.Seq != r1.Seq {
		t.Errorf("Next = %q seq %d, want %q seq %d", got.URL, got.Seq, r1.URL, r1.Seq)
	}
}

func testPushDuplicate(t *testing.T, s *suite) {
	f := s.new(t)
	pushURLs(t, f, "http://example.com/x")
	for _, u := range []string{"http://example.com/x", "HTTP://EXAMPLE.com:80/x#y", "http://example.com/./x"} {
		r := &frontier.Request{URL: u}
		res, err := f.Push(context.Background(), r)
		if res != frontier.Duplicate || err != nil {
			t.Errorf("Push(%q) = %v, %v; want duplicate, nil", u, res, err)
		}
	}
	// The method is part of the fingerprint.
	push(t, f, &frontier.Request{URL: "http://example.com/x", Method: "POST"})
	st := f.Stats()
	if st.Duplicates != 3 || st.Seen != 2 || st.Queued != 2 || st.Rejected != 0 {
		t.Errorf("Stats = %+v; want 3 duplicates, 2 seen, 2 queued", st)
	}
	// A URL stays seen after it is handed out and done.
	nextDone(t, f, 2)
	if res, err := f.Push(context.Background(), &frontier.Request{URL: "http://example.com/x"}); res != frontier.Duplicate || err != nil {
		t.Errorf("Push of a done URL = %v, %v; want duplicate", res, err)
	}
}

// testPushKeepsFields: Next hands out what was pushed, every field a
// spider may set included: a header on a plain GET is not dropped.
func testPushKeepsFields(t *testing.T, s *suite) {
	f := s.new(t)
	push(t, f, &frontier.Request{URL: "http://example.com/h", Header: http.Header{"X-Token": {"t"}}})
	push(t, f, &frontier.Request{URL: "http://example.com/b", Body: []byte("q=1")})
	push(t, f, &frontier.Request{URL: "http://example.com/r", Referrer: "http://example.com/", Depth: 2, Priority: 3})
	got := map[string]*frontier.Request{}
	for range 3 {
		r := next(t, f)
		got[r.URL] = r
		if err := f.Done(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	if r := got["http://example.com/h"]; r == nil || r.Header.Get("X-Token") != "t" {
		t.Errorf("the header was lost: %+v", r)
	}
	if r := got["http://example.com/b"]; r == nil || string(r.Body) != "q=1" {
		t.Errorf("the body was lost: %+v", r)
	}
	if r := got["http://example.com/r"]; r == nil || r.Referrer != "http://example.com/" || r.Depth != 2 || r.Priority != 3 {
		t.Errorf("referrer, depth or priority lost: %+v", r)
	}
}

func testPushInvalid(t *testing.T, s *suite) {
	f := s.new(t)
	for _, tt := range []struct {
		url string
		is  error
	}{
		{"mailto:someone@example.com", frontier.ErrUnsupportedScheme},
		{"javascript:void(0)", frontier.ErrUnsupportedScheme},
		{"/relative/path", frontier.ErrNotAbsolute},
		{"http://example.com:99999/", nil},
	} {
		res, err := f.Push(context.Background(), &frontier.Request{URL: tt.url})
		var ue *frontier.URLError
		if res != frontier.Rejected || !errors.As(err, &ue) {
			t.Errorf("Push(%q) = %v, %v; want rejected with a *URLError", tt.url, res, err)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("Push(%q): %v does not wrap %v", tt.url, err, tt.is)
		}
	}
	if res, err := f.Push(context.Background(), nil); res != frontier.Rejected || err == nil {
		t.Errorf("Push(nil) = %v, %v; want rejected with an error", res, err)
	}
	st := f.Stats()
	if st.Rejected < 4 || st.Queued != 0 {
		t.Errorf("Stats = %+v; want 4 rejected (5 with nil), 0 queued", st)
	}
	if _, err := f.Next(context.Background()); !errors.Is(err, frontier.ErrExhausted) {
		t.Errorf("Next after only invalid pushes: %v; want ErrExhausted", err)
	}
}

func testPushAdmit(t *testing.T, s *suite) {
	errOut := errors.New("out of scope")
	var mu sync.Mutex
	var asked []string
	f := s.new(t, frontier.WithAdmit(func(r *frontier.Request) error {
		mu.Lock()
		asked = append(asked, r.URL)
		mu.Unlock()
		if strings.Contains(r.URL, "/private/") {
			return errOut
		}
		return nil
	}))
	res, err := f.Push(context.Background(), &frontier.Request{URL: "HTTP://Example.com/private/1"})
	if res != frontier.Rejected || err != errOut {
		t.Fatalf("Push of a refused URL = %v, %v; want rejected with the admission error itself", res, err)
	}
	res, err = f.Push(context.Background(), &frontier.Request{URL: "http://example.com:80/private/1#x"})
	if res != frontier.Duplicate || err != nil {
		t.Errorf("second Push of a refused URL = %v, %v; want duplicate", res, err)
	}
	pushURLs(t, f, "http://example.com/public")
	if res, _ := f.Push(context.Background(), &frontier.Request{URL: "http://example.com/public"}); res != frontier.Duplicate {
		t.Errorf("second Push of an admitted URL = %v; want duplicate", res)
	}
	mu.Lock()
	want := []string{"http://example.com/private/1", "http://example.com/public"}
	if !slices.Equal(asked, want) {
		t.Errorf("admission function asked about %q; want %q (canonical, once each, duplicates not asked)", asked, want)
	}
	mu.Unlock()
	st := f.Stats()
	if st.Rejected != 1 || st.Seen != 2 || st.Queued != 1 || st.Duplicates != 2 {
		t.Errorf("Stats = %+v; want 1 rejected, 2 seen, 1 queued, 2 duplicates", st)
	}
}

// checkOrder pushes requests for one authority and checks Next hands them out
// in the order of frontier.Order.Less, which the test also spells out.
func checkOrder(t *testing.T, s *suite, order frontier.Order, want []string) {
	t.Helper()
	f := s.new(t, frontier.WithOrder(order))
	// name: depth d, priority p, pushed in this order.
	reqs := []*frontier.Request{
		{URL: "http://a.example/d1-first", Depth: 1},
		{URL: "http://a.example/d0-first", Depth: 0},
		{URL: "http://a.example/d2", Depth: 2},
		{URL: "http://a.example/d1-second", Depth: 1},
		{URL: "http://a.example/d3-p5", Depth: 3, Priority: 5},
		{URL: "http://a.example/d0-second", Depth: 0},
		{URL: "http://a.example/d0-p-1", Depth: 0, Priority: -1},
	}
	push(t, f, reqs...)
	sorted := slices.Clone(reqs)
	slices.SortStableFunc(sorted, func(a, b *frontier.Request) int {
		if order.Less(a, b) {
			return -1
		}
		if order.Less(b, a) {
			return 1
		}
		return 0
	})
	var byLess []string
	for _, r := range sorted {
		byLess = append(byLess, strings.TrimPrefix(r.URL, "http://a.example/"))
	}
	if !slices.Equal(byLess, want) {
		t.Errorf("Order(%v).Less sorts %q, want %q", order, byLess, want)
	}
	var got []string
	for _, u := range nextDone(t, f, len(reqs)) {
		got = append(got, strings.TrimPrefix(u, "http://a.example/"))
	}
	if !slices.Equal(got, want) {
		t.Errorf("%v: Next order %q, want %q", order, got, want)
	}
}

func testOrderBreadthFirst(t *testing.T, s *suite) {
	checkOrder(t, s, frontier.BreadthFirst, []string{"d3-p5", "d0-first", "d0-second", "d1-first", "d1-second", "d2", "d0-p-1"})
}

func testOrderDepthFirst(t *testing.T, s *suite) {
	checkOrder(t, s, frontier.DepthFirst, []string{"d3-p5", "d2", "d1-second", "d1-first", "d0-second", "d0-first", "d0-p-1"})
}

func testOrderPriorityAcross(t *testing.T, s *suite) {
	f := s.new(t)
	push(t, f,
		&frontier.Request{URL: "http://low.example/1"},
		&frontier.Request{URL: "http://low.example/2"},
		&frontier.Request{URL: "http://high.example/1", Priority: 10},
	)
	if r := next(t, f); r.URL != "http://high.example/1" {
		t.Errorf("first Next = %s; want the high-priority authority's request", r.URL)
	}
}

func testOrderFair(t *testing.T, s *suite) {
	f := s.new(t)
	for i := 0; i < 4; i++ {
		for _, host := range []string{"a", "b", "c"} {
			pushURLs(t, f, "http://"+host+".example/"+string(rune('0'+i)))
		}
	}
	got := nextDone(t, f, 12)
	for i := 1; i < len(got); i++ {
		// Equal keys on three authorities: round-robin, never the same
		// authority twice in a row.
		if authorityOfURL(got[i]) == authorityOfURL(got[i-1]) {
			t.Fatalf("authority served twice in a row while others were ready: %q", got)
		}
	}
}

func authorityOfURL(u string) string {
	a, _ := frontier.Authority(u)
	return a
}
