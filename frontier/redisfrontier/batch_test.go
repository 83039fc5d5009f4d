package redisfrontier_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
)

// callCounter counts the commands and pipelines a client sends.
type callCounter struct{ n atomic.Int64 }

func (c *callCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *callCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}
func (c *callCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// errOffsite stands for the scope check's refusal.
var errOffsite = errors.New("offsite")

func offsite(r *frontier.Request) error {
	if strings.Contains(r.URL, "other.example") {
		return errOffsite
	}
	return nil
}

// TestPushBatch pushes a page's links in one call, with duplicates within
// the batch and with what was queued before, an invalid URL and a URL the
// check refuses, from two processes, and checks each result, the counts,
// the order Next hands them out in, which URLs reached the admission
// function, and that a batch the check passes is one round trip.
func TestPushBatch(t *testing.T) {
	ctx := context.Background()
	_, rdb := startRedis(t)
	prefix := newPrefix(t)
	var admitted atomic.Int64
	admit := func(r *frontier.Request) error {
		admitted.Add(1)
		return offsite(r)
	}
	opts := []redisfrontier.Option{redisfrontier.WithCheck(offsite),
		redisfrontier.WithFrontierOptions(frontier.WithAdmit(admit), frontier.WithLeasesPerAuthority(10))}
	f1 := newFrontier(t, newStore(t, rdb, prefix), opts...)
	f2 := newFrontier(t, newStore(t, rdb, prefix), opts...)

	if res, err := f1.Push(ctx, &frontier.Request{URL: "http://a.example/seen"}); res != frontier.Added || err != nil {
		t.Fatalf("Push = %v, %v", res, err)
	}
	// The first call of each script loads it (EVALSHA, then EVAL): warm
	// both up before counting round trips.
	if res, _ := f1.PushBatch(ctx, []*frontier.Request{{URL: "http://other.example/warm"}}); res[0] != frontier.Rejected {
		t.Fatalf("warm-up: %v", res[0])
	}
	admitted.Store(0)
	page := func() []*frontier.Request {
		return []*frontier.Request{
			{URL: "http://a.example/1"}, {URL: "http://A.example/1#x"}, {URL: "http://a.example/seen"},
			{URL: "http://a.example/2", Depth: 1}, {URL: "mailto:x@a.example"}, {URL: "http://other.example/"},
			{URL: "http://a.example/3", Referrer: "http://a.example/"},
		}
	}
	var cc callCounter
	rdb.AddHook(&cc)
	res, errs := f1.PushBatch(ctx, page())
	want := []frontier.PushResult{frontier.Added, frontier.Duplicate, frontier.Duplicate, frontier.Added,
		frontier.Rejected, frontier.Rejected, frontier.Added}
	for i := range want {
		if res[i] != want[i] {
			t.Errorf("request %d: %v (%v), want %v", i, res[i], errs[i], want[i])
		}
	}
	if !errors.Is(errs[5], errOffsite) || errs[4] == nil {
		t.Errorf("errors: invalid %v, offsite %v", errs[4], errs[5])
	}
	if n := cc.n.Load(); n != 2 {
		// One claim for the refused URL, one push for them all.
		t.Errorf("%d round trips for the page", n)
	}
	if n := admitted.Load(); n != 1 {
		t.Errorf("the admission function was asked %d times; want once, for the refused URL", n)
	}

	// The same page from the other process: all duplicates, the refused
	// URL included, and the check alone decides, in one round trip.
	cc.n.Store(0)
	res, errs = f2.PushBatch(ctx, page()[:4])
	for i, r := range res {
		if r != frontier.Duplicate && !(i == 2 && r == frontier.Duplicate) {
			t.Errorf("second process, request %d: %v (%v)", i, r, errs[i])
		}
	}
	if n := cc.n.Load(); n != 1 {
		t.Errorf("%d round trips for a page the check passes", n)
	}
	res, _ = f2.PushBatch(ctx, []*frontier.Request{{URL: "http://other.example/"}})
	if res[0] != frontier.Duplicate || admitted.Load() != 1 {
		t.Errorf("refused URL pushed again: %v, admission asked %d times", res[0], admitted.Load())
	}

	st := f1.Stats()
	if st.Queued != 4 || st.Duplicates != 2+4+1 || st.Rejected != 3 || st.Seen != 6 {
		t.Errorf("Stats = %+v", st)
	}
	var got []string
	for range 4 {
		r, err := f2.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.URL)
		if r.URL == "http://a.example/3" && r.Referrer != "http://a.example/" {
			t.Errorf("referrer %q", r.Referrer)
		}
		if err := f2.Done(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, " ") != "http://a.example/seen http://a.example/1 http://a.example/3 http://a.example/2" {
		t.Errorf("Next order: %v", got)
	}
}
