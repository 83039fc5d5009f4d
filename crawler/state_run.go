package crawler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
)

// checkpointEvery is how often a resumable crawl stores its statistics
// and pacing: what a crash may lose of them.
const checkpointEvery = time.Second

// runState is a run's side of its State: the job record, the pacing last
// stored, and the checkpoint loop.
type runState struct {
	State
	dir         string
	job         JobState
	wasComplete bool
	pagesBefore int64 // the pages of earlier runs

	mu       sync.Mutex // serialises checkpoints
	lastPace map[string]politeness.AuthorityState
	stop     chan struct{}
	done     chan struct{}
	err      error // the first failed durable write
}

// openState opens the crawl's state, if it has one.
func (c *Crawler) openState() (*runState, error) {
	switch {
	case c.cfg.state != nil:
		rs := &runState{State: c.cfg.state}
		if ds, ok := c.cfg.state.(*DirState); ok {
			rs.dir = ds.Dir()
		}
		return rs, nil
	case c.cfg.stateDir != "":
		ds, err := OpenDirState(c.cfg.stateDir)
		if err != nil {
			return nil, err
		}
		return &runState{State: ds, dir: ds.Dir()}, nil
	}
	return nil, nil
}

// fail remembers the first failed write of the state, for Run to return.
func (s *runState) fail(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// admitDurably is a resumable crawl's admission function: the scope
// check, with the record of a refused URL written (and fsync'd) before the
// frontier marks the URL seen. Written after, a crash in between would
// leave a URL that is seen, so never pushed again, and has no record.
func (r *run) admitDurably(req *frontier.Request) error {
	err := r.scope.Check(req)
	var rec *skiplog.Record
	if errors.As(err, &rec) {
		r.skip(rec)
	}
	return err
}

// accountedBefore reports whether a request handed out by the frontier
// was accounted for by an earlier run: it was in flight at a crash, and
// its skip record had been written. It is then done, not fetched.
func (r *run) accountedBefore(req *frontier.Request) bool {
	if r.state == nil {
		return false
	}
	reason, ok := r.state.Skips().Recorded(req.URL)
	return ok && leasedReasons[reason]
}

// writeSkip writes a skip record: to the state's skip log, which keeps
// one record per URL, or to the crawl's. It reports false for a record
// the state already had, which is not to be counted again.
func (r *run) writeSkip(rec *skiplog.Record) bool {
	if r.state == nil {
		if err := r.skips.Write(rec); err != nil {
			r.cfg.logger.Error("skip log", "error", err)
		}
		return true
	}
	if rec.Time.IsZero() {
		rec.Time = r.cfg.now()
	}
	written, err := r.state.Skips().Write(rec)
	if err != nil {
		// Counted all the same, and Run fails: an incomplete log is
		// never mistaken for a complete one.
		r.state.fail(fmt.Errorf("skip log: %w", err))
		r.cfg.logger.Error("skip log", "error", err)
		return true
	}
	return written
}

// resume loads what earlier runs stored, before the seeds are pushed:
// robots.txt entries, pacing, the budget and the statistics; then it
// stores the new run in the job record and starts the checkpoint loop.
func (r *run) resume(seeds []string) error {
	s := r.state
	job, err := s.Job()
	if err != nil {
		return err
	}
	now := r.cfg.now()
	s.wasComplete = job.Runs > 0 && job.Complete
	if job.Runs == 0 {
		job.Started = now
	}
	job.Runs++
	job.LastStart, job.Stopped, job.Running, job.Complete = now, time.Time{}, true, false
	job.Agent, job.Seeds = r.c.agent, append([]string(nil), seeds...)
	s.job = job

	pace, err := s.Pacing()
	if err != nil {
		return err
	}
	var restored []*middleware.RobotsEntry
	err = s.ForEachRobots(func(rec *middleware.RobotsRecord) error {
		e, err := r.robots.Restore(rec)
		if err != nil {
			// The file is fetched again when it is needed.
			r.cfg.logger.Warn("robots.txt record not restored", "authority", rec.Authority, "error", err)
			return nil
		}
		restored = append(restored, e)
		ps := pace[e.Authority]
		ps.CrawlDelay = e.CrawlDelay()
		pace[e.Authority] = ps
		return nil
	})
	if err != nil {
		return err
	}
	// The last second of pacing may not have been stored before a crash,
	// and an authority first contacted in it has no record at all: every
	// authority the crawl knows is treated as if a request had started
	// now, so the first request after a restart waits one interval.
	for a := range r.front.Stats().ByAuthority {
		if _, ok := pace[a]; !ok {
			pace[a] = politeness.AuthorityState{}
		}
	}
	// The pacer keeps the system clock, whatever clock WithClock gives
	// the crawl.
	paceNow := time.Now()
	for a, ps := range pace {
		if ps.LastStart.Before(paceNow) {
			ps.LastStart = paceNow
		}
		pace[a] = ps
	}
	if err := r.pacer.Restore(pace); err != nil {
		r.cfg.logger.Warn("pacing not restored for some authorities", "error", err)
	}
	admitted, err := s.Budget()
	if err != nil {
		return err
	}
	r.budget.Restore(admitted)
	saved, err := s.Stats()
	if err != nil {
		return err
	}
	r.stats.restore(saved, s.Skips().Summary(), job.Runs)
	if saved != nil {
		s.pagesBefore = saved.Pages
	}
	for _, e := range restored {
		r.stats.robotsRestored(e)
	}
	if err := r.checkpoint(); err != nil {
		return err
	}
	// Sitemaps a robots.txt listed are queued when it is fetched; a crash
	// between its record and those pushes would lose them. Pushing them
	// again costs a duplicate each.
	for _, e := range restored {
		r.maps.discover(e)
	}
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go r.checkpointLoop()
	return nil
}

func (r *run) checkpointLoop() {
	s := r.state
	defer close(s.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if err := r.checkpoint(); err != nil {
				r.cfg.logger.Error("state checkpoint", "error", err)
			}
		}
	}
}

