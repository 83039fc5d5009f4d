package jobstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/heedcrawl/heed/feed"
	"github.com/heedcrawl/heed/frontier/durable"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/robots"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// Report is what a state directory says about its crawl: `heed
// status` prints it.
type Report struct {
	Dir string `json:"dir"`
	// Running says a crawl holds the state now (Status): the report then
	// has only Job, PID and Live, from the crawl's status snapshot, since
	// the state itself is the crawl's to read.
	Running bool `json:"running"`
	// PID is the process holding the state, while Running.
	PID int `json:"pid,omitempty"`
	// Live is the last status snapshot a crawl published (nil if none
	// did): the running crawl's, or, when Running is false, the last
	// run's; one whose own Running is true then was left by a process
	// that died, and is stale.
	Live *Live `json:"live,omitempty"`
	// Job is the job record; Job.Running while no process holds the
	// state means the last run was killed.
	Job Job `json:"job"`
	// Stats are the statistics as last stored (up to a second old after a
	// crash); nil before the first checkpoint.
	Stats *stats.Snapshot `json:"stats,omitempty"`
	// Frontier is the frontier's status: counts, queue size and hold per
	// authority, and leases (requests in flight when the last process
	// stopped, which the next run fetches again).
	Frontier durable.Status `json:"frontier,omitzero"`
	// Skipped counts the skip log's records.
	Skipped skiplog.Summary `json:"skipped,omitzero"`
	// Robots is the last robots.txt fetch of each authority, in authority
	// order.
	Robots []RobotsReport `json:"robots,omitempty"`
}

// RobotsReport is one authority's robots.txt as a state records it.
type RobotsReport struct {
	Authority string    `json:"authority"`
	URL       string    `json:"url"`
	State     string    `json:"state"`
	Status    int       `json:"status"`
	FetchedAt time.Time `json:"fetched_at"`
	Err       string    `json:"error,omitempty"`
	// Bytes is the size of the stored body (at most the parse limit + 1).
	Bytes int `json:"bytes,omitempty"`
	// CrawlDelay is the delay of the group selected for the job's agent.
	CrawlDelay time.Duration `json:"crawl_delay_ns,omitempty"`
	// Failures, FirstFailure and RetryAt are the unreachable bookkeeping.
	Failures     int       `json:"failures,omitempty"`
	FirstFailure time.Time `json:"first_failure,omitzero"`
	RetryAt      time.Time `json:"retry_at,omitzero"`
}

// ErrNotState is returned by Read for a directory that holds no
// crawl state.
var ErrNotState = errors.New("not a heed crawl state (no crawl has run with this directory as its --state)")

// Read reads the state in dir without changing it, while no crawl
// uses it: a crawl running on it gives a *BusyError. A state left by
// a killed process is read as the next run will find it.
func Read(dir string) (*Report, error) {
	lock, err := lockState(dir, false)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("jobstate: %s: %w", dir, ErrNotState)
		}
		return nil, err
	}
	defer lock.Close()
	if _, err := os.Stat(filepath.Join(dir, stateFrontierName)); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("jobstate: %s: %w", dir, ErrNotState)
		}
		return nil, fmt.Errorf("jobstate: state: %w", err)
	}
	rd, err := durable.OpenReader(filepath.Join(dir, stateFrontierName))
	if err != nil {
		return nil, fmt.Errorf("jobstate: state: %w", err)
	}
	defer rd.Close()
	rep := &Report{Dir: dir}
	if rep.Frontier, err = rd.Status(); err != nil {
		return nil, fmt.Errorf("jobstate: state: %w", err)
	}
	if b, err := rd.GetMeta(metaJob); err == nil {
		if err := json.Unmarshal(b, &rep.Job); err != nil {
			return nil, fmt.Errorf("jobstate: state %s: job: %w", dir, err)
		}
	} else if !errors.Is(err, durable.ErrMetaNotFound) {
		return nil, err
	}
	if b, err := rd.GetMeta(metaStats); err == nil {
		rep.Stats = new(stats.Snapshot)
		if err := json.Unmarshal(b, rep.Stats); err != nil {
			return nil, fmt.Errorf("jobstate: state %s: stats: %w", dir, err)
		}
	} else if !errors.Is(err, durable.ErrMetaNotFound) {
		return nil, err
	}
	err = rd.ForEachMeta(metaRobots, func(key string, v []byte) error {
		var rec middleware.RobotsRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("jobstate: state %s: %s: %w", dir, key, err)
		}
		rr := RobotsReport{
			Authority: rec.Authority, URL: rec.URL, State: rec.State, Status: rec.Status, FetchedAt: rec.FetchedAt,
			Err: rec.Err, Bytes: len(rec.Body), Failures: rec.Failures, FirstFailure: rec.FirstFailure, RetryAt: rec.RetryAt,
		}
		if rep.Job.Agent != "" {
			if e, err := rec.Entry(rep.Job.Agent, max(rec.Limit, robots.DefaultMaxBytes)); err == nil {
				rr.CrawlDelay = e.CrawlDelay()
			}
		}
		rep.Robots = append(rep.Robots, rr)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(rep.Robots, func(i, j int) bool { return rep.Robots[i].Authority < rep.Robots[j].Authority })
	if rep.Skipped, err = readSkipSummary(filepath.Join(dir, stateSkipLogName)); err != nil {
		return nil, err
	}
	return rep, nil
}

// Status reports the state in dir whether or not a crawl runs on it:
// while none does, it is Read's report with the last status snapshot
// (Live); while one does, the report is that crawl's status snapshot
// (Running, PID, Job, Live; Live nil if the crawl has not published one
// yet). A damaged snapshot is an error only while the crawl runs; at
// rest the state itself is reported and the snapshot left out.
func Status(dir string) (*Report, error) {
	rep, err := Read(dir)
	var busy *BusyError
	if errors.As(err, &busy) {
		rep = &Report{Dir: dir, Running: true, PID: busy.PID}
		l, err := ReadLive(dir)
		switch {
		case errors.Is(err, ErrNoLive):
		case err != nil:
			return nil, err
		default:
			rep.Live, rep.Job = l, l.Job
		}
		return rep, nil
	}
	if err != nil {
		return nil, err
	}
	if l, err := ReadLive(dir); err == nil {
		rep.Live = l
	}
	return rep, nil
}

// readSkipSummary counts a skip log's records, leaving out a last line
// cut by a crash (the next run drops it and writes the record again).
func readSkipSummary(path string) (skiplog.Summary, error) {
	var sum skiplog.Summary
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return sum, nil
	}
	if err != nil {
		return sum, fmt.Errorf("jobstate: skip log: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return sum, fmt.Errorf("jobstate: skip log: %w", err)
	}
	end, err := feed.LinesEnd(f, fi.Size())
	if err != nil {
		return sum, fmt.Errorf("jobstate: skip log: %w", err)
	}
	err = skiplog.Read(io.LimitReader(f, end), func(r *skiplog.Record) error {
		sum.Add(r)
		return nil
	})
	if err != nil {
		return sum, fmt.Errorf("jobstate: skip log %s is damaged: %w", path, err)
	}
	return sum, nil
}
