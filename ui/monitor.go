package ui

import (
	"sync"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/skiplog"
)

// Bounds of what a Monitor keeps and a live page shows.
const (
	// MaxSkips is how many of the latest skip-log records a Monitor keeps
	// for the skip-log browser (the counts cover every record).
	MaxSkips = 5000
	// MaxAuthorities is how many authorities the live page lists: those
	// with the most requests.
	MaxAuthorities = 100
	// StartLogSize is the start log a crawl watched by a Monitor should
	// keep (crawler.WithStartLog): the request starts per authority the
	// timeline can show.
	StartLogSize = 64
	// rateWindow is how far back the rate plot goes.
	rateWindow = time.Minute
)

// Monitor watches one crawl for the live view. Make it with NewMonitor
// before the crawl's Run: it registers the crawler's OnStart, OnSkip and
// OnFinish hooks. While the crawl runs it takes one Stats snapshot a
// second (for the rate over the last minute); everything else is read only
// when a page asks. Build the crawler with crawler.WithStartLog(StartLogSize)
// for the per-host timeline.
type Monitor struct {
	c   *crawler.Crawler
	now func() time.Time

	mu       sync.Mutex
	samples  []sample // one a second, the last rateWindow and a bit
	skips    []*skiplog.Record
	skipNext int
	skipFull bool
	running  bool
	finished bool
	stop     chan struct{}
	done     chan struct{}

	viewMu   sync.Mutex
	view     *LiveView
	viewAt   time.Time
	interval time.Duration
}

type sample struct {
	at    time.Time
	pages int64
}

// MonitorOption configures a Monitor.
type MonitorOption func(*Monitor)

// WithSampleInterval sets how often the Monitor samples the crawl's
// counts (default one second); tests make it shorter.
func WithSampleInterval(d time.Duration) MonitorOption {
	return func(m *Monitor) {
		if d > 0 {
			m.interval = d
		}
	}
}

// NewMonitor returns a Monitor of c. Call it before c.Run.
func NewMonitor(c *crawler.Crawler, opts ...MonitorOption) *Monitor {
	m := &Monitor{c: c, now: time.Now, interval: time.Second, skips: make([]*skiplog.Record, 0, 64)}
	for _, o := range opts {
		o(m)
	}
	c.OnStart(func(*crawler.Crawler) { m.start() })
	c.OnSkip(m.skipped)
	c.OnFinish(func(*crawler.Crawler, crawler.Summary) { m.finish() })
	return m
}

func (m *Monitor) start() {
	m.mu.Lock()
	if m.running {
		m.mu.Unlock()
		return
	}
	m.running = true
	m.stop, m.done = make(chan struct{}), make(chan struct{})
	m.mu.Unlock()
	m.sample()
	go m.loop()
}

func (m *Monitor) loop() {
	defer close(m.done)
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.sample()
		}
	}
}

func (m *Monitor) finish() {
	m.mu.Lock()
	if !m.running {
		m.mu.Unlock()
		return
	}
	stop, done := m.stop, m.done
	m.running, m.finished = false, true
	m.mu.Unlock()
	close(stop)
	<-done
	m.sample()
}

// sample records the page count now.
func (m *Monitor) sample() {
	snap := m.c.Stats().Snapshot()
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.samples = append(m.samples, sample{at: now, pages: snap.Pages})
	// Keep what the plot needs: the window and one sample before it.
	cut := 0
	for cut < len(m.samples)-1 && now.Sub(m.samples[cut+1].at) > rateWindow {
		cut++
	}
	if cut > 0 {
		m.samples = append(m.samples[:0], m.samples[cut:]...)
	}
}

// skipped keeps a skip-log record (OnSkip): a store under a lock.
func (m *Monitor) skipped(rec *skiplog.Record) {
	m.mu.Lock()
	if len(m.skips) < MaxSkips {
		m.skips = append(m.skips, rec)
	} else {
		m.skips[m.skipNext] = rec
		m.skipNext = (m.skipNext + 1) % MaxSkips
		m.skipFull = true
	}
	m.mu.Unlock()
}

// recentSkips returns the kept records, newest first.
func (m *Monitor) recentSkips() []*skiplog.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*skiplog.Record, 0, len(m.skips))
	n := len(m.skips)
	for i := 0; i < n; i++ {
		// newest is just before skipNext when the ring has wrapped.
		j := n - 1 - i
		if m.skipFull {
			j = (m.skipNext - 1 - i + 2*n) % n
		}
		out = append(out, m.skips[j])
	}
	return out
}

// state reports whether the crawl runs and whether it has finished, and
// a copy of the samples.
func (m *Monitor) state() (running, finished bool, samples []sample) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.running, m.finished, append([]sample(nil), m.samples...)
}
