package redisfrontier

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/heedcrawl/heed/redisstore/redistest"
)

// A Done or Retry whose reply was lost is run again by the store's
// retries; the repeat must succeed without a second effect, even after the
// retried request was leased by another process.
func TestRepeatedDoneAndRetry(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	s, err := redisstore.NewStore(srv.Client(t), "heedtest:repeat:")
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFrontier(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	other, err := NewFrontier(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, u := range []string{"http://a.example/1", "http://b.example/1"} {
		if res, err := f.Push(ctx, &frontier.Request{URL: u}); res != frontier.Added {
			t.Fatal(res, err)
		}
	}
	r1, _ := f.Next(ctx)
	r2, _ := f.Next(ctx)
	tok1, tok2 := f.leases[r1.Seq].token, f.leases[r2.Seq].token

	// Done twice.
	for i := 0; i < 2; i++ {
		res, err := f.run(ctx, "done", doneScript, 1, seqID(r1.Seq), tok1, f.endedTTL())
		if r, _ := res.([]any); err != nil || intAt(r, 0) != 1 {
			t.Fatalf("Done attempt %d = %v, %v; want success", i+1, res, err)
		}
	}
	// Retry, the request leased by another process, then Retry again.
	body, _ := requestJSON(r2)
	retry := func() int64 {
		res, err := f.run(ctx, "retry", retryScript, 1, seqID(r2.Seq), tok2, f.endedTTL(),
			sortKey(r2, frontier.BreadthFirst), body, 0)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := res.([]any)
		return intAt(r, 0)
	}
	if got := retry(); got != 1 {
		t.Fatalf("Retry = %d", got)
	}
	again, err := other.Next(ctx)
	if err != nil || again.Seq != r2.Seq {
		t.Fatalf("other's Next = %v, %v; want the retried request", again, err)
	}
	if got := retry(); got != 1 {
		t.Fatalf("repeated Retry = %d; want success", got)
	}
	c, _ := f.Counts(ctx)
	if c.Queued != 0 || c.Leased != 1 {
		t.Errorf("Counts = %+v; want only other's lease, nothing queued twice", c)
	}
	if err := other.Done(ctx, again); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := f.Next(ctx2); !errors.Is(err, frontier.ErrExhausted) {
		t.Errorf("Next: %v; want ErrExhausted", err)
	}
}

// A request retried by one worker and leased again by another worker of the
// same process before the first one's bookkeeping ends keeps its new
// lease.
func TestRetryThenReleaseInOneProcess(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	s, err := redisstore.NewStore(srv.Client(t), "heedtest:relet:")
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFrontier(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if res, err := f.Push(ctx, &frontier.Request{URL: "http://a.example/1"}); res != frontier.Added {
		t.Fatal(res, err)
	}
	r, _ := f.Next(ctx)
	old := f.leases[r.Seq]
	// The Retry's script runs...
	body, _ := requestJSON(r)
	if _, err := f.run(ctx, "retry", retryScript, 1, seqID(r.Seq), old.token, f.endedTTL(),
		sortKey(r, frontier.BreadthFirst), body, 0); err != nil {
		t.Fatal(err)
	}
	// ...another worker leases the request again...
	again, err := f.Next(ctx)
	if err != nil || again.Seq != r.Seq {
		t.Fatalf("Next = %v, %v", again, err)
	}
	// ...and only then does the first worker's Retry forget its lease.
	if err := f.ended(r, old, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.Done(ctx, again); err != nil {
		t.Errorf("Done of the new lease: %v", err)
	}
}

// A Complete whose reply was lost is run again by the store's retries:
// the repeat ends nothing more and applies the page's counts once.
func TestRepeatedCompleteCountsOnce(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	s, err := redisstore.NewStore(srv.Client(t), "heedtest:recount:")
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFrontier(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if res, err := f.Push(ctx, &frontier.Request{URL: "http://a.example/1"}); res != frontier.Added {
		t.Fatal(res, err)
	}
	r, _ := f.Next(ctx)
	counters := redisstore.NewCounters(s)
	inc := &redisstore.Increments{}
	counters.AddFetched(inc, "http://a.example", 200, 1234)
	end := &leaseEnd{id: seqID(r.Seq), token: f.leases[r.Seq].token, ttl: f.endedTTL(), inc: inc}
	for i := 0; i < 2; i++ {
		reply, err := f.pushChunk(ctx, nil, nil, nil, end)
		if err != nil || intAt(reply, 0) != 1 {
			t.Fatalf("Complete attempt %d = %v, %v; want success", i+1, reply, err)
		}
	}
	tot, err := counters.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tot.Pages != 1 || tot.Bytes != 1234 || tot.Statuses[200] != 1 || tot.Authorities["http://a.example"].Pages != 1 {
		t.Errorf("counts after a repeated Complete: %+v; want the page once", tot)
	}
}
