package jobstate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/jobstate"
	"github.com/heedcrawl/heed/skiplog"
)

// stateRun runs one crawl of site on the state in dir, cancelled once it
// has fetched stopAfter pages in this run (0: never), and returns its
// summary.
func stateRun(t *testing.T, site *testweb.Site, dir string, stopAfter int64, extra ...crawler.Option) crawler.Summary {
	t.Helper()
	opts := append(append(siteOptions(site), crawler.WithBackend(jobstate.Dir(dir))), extra...)
	c, err := crawler.New("HeedBot", opts...)
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if stopAfter > 0 {
		var base int64 = -1
		go func() {
			for ctx.Err() == nil {
				s := c.Stats().Snapshot()
				if s.Runs > 0 && base < 0 {
					base = s.Pages
				}
				if base >= 0 && s.Pages-base >= stopAfter {
					cancel()
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	sum, err := c.Run(ctx, site.Seeds()...)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestStatePauseAndResumeMatchesTheOracle crawls the scenario site with a
// state, pauses it twice, resumes it to the end, and compares the whole
// job with the oracle: what a single uninterrupted crawl does.
func TestStatePauseAndResumeMatchesTheOracle(t *testing.T) {
	site := startScenario(t)
	dir := t.TempDir()

	var sums []crawler.Summary
	for _, stop := range []int64{6, 12} {
		sum := stateRun(t, site, dir, stop)
		if !sum.Interrupted || jobstate.InfoOf(sum.Backend) == nil || jobstate.InfoOf(sum.Backend).Job.Complete || jobstate.InfoOf(sum.Backend).Job.Running {
			t.Fatalf("paused run: interrupted %v, state %+v", sum.Interrupted, jobstate.InfoOf(sum.Backend))
		}
		sums = append(sums, sum)
		t.Logf("run %d paused after %d pages in all, %d queued", jobstate.InfoOf(sum.Backend).Job.Runs, sum.Stats.Pages, sum.Stats.Waiting)
	}
	for _, r := range readSkipLog(t, filepath.Join(dir, "skipped.jsonl")) {
		if r.Reason == skiplog.Interrupted {
			t.Errorf("a paused crawl skip-logged %s as interrupted", r.URL)
		}
	}
	final := stateRun(t, site, dir, 0)
	if final.Interrupted || !jobstate.InfoOf(final.Backend).Job.Complete || jobstate.InfoOf(final.Backend).Job.Runs != 3 || jobstate.InfoOf(final.Backend).WasComplete {
		t.Fatalf("final run: interrupted %v, state %+v", final.Interrupted, jobstate.InfoOf(final.Backend))
	}

	exp := site.Expected("HeedBot")
	// A pause lets requests in flight finish: nothing is fetched twice.
	rc := countRequests(site)
	checkRequestsMatchOracle(t, rc, exp)
	got := skipsByURL(t, readSkipLog(t, filepath.Join(dir, "skipped.jsonl")))
	checkSkipsMatchOracle(t, got, exp.Skipped)
	// robots.txt is fetched once per authority for the whole job: the
	// resumed runs use the stored files. (The flaky host's is fetched
	// until it recovers, the slow host's until heed gives up.)
	for _, name := range []string{testweb.HostMain, testweb.HostDelay, testweb.HostNoRobots} {
		if a := site.Host(name).Authority; rc.Robots[a] != 1 {
			t.Errorf("%s: robots.txt fetched %d times over three runs, want 1", name, rc.Robots[a])
		}
	}
	// The statistics add up over the runs.
	if final.Stats.Runs != 3 || final.Stats.Pages < sums[1].Stats.Pages || final.Stats.Elapsed < sums[1].Stats.Elapsed {
		t.Errorf("stats over three runs: runs %d, pages %d (after two: %d), elapsed %v (after two: %v)",
			final.Stats.Runs, final.Stats.Pages, sums[1].Stats.Pages, final.Stats.Elapsed, sums[1].Stats.Elapsed)
	}
	if int(final.Stats.SkippedTotal()) != len(got) || final.Skipped.Total != len(got) {
		t.Errorf("skipped: stats %d, summary %d, log %d", final.Stats.SkippedTotal(), final.Skipped.Total, len(got))
	}

	// A complete job run again does nothing.
	before := len(site.Hits())
	again := stateRun(t, site, dir, 0)
	if !jobstate.InfoOf(again.Backend).WasComplete || !jobstate.InfoOf(again.Backend).Job.Complete || again.Interrupted {
		t.Errorf("run on a complete state: %+v", jobstate.InfoOf(again.Backend))
	}
	if n := len(site.Hits()); n != before {
		t.Errorf("a complete job fetched %d more URLs", n-before)
	}
	if again.Skipped.Total != len(got) {
		t.Errorf("a complete job wrote %d more skip records", again.Skipped.Total-len(got))
	}
}

// TestStateBudgetAcrossRuns checks that the page budget is spent once over
// the runs of a job: pausing does not refill it.
func TestStateBudgetAcrossRuns(t *testing.T) {
	site := startGenerated(t, testweb.Generated{Hosts: 2, PagesPerHost: 40, PageBytes: 512, LinksPerPage: 3, Seed: 3})
	dir := t.TempDir()
	const budget = 15
	first := stateRun(t, site, dir, 5, crawler.WithMaxPages(budget))
	if !first.Interrupted {
		t.Fatal("the first run was not paused")
	}
	stateRun(t, site, dir, 0, crawler.WithMaxPages(budget))
	pages := site.PageRequests()
	total := 0
	for _, n := range pages {
		total += n
	}
	if total != budget {
		t.Errorf("%d pages fetched over two runs, budget %d", total, budget)
	}
	maxPages := 0
	for _, r := range readSkipLog(t, filepath.Join(dir, "skipped.jsonl")) {
		if r.Reason == skiplog.MaxPages {
			maxPages++
		}
	}
	if maxPages == 0 {
		t.Error("no URL was skip-logged as max-pages")
	}
}

func TestStateOptionsConflict(t *testing.T) {
	dir := t.TempDir()
	for name, opt := range map[string]crawler.Option{
		"skip log":    crawler.WithSkipLog(&bytes.Buffer{}),
		"frontier":    crawler.WithFrontier(frontier.NewMemory()),
		"state store": crawler.WithBackend(jobstate.New((*jobstate.DirState)(nil))),
	} {
		if _, err := crawler.New("HeedBot", crawler.WithBackend(jobstate.Dir(dir)), opt); err == nil {
			t.Errorf("WithState and %s accepted together", name)
		}
	}
}

func TestStateIsLocked(t *testing.T) {
	dir := t.TempDir()
	s, err := jobstate.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = jobstate.Open(dir)
	var busy *jobstate.BusyError
	if !errors.As(err, &busy) || busy.PID != os.Getpid() {
		t.Fatalf("second open: %v, want a BusyError naming this process", err)
	}
	if _, err := jobstate.Read(dir); !errors.As(err, &busy) {
		t.Errorf("Read of a state in use: %v, want a BusyError", err)
	}
}

// TestStateSkipLogRepairAndDedupe writes records, cuts the last one as a
// kill -9 mid-write would, and reopens: the cut line is gone, the others
// are known, and no URL gets a second record.
func TestStateSkipLogRepairAndDedupe(t *testing.T) {
	dir := t.TempDir()
	open := func() *jobstate.DirState {
		s, err := jobstate.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	for i, u := range []string{"http://a.test/1", "http://a.test/2", "http://a.test/1"} {
		written, err := s.Skips().Write(&skiplog.Record{URL: u, Reason: skiplog.RobotsDisallow, Time: time.Unix(1, 0)})
		if err != nil || written != (i < 2) {
			t.Fatalf("write %d %s: written %v, err %v", i, u, written, err)
		}
	}
	s.Close()
	path := filepath.Join(dir, "skipped.jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(skiplog.Record{URL: "http://a.test/3", Reason: skiplog.FetchError})
	f.Write(b[:len(b)/2]) // killed mid-write
	f.Close()

	s = open()
	defer s.Close()
	if r, ok := s.Skips().Recorded("http://a.test/2"); !ok || r != skiplog.RobotsDisallow {
		t.Errorf("Recorded(2) = %q %v", r, ok)
	}
	if _, ok := s.Skips().Recorded("http://a.test/3"); ok {
		t.Error("the cut record counts as written")
	}
	if written, _ := s.Skips().Write(&skiplog.Record{URL: "http://a.test/1", Reason: skiplog.FetchError}); written {
		t.Error("a URL recorded by an earlier run got a second record")
	}
	if written, err := s.Skips().Write(&skiplog.Record{URL: "http://a.test/3", Reason: skiplog.FetchError}); !written || err != nil {
		t.Errorf("the cut record's URL could not be written again: %v %v", written, err)
	}
	if sum := s.Skips().Summary(); sum.Total != 3 || sum.ByReason[skiplog.RobotsDisallow] != 2 {
		t.Errorf("summary %+v", sum)
	}
	if recs := readSkipLog(t, path); len(recs) != 3 {
		t.Errorf("%d records in the file, want 3", len(recs))
	}
}

// A crawl with a state pauses when its context is cancelled and resumes
// when it is run again on the same directory; a finished one does nothing
// more. (bookshop is the site of the package example.)
func ExampleDir() {
	site := bookshop()
	defer site.Close()
	dir, err := os.MkdirTemp("", "heed-state-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	crawl := func(ctx context.Context) crawler.Summary {
		c, err := crawler.New("ExampleBot", crawler.WithDelay(10*time.Millisecond), crawler.WithBackend(jobstate.Dir(dir)))
		if err != nil {
			log.Fatal(err)
		}
		c.FollowLinks()
		sum, err := c.Run(ctx, site.URL+"/")
		if err != nil {
			log.Fatal(err)
		}
		return sum
	}
	paused, cancel := context.WithCancel(context.Background())
	cancel() // stopped before it starts: the seed stays queued
	for _, ctx := range []context.Context{paused, context.Background(), context.Background()} {
		sum := crawl(ctx)
		fmt.Printf("run %d: complete %v, pages %d, skipped %d\n",
			jobstate.InfoOf(sum.Backend).Job.Runs, jobstate.InfoOf(sum.Backend).Job.Complete, sum.Stats.Pages, sum.Skipped.Total)
	}
	// Output:
	// run 1: complete false, pages 0, skipped 0
	// run 2: complete true, pages 3, skipped 1
	// run 3: complete true, pages 3, skipped 1
}
