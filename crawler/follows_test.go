package crawler

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/stats"
)

// pushCounter is a frontier that counts what it is given.
type pushCounter struct {
	frontier.Frontier
	pushed, done int
}

func (p *pushCounter) Push(_ context.Context, _ *frontier.Request) (frontier.PushResult, error) {
	p.pushed++
	return frontier.Added, nil
}

func (p *pushCounter) Done(context.Context, *frontier.Request) error {
	p.done++
	return nil
}

func followsRun(front frontier.Frontier, maxLinks int) *run {
	return &run{
		cfg:   &config{maxLinks: maxLinks, logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		stats: stats.New(time.Now),
		front: front,
	}
}

func pageLinkRequests(n int) []*frontier.Request {
	reqs := make([]*frontier.Request, n)
	for i := range reqs {
		reqs[i] = &frontier.Request{URL: fmt.Sprintf("http://h.test/p/%d", i)}
	}
	return reqs
}

// TestFollowsBufferReused: a page's buffered links are all pushed (those
// over the limit counted, not pushed), the next page starts with an empty
// buffer, and buffering a page's links costs no allocation once buffers
// are in use.
func TestFollowsBufferReused(t *testing.T) {
	front := &pushCounter{}
	r := followsRun(front, 8)
	ctx := context.Background()
	parent := &frontier.Request{URL: "http://h.test/"}
	for page, n := range []int{10, 3} {
		r.collectFollows(parent)
		for _, req := range pageLinkRequests(n) {
			r.follow(ctx, parent, req)
		}
		before := front.pushed
		r.flushFollows(ctx, parent)
		if got, want := front.pushed-before, min(n, 8); got != want {
			t.Errorf("page %d: %d links pushed, want %d", page, got, want)
		}
	}
	if front.done != 2 {
		t.Errorf("%d leases ended, want 2", front.done)
	}
	reqs := pageLinkRequests(8)
	allocs := testing.AllocsPerRun(20, func() {
		r.collectFollows(parent)
		for _, req := range reqs {
			r.follow(ctx, parent, req)
		}
		r.flushFollows(ctx, parent)
	})
	if allocs > 0 {
		t.Errorf("buffering and pushing a page's links: %.0f allocations", allocs)
	}
}

// BenchmarkPageFollows buffers a page's 10 links and pushes them, as
// every page of a FollowLinks crawl does (the frontier here only counts).
func BenchmarkPageFollows(b *testing.B) {
	r := followsRun(&pushCounter{}, DefaultMaxLinksPerPage)
	ctx := context.Background()
	parent := &frontier.Request{URL: "http://h.test/"}
	reqs := pageLinkRequests(10)
	b.ReportAllocs()
	for range b.N {
		r.collectFollows(parent)
		for _, req := range reqs {
			r.follow(ctx, parent, req)
		}
		r.flushFollows(ctx, parent)
	}
}
