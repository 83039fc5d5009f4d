package durable_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/durable"
)

func open(t *testing.T, path string, opts ...frontier.Option) *durable.Frontier {
	t.Helper()
	f, err := durable.Open(path, opts...)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func mustPush(t *testing.T, f frontier.Frontier, reqs ...*frontier.Request) {
	t.Helper()
	for _, r := range reqs {
		if res, err := f.Push(context.Background(), r); res != frontier.Added || err != nil {
			t.Fatalf("Push(%s) = %v, %v; want added", r.URL, res, err)
		}
	}
}

func mustNext(t *testing.T, f frontier.Frontier) *frontier.Request {
	t.Helper()
	r, err := nextWithin(f, 10*time.Second)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return r
}

func drainURLs(t *testing.T, f frontier.Frontier) []string {
	t.Helper()
	var got []string
	if err := f.Drain(context.Background(), func(r *frontier.Request) { got = append(got, r.URL) }); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	return got
}

// TestReopenKeepsEverything closes a frontier in the middle of a crawl and
// reopens it: queues in their order, the leased request back at the head
// of its queue, the hold from Retry, the seen set, Seq, the counts and the
// meta data are as they were.
func TestReopenKeepsEverything(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state")
	f := open(t, path)
	mustPush(t, f,
		&frontier.Request{URL: "http://a.example/d1", Depth: 1},
		&frontier.Request{URL: "http://a.example/d0", Meta: map[string]string{"k": "v"}, Callback: "parse", Referrer: "http://seed.example/"},
		&frontier.Request{URL: "http://a.example/p5", Priority: 5, Depth: 2, Kind: frontier.KindSitemap, Redirects: []string{"http://old.example/"}},
		&frontier.Request{URL: "http://b.example/1"},
		&frontier.Request{URL: "http://b.example/2"},
		&frontier.Request{URL: "http://c.example/1"},
		&frontier.Request{URL: "http://c.example/2"},
	)
	f.Push(ctx, &frontier.Request{URL: "http://a.example/d0"}) // duplicate
	f.Push(ctx, &frontier.Request{URL: "ftp://a.example/"})    // rejected
	leased := mustNext(t, f)                                   // a.example/p5, priority first
	if leased.URL != "http://a.example/p5" {
		t.Fatalf("Next = %s; want the priority request", leased.URL)
	}
	b1 := mustNext(t, f)
	if err := f.Done(ctx, b1); err != nil {
		t.Fatal(err)
	}
	c1 := mustNext(t, f)
	hold := time.Now().Add(time.Hour)
	c1.Attempt = 1
	if err := f.Retry(ctx, c1, hold); err != nil {
		t.Fatal(err)
	}
	if err := f.PutMeta("robots/http://a.example", []byte("user-agent: *")); err != nil {
		t.Fatal(err)
	}
	before := f.Stats()
	if err := f.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	g := open(t, path)
	after := g.Stats()
	want := before
	want.Leased, want.Queued = 0, before.Queued+1 // the lease is queued again
	want.ByAuthority = map[string]int{"http://a.example": 3, "http://b.example": 1, "http://c.example": 2}
	if !reflect.DeepEqual(after, want) {
		t.Errorf("Stats after reopen = %+v; want %+v", after, want)
	}
	if v, err := g.GetMeta("robots/http://a.example"); err != nil || string(v) != "user-agent: *" {
		t.Errorf("GetMeta = %q, %v", v, err)
	}
	// The leased request is handed out again first, as it was.
	r := mustNext(t, g)
	if !reflect.DeepEqual(r, leased) {
		t.Errorf("first Next after reopen = %+v; want the leased %+v", r, leased)
	}
	// c.example is held for an hour: b.example, then a.example.
	r2 := mustNext(t, g)
	if r2.URL != "http://b.example/2" {
		t.Errorf("second Next = %s; want b.example/2 (c.example is on hold)", r2.URL)
	}
	for _, u := range []string{"http://a.example/d1", "http://b.example/1", "http://c.example/1", "http://a.example/p5"} {
		kind := frontier.KindPage
		if u == "http://a.example/p5" {
			kind = frontier.KindSitemap // it was pushed as a sitemap
		}
		if res, err := g.Push(ctx, &frontier.Request{URL: u, Kind: kind}); res != frontier.Duplicate || err != nil {
			t.Errorf("Push(%s) after reopen = %v, %v; want duplicate", u, res, err)
		}
	}
	fresh := &frontier.Request{URL: "http://d.example/"}
	mustPush(t, g, fresh)
	if fresh.Seq <= c1.Seq || fresh.Seq <= leased.Seq {
		t.Errorf("Seq after reopen = %d; want more than every earlier one", fresh.Seq)
	}
	got := drainURLs(t, g)
	wantDrain := []string{"http://a.example/d0", "http://a.example/d1", "http://c.example/1", "http://c.example/2", "http://d.example/"}
	if !slices.Equal(got, wantDrain) {
		t.Errorf("Drain = %q; want %q", got, wantDrain)
	}
}

func TestRetryKeepsChangesAcrossReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state")
	f := open(t, path)
	mustPush(t, f, &frontier.Request{URL: "http://a.example/1"}, &frontier.Request{URL: "http://a.example/2"})
	r := mustNext(t, f)
	r.Attempt = 2
	r.Meta = map[string]string{"why": "503"}
	if err := f.Retry(ctx, r, time.Time{}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	g := open(t, path)
	again := mustNext(t, g)
	if again.URL != r.URL || again.Attempt != 2 || again.Meta["why"] != "503" || again.Seq != r.Seq {
		t.Errorf("after reopen, Next = %+v; want the retried request with its changes", again)
	}
}

func TestOrderIsFixedAtCreation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	f := open(t, path, frontier.WithOrder(frontier.DepthFirst))
	f.Close()
	_, err := durable.Open(path)
	var oe *durable.OrderError
	if !errors.As(err, &oe) || oe.Stored != frontier.DepthFirst {
		t.Fatalf("Open with the default order = %v; want an *OrderError", err)
	}
	g := open(t, path, frontier.WithOrder(frontier.DepthFirst))
	g.Close()
}

func TestOneProcessAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	open(t, path)
	if g, err := durable.Open(path); err == nil {
		g.Close()
		t.Fatal("second Open of a state in use succeeded")
	}
	if r, err := durable.OpenReader(path); err == nil {
		r.Close()
		t.Fatal("OpenReader of a state in use succeeded")
	}
}

func TestMeta(t *testing.T) {
	f := open(t, filepath.Join(t.TempDir(), "state"))
	if _, err := f.GetMeta("nothing"); !errors.Is(err, durable.ErrMetaNotFound) {
		t.Errorf("GetMeta of a missing key: %v; want ErrMetaNotFound", err)
	}
	var b durable.MetaBatch
	b.Put("robots/http://a.example", []byte("a"))
	b.Put("robots/http://b.example", []byte("b"))
	b.Put("pace/http://a.example", []byte("1s"))
	b.Put("robotsX", []byte("not under robots/"))
	b.Delete("robots/http://b.example")
	if err := f.WriteMeta(&b); err != nil {
		t.Fatal(err)
	}
	if err := f.PutMeta("robots/http://c.example", []byte("c")); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := f.ForEachMeta("robots/", func(k string, v []byte) error {
		got = append(got, k+"="+string(v))
		return nil
	})
	if want := []string{"robots/http://a.example=a", "robots/http://c.example=c"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ForEachMeta = %q, %v; want %q", got, err, want)
	}
	stop := errors.New("stop")
	n := 0
	if err := f.ForEachMeta("", func(string, []byte) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("ForEachMeta with fn failing = %v after %d calls; want fn's error after 1", err, n)
	}
	if err := f.DeleteMeta("pace/http://a.example"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.GetMeta("pace/http://a.example"); !errors.Is(err, durable.ErrMetaNotFound) {
		t.Errorf("GetMeta after DeleteMeta: %v", err)
	}
	f.Close()
	if err := f.PutMeta("x", nil); !errors.Is(err, frontier.ErrClosed) {
		t.Errorf("PutMeta after Close: %v; want ErrClosed", err)
	}
	if _, err := f.GetMeta("x"); !errors.Is(err, frontier.ErrClosed) {
		t.Errorf("GetMeta after Close: %v; want ErrClosed", err)
	}
}

func TestReader(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state")
	f := open(t, path)
	mustPush(t, f,
		&frontier.Request{URL: "http://a.example/1"},
		&frontier.Request{URL: "http://a.example/2"},
		&frontier.Request{URL: "http://a.example/3", Priority: 1},
		&frontier.Request{URL: "http://b.example/1"},
	)
	f.Push(ctx, &frontier.Request{URL: "http://b.example/1"})
	r := mustNext(t, f) // a.example/3 stays leased
	b := mustNext(t, f)
	hold := time.Unix(2_000_000_000, 0)
	if err := f.Retry(ctx, b, hold); err != nil {
		t.Fatal(err)
	}
	f.PutMeta("stats", []byte("42"))
	f.Close()

	rd, err := durable.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	st, err := rd.Status()
	if err != nil {
		t.Fatal(err)
	}
	if st.Queued != 3 || st.Leased != 1 || st.Seen != 4 || st.Duplicates != 1 || st.Seq != 4 ||
		!reflect.DeepEqual(st.ByAuthority, map[string]int{"http://a.example": 2, "http://b.example": 1}) ||
		!st.Holds["http://b.example"].Equal(hold) || st.DiskBytes == 0 {
		t.Errorf("Status = %+v", st)
	}
	var urls []string
	if err := rd.Queue("http://a.example", func(q *frontier.Request) bool { urls = append(urls, q.URL); return true }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://a.example/1", "http://a.example/2"}; !slices.Equal(urls, want) {
		t.Errorf("Queue = %q; want %q (leased %s not among them)", urls, want, r.URL)
	}
	if v, err := rd.GetMeta("stats"); err != nil || string(v) != "42" {
		t.Errorf("Reader.GetMeta = %q, %v", v, err)
	}
	rd.Close()
	if _, err := rd.Status(); !errors.Is(err, frontier.ErrClosed) {
		t.Errorf("Status after Close: %v; want ErrClosed", err)
	}
	rd.Close()
	if _, err := durable.OpenReader(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("OpenReader of a missing directory succeeded")
	}
}

// TestLongQueueAcrossReopens pushes more requests to one authority than
// the read-ahead holds, with priorities that land before, inside and after
// it, reopening now and then: Next hands them out in Order.Less order.
func TestLongQueueAcrossReopens(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state")
	f := open(t, path)
	var all []*frontier.Request
	for i := 0; i < 300; i++ {
		r := &frontier.Request{URL: "http://a.example/" + string(rune('a'+i%26)) + "/" + string(rune('0'+i/26)), Priority: (i * 7) % 5, Depth: (i * 3) % 4}
		mustPush(t, f, r)
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b *frontier.Request) int {
		if frontier.BreadthFirst.Less(a, b) {
			return -1
		}
		return 1
	})
	for i, want := range all {
		if i%97 == 50 {
			f.Close()
			f = open(t, path)
		}
		r := mustNext(t, f)
		if r.URL != want.URL {
			t.Fatalf("Next #%d = %s; want %s", i, r.URL, want.URL)
		}
		if err := f.Done(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := nextWithin(f, 10*time.Second); !errors.Is(err, frontier.ErrExhausted) {
		t.Errorf("Next at the end: %v; want ErrExhausted", err)
	}
}