// checkpoint stores the job record, the statistics and the pacing of the
// authorities whose pacing changed since the last checkpoint.
func (r *run) checkpoint() error {
	s := r.state
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := r.stats.Snapshot()
	now := r.pacer.Snapshot()
	changed := make(map[string]politeness.AuthorityState)
	for a, ps := range now {
		if old, ok := s.lastPace[a]; !ok || !samePacing(old, ps) {
			changed[a] = ps
		}
	}
	err := s.Checkpoint(&Checkpoint{Job: s.job, Stats: &snap, Pacing: changed})
	if err == nil {
		s.lastPace = now
	}
	return err
}

func samePacing(a, b politeness.AuthorityState) bool {
	return a.Interval == b.Interval && a.CrawlDelay == b.CrawlDelay && a.Excluded == b.Excluded &&
		a.PausedUntil.Equal(b.PausedUntil) && a.Backoff == b.Backoff && a.Failures == b.Failures &&
		a.InFlight == b.InFlight && a.LastStart.Equal(b.LastStart) && a.LastRelease.Equal(b.LastRelease)
}

// suspend ends a resumable run: the checkpoint loop stops, and the job
// record says whether the crawl is complete (its frontier exhausted) or
// paused, with a last checkpoint. The frontier is still open.
func (r *run) suspend() error {
	s := r.state
	if s.stop != nil {
		close(s.stop)
		<-s.done
	}
	fs := r.front.Stats()
	s.job.Running = false
	s.job.Complete = fs.Queued == 0 && fs.Leased == 0
	s.job.Stopped = r.cfg.now()
	err := r.checkpoint()
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.err, err)
}

// info is what the run's Summary says of its state, with the run's final
// statistics.
func (s *runState) info(snap Snapshot) *StateInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &StateInfo{Dir: s.dir, Job: s.job, WasComplete: s.wasComplete, Fetched: snap.Pages - s.pagesBefore}
}

// follows buffers the links a page's callbacks follow, so that they are
// pushed at once when the callbacks are done: with a durable frontier one
// write and one fsync for the page instead of one per link, and all of
// them on disk before the page is done.
type follows struct {
	mu   sync.Mutex
	open map[*frontier.Request]*pageLinks
}

// pageLinks are the links of one page waiting to be pushed, and the count
// of those dropped over the page's link limit.
type pageLinks struct {
	reqs    []*frontier.Request
	dropped int64
}

// follow queues a link found on parent's page: into parent's buffer while
// its callbacks run (at most the link limit; the rest are counted), at
// once otherwise (a callback that kept a Response).
func (r *run) follow(parent, req *frontier.Request) {
	f := &r.follows
	f.mu.Lock()
	if buf, ok := f.open[parent]; ok {
		if len(buf.reqs) >= r.cfg.maxLinks {
			buf.dropped++
		} else {
			buf.reqs = append(buf.reqs, req)
		}
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	r.enqueue(req)
}

// collectFollows starts buffering parent's links.
func (r *run) collectFollows(parent *frontier.Request) {
	f := &r.follows
	f.mu.Lock()
	if f.open == nil {
		f.open = make(map[*frontier.Request]*pageLinks)
	}
	f.open[parent] = &pageLinks{}
	f.mu.Unlock()
}

// flushFollows pushes parent's buffered links.
func (r *run) flushFollows(parent *frontier.Request) {
	f := &r.follows
	f.mu.Lock()
	buf := f.open[parent]
	delete(f.open, parent)
	f.mu.Unlock()
	if buf == nil {
		return
	}
	if buf.dropped > 0 {
		r.stats.linksCapped(buf.dropped)
		r.cfg.logger.Warn("links over the page's limit not followed", "url", parent.URL,
			"followed", len(buf.reqs), "not_followed", buf.dropped, "limit", r.cfg.maxLinks)
	}
	r.enqueueAll(buf.reqs)
}

// batchPusher is a frontier that pushes many requests at once
// (durable.Frontier).
type batchPusher interface {
	PushBatch(ctx context.Context, reqs []*frontier.Request) ([]frontier.PushResult, []error)
}

// enqueueAll pushes requests, in one batch when the frontier can, and
// accounts for each as enqueue does.
func (r *run) enqueueAll(reqs []*frontier.Request) {
	bp, ok := r.front.(batchPusher)
	if !ok || len(reqs) < 2 {
		for _, req := range reqs {
			r.enqueue(req)
		}
		return
	}
	res, errs := bp.PushBatch(context.Background(), reqs)
	for i, req := range reqs {
		r.pushed(req, res[i], errs[i])
	}
}
