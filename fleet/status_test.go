package fleet_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/fleet"
	"github.com/heedcrawl/heed/redisstore/redistest"
)

// heldSite serves / linking to /held, which answers only once release is
// closed; held is closed when /held is first asked for.
func heldSite(t *testing.T) (url string, held <-chan struct{}, release chan struct{}) {
	h, rel := make(chan struct{}), make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a href="/held">held</a>`)
	})
	mux.HandleFunc("/held", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(h) })
		select {
		case <-rel:
		case <-time.After(30 * time.Second):
		}
		fmt.Fprint(w, "done")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, h, rel
}

// A shared crawl read from outside, without joining it: running with one
// live process and a lease outstanding (and Clear refuses it), finished
// with its record once the crawl ends (and a process that would join it
// again is refused with when and what it did), empty once cleared, after
// which the same crawl starts over.
func TestStatusFinishedAndClear(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	id := newCrawlID()
	url, held, release := heldSite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if st, err := fleet.ReadStatus(ctx, rdb, id); err != nil || st.State != fleet.StateEmpty {
		t.Fatalf("a crawl never started: %+v, %v", st, err)
	}
	newCrawler := func() *crawler.Crawler {
		c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithSkipLog(io.Discard),
			crawler.WithBackend(mustFleet(t, rdb, id, fleet.WithHeartbeat(100*time.Millisecond))))
		if err != nil {
			t.Fatal(err)
		}
		c.FollowLinks()
		return c
	}
	type result struct {
		sum crawler.Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := newCrawler().Run(ctx, url+"/")
		done <- result{sum, err}
	}()
	select {
	case <-held:
	case <-ctx.Done():
		t.Fatal("the crawl never reached /held")
	}
	var st *fleet.Status
	for {
		var err error
		if st, err = fleet.ReadStatus(ctx, rdb, id); err != nil {
			t.Fatal(err)
		}
		if st.Live() == 1 || ctx.Err() != nil {
			break
		}
		time.Sleep(10 * time.Millisecond) // the first heartbeat is on its way
	}
	host, _ := os.Hostname()
	p := st.Processes[0]
	if st.State != fleet.StateRunning || len(st.Processes) != 1 || p.PID != os.Getpid() || p.Host != host || p.Beat.IsZero() ||
		st.Leased != 1 || st.Pages != 1 || st.Finished != nil {
		t.Fatalf("a running crawl: %+v", st)
	}
	var live *fleet.LiveError
	if n, err := fleet.Clear(ctx, rdb, id, false); !errors.As(err, &live) || n != 0 || len(live.Processes) != 1 {
		t.Fatalf("Clear of a running crawl: %d, %v", n, err)
	}

	close(release)
	r := <-done
	if r.err != nil || !fleet.SummaryOf(r.sum.Backend).Done {
		t.Fatalf("the crawl: %v, %+v", r.err, fleet.SummaryOf(r.sum.Backend))
	}
	st, err := fleet.ReadStatus(ctx, rdb, id)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != fleet.StateFinished || st.Finished == nil || st.Finished.Pages != 2 || st.Finished.At.IsZero() ||
		len(st.Processes) != 0 || st.Queued != 0 || st.Leased != 0 || st.Pages != 2 {
		t.Fatalf("a finished crawl: %+v (finished %+v)", st, st.Finished)
	}
	// heed status --redis --json writes the Status as it is: the keys of
	// the crawl-wide counters (stats.Shared's) and the status's own.
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	want := []string{"by_authority", "bytes", "complete", "crawl_id", "finished", "leased", "now", "pages", "processes",
		"queued", "reclaimed", "robots", "seen", "skipped", "state", "statuses"}
	if got := slices.Sorted(maps.Keys(keys)); !slices.Equal(got, want) || !st.Done || string(keys["complete"]) != "true" || st.CrawlID != id {
		t.Errorf("the JSON of a finished crawl's status: keys %v, want %v\n%s", got, want, b)
	}

	_, err = newCrawler().Run(ctx, url+"/")
	var fin *fleet.FinishedError
	if !errors.As(err, &fin) || fin.CrawlID != id || fin.Finished.Pages != 2 {
		t.Fatalf("a process joining a finished crawl: %v", err)
	}
	if f, err := mustFleet(t, rdb, id).Finished(ctx); err != nil || f == nil || !f.At.Equal(st.Finished.At) {
		t.Fatalf("Fleet.Finished: %+v, %v", f, err)
	}

	n, err := fleet.Clear(ctx, rdb, id, false)
	if err != nil || n == 0 {
		t.Fatalf("Clear of a finished crawl: %d keys, %v", n, err)
	}
	if keys, _ := rdb.Keys(ctx, fleet.Prefix(id)+"*").Result(); len(keys) != 0 {
		t.Fatalf("keys left after Clear: %v", keys)
	}
	if st, err := fleet.ReadStatus(ctx, rdb, id); err != nil || st.State != fleet.StateEmpty {
		t.Fatalf("a cleared crawl: %+v, %v", st, err)
	}
	sum, err := newCrawler().Run(ctx, url+"/")
	if err != nil || sum.Stats.Pages != 2 {
		t.Fatalf("the crawl started over: %d pages, %v", sum.Stats.Pages, err)
	}
}
