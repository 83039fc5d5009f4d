package ui

import (
	"context"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// FleetSource reads the shared counters and queue of a crawl kept by
// several heed processes (heed crawl --redis). The Redis reader lives
// in its own package, so that a program serving only the tester does not
// link a Redis client.
type FleetSource interface {
	Fleet(ctx context.Context) (*FleetView, error)
}

// FleetView is a fleet's state at one moment: the crawl-wide counts and
// queue (stats.Shared, what a process of the fleet reports when it
// stops), and each authority's.
type FleetView struct {
	stats.Shared
	// Authorities are the per-authority counts and queue, most queued
	// first.
	Authorities []FleetAuthority `json:"authorities"`
}

// FleetAuthority is one authority of a fleet.
type FleetAuthority struct {
	Authority string `json:"authority"`
	Pages     int64  `json:"pages"`
	Queued    int    `json:"queued"`
	Skipped   int64  `json:"skipped"`
}

type fleetPage struct {
	V           *FleetView
	SkipReasons []ReasonCount
	SkipChart   template.HTML
}

// fleetTimeout bounds one read of a fleet: a Redis that is gone is an
// error page, not a page that never loads.
const fleetTimeout = 3 * time.Second

func (s *Server) fleetData(ctx context.Context) (*fleetPage, error) {
	ctx, cancel := context.WithTimeout(ctx, fleetTimeout)
	defer cancel()
	v, err := s.fleet.Fleet(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(v.Authorities, func(a, b FleetAuthority) int {
		if a.Queued != b.Queued {
			return b.Queued - a.Queued
		}
		return strings.Compare(a.Authority, b.Authority)
	})
	p := &fleetPage{V: v}
	for _, r := range skiplog.Reasons {
		if n := v.Skipped[r]; n > 0 {
			p.SkipReasons = append(p.SkipReasons, ReasonCount{r, n})
		}
	}
	p.SkipChart = barChart(p.SkipReasons)
	return p, nil
}

func (s *Server) fleetPage(w http.ResponseWriter, r *http.Request) {
	if s.fleet == nil {
		s.notServed(w, "A fleet", "Start the pages with heed ui --redis URL --crawl-id ID to see a crawl shared through Redis.")
		return
	}
	p, err := s.fleetData(r.Context())
	if err != nil {
		s.render(w, http.StatusBadGateway, "message", "Fleet", "/fleet", message{Heading: "The fleet's state could not be read", Text: err.Error()})
		return
	}
	s.render(w, http.StatusOK, "fleet", "Fleet", "/fleet", p)
}

func (s *Server) fleetAPI(w http.ResponseWriter, r *http.Request) {
	if s.fleet == nil {
		writeJSONError(w, http.StatusNotFound, "no fleet is served here")
		return
	}
	p, err := s.fleetData(r.Context())
	if err != nil {
		writeJSONError(w, http.StatusBadGateway, err.Error())
		return
	}
	writeJSON(w, p.V)
}
