package jobstate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
)

// checkpointEvery is how often a resumable crawl stores its statistics
// and pacing: what a crash may lose of them.
const checkpointEvery = time.Second

// dirBackend is a State as a crawl's backend: open opens the state when a
// run begins.
type dirBackend struct {
	open func() (State, string, error) // the state and its directory ("" if none)
}

// New returns the backend that keeps a crawl's job in s (a DirState, or
// another State). The crawl closes s when it ends.
func New(s State) backend.Backend {
	return &dirBackend{open: func() (State, string, error) {
		if ds, ok := s.(*DirState); ok {
			return s, ds.Dir(), nil
		}
		return s, "", nil
	}}
}

// Dir returns the backend that keeps a crawl's job in the directory dir
// (created if missing), locked while a run uses it: the backend of `heed
// crawl --state DIR`. A paused or killed crawl resumes where it stopped
// when it is run again with the same directory; see DirState for the
// layout.
func Dir(dir string) backend.Backend {
	return &dirBackend{open: func() (State, string, error) {
		ds, err := Open(dir)
		if err != nil {
			return nil, "", err
		}
		return ds, dir, nil
	}}
}

// Check refuses a skip log of the crawl's own: the job's is in its state
// (DIR/skipped.jsonl), with its one record per URL across runs.
func (b *dirBackend) Check(j *backend.Job) error {
	if j.SkipLog != nil {
		return errors.New("jobstate: WithSkipLog with a state: a resumable crawl keeps its skip log in its state (DIR/skipped.jsonl)")
	}
	return nil
}

// Open opens the state, the pacer and the state's frontier. Opening is
// local and does not wait on anything the run's context could end, so it
// is not consulted: a run cancelled at once still opens its state, and
// pauses with its seeds queued.
func (b *dirBackend) Open(_ context.Context, j *backend.Job) (backend.Session, error) {
	st, dir, err := b.open()
	if err != nil {
		return nil, err
	}
	pacer, err := politeness.New(j.Pacing...)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("jobstate: %w", err)
	}
	front, err := st.OpenFrontier(append(j.Frontier, frontier.WithGate(pacer))...)
	if err != nil {
		st.Close()
		return nil, err
	}
	return &session{State: st, dir: dir, j: j, pacer: pacer, front: front}, nil
}

// session is a run's side of its State: the job record, the pacing last
// stored, and the checkpoint loop.
type session struct {
	State
	dir         string
	j           *backend.Job
	pacer       *politeness.Pacer
	front       frontier.Frontier
	job         Job
	wasComplete bool
	pagesBefore int64 // the pages of earlier runs

	mu       sync.Mutex // serialises checkpoints
	lastPace map[string]politeness.AuthorityState
	live     liveWriter // the status snapshot, DIR/status.json (live.go)
	stop     chan struct{}
	done     chan struct{}
	err      error // the first failed durable write
}

func (s *session) Pacer() backend.Pacer        { return s.pacer }
func (s *session) Frontier() frontier.Frontier { return s.front }
func (s *session) Count(backend.Event)         {}
func (s *session) Stop() backend.StopPolicy    { return backend.Pause }

// Chain stores every robots.txt fetch and every budget admission, synced,
// as they happen.
func (s *session) Chain(robots *middleware.RobotsPolicy, budget *middleware.Budget) {
	robots.Save = func(rec *middleware.RobotsRecord) error {
		err := s.SaveRobots(rec)
		s.fail(err)
		return err
	}
	budget.Save = s.SaveBudget
}

