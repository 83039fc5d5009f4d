package redisfrontier_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/redisstore"
)

// TestComplete ends a page's lease and queues its links in one round
// trip: the links are queued (duplicates and invalid URLs answered as
// PushBatch answers them), the lease is ended (a second Done fails), and
// the crawl is exhausted only once the links are done too. A page with
// no links still ends its lease in one call, and one with more links
// than one script call takes ends it with its last batch.
func TestComplete(t *testing.T) {
	ctx := context.Background()
	_, rdb := startRedis(t)
	f := newFrontier(t, newStore(t, rdb, newPrefix(t)), redisfrontier.WithCheck(offsite),
		redisfrontier.WithFrontierOptions(frontier.WithLeasesPerAuthority(10)))
	for _, u := range []string{"http://a.example/", "http://a.example/warm", "http://b.example/"} {
		if res, err := f.Push(ctx, &frontier.Request{URL: u}); res != frontier.Added {
			t.Fatalf("Push %s = %v, %v", u, res, err)
		}
	}
	// Load the complete script before counting round trips.
	warm, err := f.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.Complete(ctx, warm, nil); err != nil {
		t.Fatalf("Complete without links: %v", err)
	}

	page, err := f.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	links := []*frontier.Request{
		{URL: "http://a.example/1"}, {URL: "http://a.example/1#x"}, {URL: page.URL},
		{URL: "mailto:x@a.example"}, {URL: "http://a.example/2", Depth: 1},
	}
	var cc callCounter
	rdb.AddHook(&cc)
	res, errs, err := f.Complete(ctx, page, links)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if n := cc.n.Load(); n != 1 {
		t.Errorf("%d round trips for a page and its links, want 1", n)
	}
	want := []frontier.PushResult{frontier.Added, frontier.Duplicate, frontier.Duplicate, frontier.Rejected, frontier.Added}
	for i := range want {
		if res[i] != want[i] {
			t.Errorf("link %d: %v (%v), want %v", i, res[i], errs[i], want[i])
		}
	}
	if err := f.Done(ctx, page); !errors.Is(err, frontier.ErrNotLeased) {
		t.Errorf("Done after Complete = %v, want ErrNotLeased", err)
	}
	if st := f.Stats(); st.Leased != 0 || st.Queued != 3 {
		t.Errorf("Stats after Complete = %+v, want 0 leased, 3 queued", st)
	}

	// A page with more links than one script call takes: the lease ends
	// with the last batch, and every link is queued.
	big, err := f.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	many := make([]*frontier.Request, 300)
	for i := range many {
		many[i] = &frontier.Request{URL: "http://c.example/" + strconv.Itoa(i)}
	}
	res, _, err = f.Complete(ctx, big, many)
	if err != nil {
		t.Fatalf("Complete of 300 links: %v", err)
	}
	for i, r := range res {
		if r != frontier.Added {
			t.Fatalf("link %d: %v", i, r)
		}
	}
	if st := f.Stats(); st.Leased != 0 || st.Queued != 2+300 {
		t.Errorf("Stats after 300 links = %+v", st)
	}

	// Finish the crawl with Complete alone: it is exhausted once the last
	// lease ends, not before.
	for n := 0; ; n++ {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		r, err := f.Next(cctx)
		cancel()
		if errors.Is(err, frontier.ErrExhausted) {
			if n != 302 {
				t.Errorf("exhausted after %d requests, want 302", n)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.Complete(ctx, r, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCompleteNotLeased pushes the links of a request this Frontier does
// not hold and reports the lease's error, as PushBatch then Done would.
func TestCompleteNotLeased(t *testing.T) {
	ctx := context.Background()
	_, rdb := startRedis(t)
	f := newFrontier(t, newStore(t, rdb, newPrefix(t)))
	res, _, err := f.Complete(ctx, &frontier.Request{URL: "http://a.example/", Seq: 7}, []*frontier.Request{{URL: "http://a.example/x"}})
	if !errors.Is(err, frontier.ErrNotLeased) {
		t.Errorf("Complete of a request not leased: %v", err)
	}
	if res[0] != frontier.Added {
		t.Errorf("its link: %v, want Added", res[0])
	}
}

// TestCompleteCounting applies a page's counter updates in the call that
// queues its links and ends its lease: one round trip for all three; a
// request this Frontier does not hold is not counted, for its caller to
// count.
func TestCompleteCounting(t *testing.T) {
	ctx := context.Background()
	_, rdb := startRedis(t)
	s := newStore(t, rdb, newPrefix(t))
	f := newFrontier(t, s)
	counters := redisstore.NewCounters(s)
	for _, u := range []string{"http://a.example/", "http://a.example/warm"} {
		if res, err := f.Push(ctx, &frontier.Request{URL: u}); res != frontier.Added {
			t.Fatalf("Push %s = %v, %v", u, res, err)
		}
	}
	// Load the script before counting round trips.
	warm, err := f.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, counted, err := f.CompleteCounting(ctx, warm, nil, nil); err != nil || !counted {
		t.Fatalf("CompleteCounting without updates: %v, %v", counted, err)
	}
	page, err := f.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	inc := &redisstore.Increments{}
	counters.AddFetched(inc, "http://a.example", 404, 512)
	var cc callCounter
	rdb.AddHook(&cc)
	res, _, counted, err := f.CompleteCounting(ctx, page, []*frontier.Request{{URL: "http://a.example/next"}}, inc)
	if err != nil || !counted || res[0] != frontier.Added {
		t.Fatalf("CompleteCounting = %v, counted %v, %v", res, counted, err)
	}
	if n := cc.n.Load(); n != 1 {
		t.Errorf("%d round trips for a page, its links and its counts, want 1", n)
	}
	tot, err := counters.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a := tot.Authorities["http://a.example"]
	if tot.Pages != 1 || tot.Bytes != 512 || tot.Statuses[404] != 1 || a.Pages != 1 || a.Statuses[404] != 1 {
		t.Errorf("counts %+v (authority %+v); want one 404 page of 512 bytes", tot, a)
	}
	if st := f.Stats(); st.Leased != 0 || st.Queued != 1 {
		t.Errorf("Stats = %+v, want the page's lease ended and its link queued", st)
	}

	_, _, counted, err = f.CompleteCounting(ctx, &frontier.Request{URL: "http://a.example/x", Seq: 99}, nil, inc)
	if !errors.Is(err, frontier.ErrNotLeased) || counted {
		t.Errorf("CompleteCounting of a request not leased: counted %v, %v", counted, err)
	}
	if tot, err := counters.Read(ctx); err != nil || tot.Pages != 1 {
		t.Errorf("counts after a request not leased: %+v, %v; want still one page", tot, err)
	}
}
