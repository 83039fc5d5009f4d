package crawler

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// jobEngine is the run as its backend's backend.Engine.
type jobEngine run

func (e *jobEngine) Resume(s *backend.Saved) []*middleware.RobotsEntry {
	var restored []*middleware.RobotsEntry
	for _, rec := range s.Robots {
		en, err := e.robots.Restore(rec)
		if err != nil {
			e.cfg.logger.Warn("robots.txt record not restored", "authority", rec.Authority, "error", err)
			continue
		}
		restored = append(restored, en)
	}
	e.budget.Restore(s.Budget)
	e.stats.Restore(s.Stats, s.Skips, s.Runs)
	for _, en := range restored {
		e.stats.RobotsRestored(en)
	}
	return restored
}

func (e *jobEngine) Discover(en *middleware.RobotsEntry) { e.maps.Discover(e.work, en) }
func (e *jobEngine) Snapshot() stats.Snapshot            { return e.stats.Snapshot() }

// WithBackend keeps the crawl's job in b instead of in memory (package
// backend has the seam): package jobstate's for a job that survives pauses
// and crashes, package fleet's for one crawl shared by several processes.
// A crawl has one backend; WithFrontier is the in-memory backend with
// another frontier.
func WithBackend(b backend.Backend) Option {
	return func(c *config) { c.backends = append(c.backends, b) }
}

// errRecorded is the admission error of a URL the scope check refused:
// the admission wrote its skip record already, before the frontier marked
// the URL seen.
var errRecorded = errors.New("crawler: refused by the scope check, recorded")

// backend returns the crawl's one backend, Memory by default.
func (c *config) backend() (backend.Backend, error) {
	switch len(c.backends) {
	case 0:
		return backend.Memory{Frontier: c.frontier}, nil
	case 1:
		if c.frontier != nil {
			return nil, errors.New("crawler: WithFrontier and WithBackend: a crawl has one backend, and the backend's frontier")
		}
		return c.backends[0], nil
	}
	return nil, errors.New("crawler: WithBackend given more than once: a crawl has one backend")
}

// job makes the Job of a run (r nil for New's Check).
func (c *Crawler) job(seeds []string, r *run) *backend.Job {
	cfg := &c.cfg
	j := &backend.Job{
		Agent: c.agent, Seeds: seeds, Scope: cfg.scopeSpec(), Timeout: cfg.timeout, SkipLog: cfg.skipOut,
		Budget: cfg.maxPages > 0 || cfg.maxPerHost > 0, Logger: cfg.logger, Now: cfg.now,
		Pacing: []politeness.Option{
			politeness.WithFloor(cfg.floor),
			politeness.WithConcurrency(cfg.perHost),
			politeness.WithMaxCrawlDelay(cfg.maxDelay),
			politeness.WithGiveUp(cfg.hostGiveUp),
			politeness.WithLogger(cfg.logger),
			politeness.WithStartLog(cfg.startLog),
		},
		Frontier: []frontier.Option{
			frontier.WithLeasesPerAuthority(cfg.perHost),
			frontier.WithOrder(cfg.order),
		},
	}
	if cfg.autoThrottle != nil {
		j.Pacing = append(j.Pacing, politeness.WithAutoThrottle(*cfg.autoThrottle))
	}
	if r != nil {
		j.Engine = (*jobEngine)(r)
		j.Frontier = append(j.Frontier, frontier.WithAdmit(r.links.Admission(r.admit, errRecorded)))
		j.Check = r.check
	}
	return j
}

// errHeldLink is Job.Check's refusal of a held link (see pagepolicy.Links.Admission): only
// the admission writes its record.
var errHeldLink = errors.New("crawler: a held link, recorded by the admission")

// check is Job.Check: the scope check, and a refusal of held links.
func (r *run) check(req *frontier.Request) error {
	if r.links.Held.Holds(req) {
		return errHeldLink
	}
	return r.scope.Check(req)
}

// admit is the frontier's admission: the scope check, with the record of
// a refused URL written before the frontier marks the URL seen. Written
// after, a crash or a killed process in between would leave a URL that is
// seen, so never pushed again, and has no record.
func (r *run) admit(req *frontier.Request) error {
	err := r.scope.Check(req)
	var rec *skiplog.Record
	if errors.As(err, &rec) {
		r.skip(rec)
		return errRecorded
	}
	return err
}

// scopeSpec describes the crawl's scope options for Job.Scope.
func (c *config) scopeSpec() []string {
	patterns := func(res []*regexp.Regexp) string {
		var out []string
		for _, re := range res {
			out = append(out, re.String())
		}
		return strings.Join(out, " ")
	}
	sm := &c.sitemaps
	return []string{
		"domains=" + strings.Join(c.domains, ","),
		"include=" + patterns(c.include),
		"exclude=" + patterns(c.exclude),
		"max-depth=" + strconv.Itoa(c.maxDepth),
		"sitemaps=" + strings.Join(sm.URLs, ","),
		fmt.Sprintf("sitemap-discovery=%v sitemap-seeds=%v sitemap-scope=%s", sm.Discover, sm.Seeds, sm.Scope),
		"sitemap-include=" + patterns(sm.Include),
		"sitemap-exclude=" + patterns(sm.Exclude),
	}
}
