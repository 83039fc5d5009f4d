package ui

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/heedcrawl/heed/jobstate"
	"github.com/heedcrawl/heed/skiplog"
)

// stateSkipLog is the skip log's name in a state directory (README: "the
// skip log (DIR/skipped.jsonl)").
const stateSkipLog = "skipped.jsonl"

// readStateSkips streams the skip log of a state directory. A last line
// cut by a kill ends the read with its error after the records before it.
func readStateSkips(dir string, fn func(*skiplog.Record)) error {
	f, err := os.Open(filepath.Join(dir, stateSkipLog))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return skiplog.Read(f, func(r *skiplog.Record) error { fn(r); return nil })
}

// JobView is a job at rest, as /job and /api/job show it.
type JobView struct {
	Report *jobstate.Report `json:"report"`
	// Status says in words whether the job is complete, paused or was
	// killed.
	Status string `json:"status"`
	// Queue lists the queued URLs per authority, most first.
	Queue       []QueueRow    `json:"queue"`
	SkipReasons []ReasonCount `json:"skip_reasons"`
	SkipChart   template.HTML `json:"-"`
	Now         time.Time     `json:"now"`
}

// QueueRow is one authority's queue in a state.
type QueueRow struct {
	Authority string    `json:"authority"`
	Queued    int       `json:"queued"`
	HoldUntil time.Time `json:"hold_until,omitzero"`
}

// busyError says a crawl holds the state.
type busyError struct{ err error }

func (e *busyError) Error() string { return e.err.Error() }

func (s *Server) job(_ context.Context) (*JobView, error) {
	rep, err := jobstate.Read(s.stateDir)
	if err != nil {
		var busy *jobstate.BusyError
		if errors.As(err, &busy) {
			return nil, &busyError{err}
		}
		return nil, err
	}
	now := s.now()
	v := &JobView{Report: rep, Now: now}
	job, fs := rep.Job, rep.Frontier
	switch {
	case job.Runs == 0:
		v.Status = "never started"
	case job.Complete:
		v.Status = "complete: every URL is fetched or in the skip log"
	case job.Running:
		v.Status = fmt.Sprintf("stopped without closing (killed?): %d URLs queued, %d in flight will be fetched again; run the same crawl command to resume", fs.Queued, fs.Leased)
	default:
		v.Status = fmt.Sprintf("paused: %d URLs queued; run the same crawl command to resume", fs.Queued)
	}
	for a, n := range fs.ByAuthority {
		row := QueueRow{Authority: a, Queued: n}
		if h, ok := fs.Holds[a]; ok && h.After(now) {
			row.HoldUntil = h
		}
		v.Queue = append(v.Queue, row)
	}
	slices.SortFunc(v.Queue, func(a, b QueueRow) int {
		if a.Queued != b.Queued {
			return b.Queued - a.Queued
		}
		return strings.Compare(a.Authority, b.Authority)
	})
	for _, r := range skiplog.Reasons {
		if n := rep.Skipped.ByReason[r]; n > 0 {
			v.SkipReasons = append(v.SkipReasons, ReasonCount{r, int64(n)})
		}
	}
	v.SkipChart = barChart(v.SkipReasons)
	return v, nil
}

func (s *Server) jobPage(w http.ResponseWriter, r *http.Request) {
	if s.stateDir == "" {
		s.notServed(w, "A job at rest", "Start the pages with heed ui --state DIR to see the job kept in DIR.")
		return
	}
	v, err := s.job(r.Context())
	var be *busyError
	switch {
	case errors.As(err, &be):
		s.render(w, http.StatusConflict, "message", "Job", "/job", message{Heading: "A crawl is using this state", Text: be.err.Error() + ". The state is read only while no crawl runs on it; watch a running crawl with heed crawl --ui ADDR."})
	case err != nil:
		s.render(w, http.StatusInternalServerError, "message", "Job", "/job", message{Heading: "The state could not be read", Text: err.Error()})
	default:
		s.render(w, http.StatusOK, "job", "Job at rest", "/job", v)
	}
}

func (s *Server) jobAPI(w http.ResponseWriter, r *http.Request) {
	if s.stateDir == "" {
		writeJSONError(w, http.StatusNotFound, "no state is served here")
		return
	}
	v, err := s.job(r.Context())
	var be *busyError
	switch {
	case errors.As(err, &be):
		writeJSONError(w, http.StatusConflict, be.err.Error())
	case err != nil:
		writeJSONError(w, http.StatusInternalServerError, err.Error())
	default:
		writeJSON(w, v)
	}
}