// fail remembers the first failed write of the state, for Run to return.
func (s *session) fail(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// Accounted reports whether a request handed out by the frontier was
// accounted for by an earlier run: it was in flight at a crash, and its
// skip record had been written. It is then done, not fetched.
func (s *session) Accounted(req *frontier.Request) bool {
	reason, ok := s.Skips().Recorded(req.URL)
	return ok && leasedReasons[reason]
}

// Record writes a skip record to the state's skip log, which keeps one
// record per URL. It reports false for a record the state already had,
// which is not to be counted again.
func (s *session) Record(rec *skiplog.Record) bool {
	if rec.Time.IsZero() {
		rec.Time = s.j.Now()
	}
	written, err := s.Skips().Write(rec)
	if err != nil {
		// Counted all the same, and Run fails: an incomplete log is
		// never mistaken for a complete one.
		s.fail(fmt.Errorf("skip log: %w", err))
		s.j.Logger.Error("skip log", "error", err)
		return true
	}
	return written
}

// Start resumes the job: it loads what earlier runs stored, before the
// seeds are pushed (robots.txt entries, pacing, the budget and the
// statistics), stores the new run in the job record and starts the
// checkpoint loop.
func (s *session) Start(context.Context) error {
	if err := s.resume(); err != nil {
		return fmt.Errorf("resume from the state: %w", err)
	}
	return nil
}

func (s *session) resume() error {
	job, err := s.Job()
	if err != nil {
		return err
	}
	if err := checkSameJob(s.dir, &job, s.j); err != nil {
		return err
	}
	now := s.j.Now()
	s.wasComplete = job.Runs > 0 && job.Complete
	if job.Runs == 0 {
		job.Started = now
	}
	if job.Running {
		// The last run never closed: its counts stop at its last
		// checkpoint.
		job.Killed++
	}
	job.Runs++
	job.LastStart, job.Stopped, job.Running, job.Complete = now, time.Time{}, true, false
	s.live.start()
	job.Agent, job.Scope = s.j.Agent, append([]string(nil), s.j.Scope...)
	if len(s.j.Seeds) > 0 || job.Runs == 1 {
		job.Seeds = append([]string(nil), s.j.Seeds...)
	}
	s.job = job

	pace, err := s.Pacing()
	if err != nil {
		return err
	}
	saved := &backend.Saved{Runs: job.Runs, Skips: s.Skips().Summary()}
	err = s.ForEachRobots(func(rec *middleware.RobotsRecord) error {
		saved.Robots = append(saved.Robots, rec)
		return nil
	})
	if err != nil {
		return err
	}
	if saved.Budget, err = s.Budget(); err != nil {
		return err
	}
	if saved.Stats, err = s.Stats(); err != nil {
		return err
	}
	if saved.Stats != nil {
		s.pagesBefore = saved.Stats.Pages
	}
	restored := s.j.Resume(saved)
	for _, e := range restored {
		ps := pace[e.Authority]
		ps.CrawlDelay = e.CrawlDelay()
		pace[e.Authority] = ps
	}
	// The last second of pacing may not have been stored before a crash,
	// and an authority first contacted in it has no record at all: every
	// authority the crawl knows is treated as if a request had started
	// now, so the first request after a restart waits one interval.
	for a := range s.front.Stats().ByAuthority {
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
	if err := s.pacer.Restore(pace); err != nil {
		s.j.Logger.Warn("pacing not restored for some authorities", "error", err)
	}
	if err := s.checkpoint(); err != nil {
		return err
	}
	// Sitemaps a robots.txt listed are queued when it is fetched; a crash
	// between its record and those pushes would lose them. Pushing them
	// again costs a duplicate each.
	for _, e := range restored {
		s.j.Discover(e)
	}
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go s.checkpointLoop()
	return nil
}

func (s *session) checkpointLoop() {
	defer close(s.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if err := s.checkpoint(); err != nil {
				s.j.Logger.Error("state checkpoint", "error", err)
			}
		}
	}
}

// checkpoint stores the job record, the statistics and the pacing of the
// authorities whose pacing changed since the last checkpoint.
func (s *session) checkpoint() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := s.j.Snapshot()
	now := s.pacer.Snapshot()
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
	s.live.write(s.dir, s.job, &snap, s.front.Stats().ByAuthority, s.j.Logger)
	return err
}

func samePacing(a, b politeness.AuthorityState) bool {
	return a.Interval == b.Interval && a.CrawlDelay == b.CrawlDelay && a.Excluded == b.Excluded &&
		a.PausedUntil.Equal(b.PausedUntil) && a.Backoff == b.Backoff && a.Failures == b.Failures &&
		a.InFlight == b.InFlight && a.LastStart.Equal(b.LastStart) && a.LastRelease.Equal(b.LastRelease)
}

// Finish ends the run: the checkpoint loop stops, and the job record says
// whether the crawl is complete (its frontier exhausted) or paused, with
// a last checkpoint. The summary's skip counts are the state's, of every
// run. The frontier is still open.
func (s *session) Finish(res *backend.Result) error {
	if s.stop != nil {
		close(s.stop)
		<-s.done
	}
	fs := s.front.Stats()
	s.job.Running = false
	s.job.Complete = fs.Queued == 0 && fs.Leased == 0
	s.job.Stopped = s.j.Now()
	err := s.checkpoint()
	res.Skipped = s.Skips().Summary()
	s.mu.Lock()
	defer s.mu.Unlock()
	res.Summary = &Info{Dir: s.dir, Job: s.job, WasComplete: s.wasComplete, Fetched: res.Stats.Pages - s.pagesBefore}
	if err := errors.Join(s.err, err); err != nil {
		return fmt.Errorf("jobstate: %w", err)
	}
	return nil
}

// Close closes the state, after the crawl closed the frontier.
func (s *session) Close() error {
	if err := s.State.Close(); err != nil {
		return fmt.Errorf("jobstate: %w", err)
	}
	return nil
}
