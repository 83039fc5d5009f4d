package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/heedcrawl/heed/skiplog"
)

func (s *Server) livePage(w http.ResponseWriter, r *http.Request) {
	if s.monitor == nil {
		s.notServed(w, "The live crawl view", "Start a crawl with --ui ADDR (or give a ui.Monitor to the server) to watch it here.")
		return
	}
	s.render(w, http.StatusOK, "live", "Live crawl", "/live", s.monitor.View())
}

func (s *Server) liveAPI(w http.ResponseWriter, r *http.Request) {
	if s.monitor == nil {
		writeJSONError(w, http.StatusNotFound, "no crawl is watched by this server")
		return
	}
	writeJSON(w, s.monitor.View())
}

// liveEvents streams the live view as server-sent events, one "view"
// event per sample interval, until the client goes or the crawl has
// finished (then a last view and an "end" event).
func (s *Server) liveEvents(w http.ResponseWriter, r *http.Request) {
	if s.monitor == nil {
		writeJSONError(w, http.StatusNotFound, "no crawl is watched by this server")
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeJSONError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	t := time.NewTicker(s.monitor.interval)
	defer t.Stop()
	for {
		v := s.monitor.View()
		b, err := json.Marshal(v)
		if err != nil {
			return
		}
		if _, err := fmt.Fprintf(w, "event: view\ndata: %s\n\n", b); err != nil {
			return
		}
		if v.Finished && !v.Running {
			fmt.Fprint(w, "event: end\ndata: {}\n\n")
			flusher.Flush()
			return
		}
		flusher.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
	}
}

// skipQuery is the skip-log browser's filter.
type skipQuery struct {
	Reason    string
	Authority string
	Page      int
}

// skipsPerPage is how many records a page of the browser shows.
const skipsPerPage = 50

type skipsPage struct {
	Q          skipQuery
	Source     string
	Records    []*skiplog.Record
	Matched    int
	Kept       int
	Reasons    []ReasonCount
	Authority  []string
	Prev, Next int
	Err        string
}

func parseSkipQuery(r *http.Request) skipQuery {
	q := r.URL.Query()
	p, _ := strconv.Atoi(q.Get("page"))
	return skipQuery{Reason: q.Get("reason"), Authority: q.Get("authority"), Page: max(p, 1)}
}

func (q skipQuery) match(rec *skiplog.Record) bool {
	return (q.Reason == "" || string(rec.Reason) == q.Reason) && (q.Authority == "" || rec.Authority == q.Authority)
}

// skips filters the records a Server can see: the live crawl's latest, or
// the skip log of the state directory.
func (s *Server) skips(q skipQuery) (*skipsPage, error) {
	p := &skipsPage{Q: q}
	counts := map[skiplog.Reason]int64{}
	auths := map[string]bool{}
	from := (q.Page - 1) * skipsPerPage
	visit := func(rec *skiplog.Record) {
		p.Kept++
		counts[rec.Reason]++
		auths[rec.Authority] = true
		if !q.match(rec) {
			return
		}
		if p.Matched >= from && p.Matched < from+skipsPerPage {
			p.Records = append(p.Records, rec)
		}
		p.Matched++
	}
	switch {
	case s.monitor != nil:
		for _, rec := range s.monitor.recentSkips() {
			visit(rec)
		}
		p.Source = fmt.Sprintf("the latest %d records of the running crawl, newest first (at most %d are kept; the counts on the live page cover all)", p.Kept, MaxSkips)
	case s.stateDir != "":
		p.Source = "the skip log of the state " + s.stateDir + ", in the order written"
		if err := readStateSkips(s.stateDir, visit); err != nil {
			p.Err = err.Error()
		}
	default:
		return nil, nil
	}
	for _, r := range skiplog.Reasons {
		if counts[r] > 0 {
			p.Reasons = append(p.Reasons, ReasonCount{r, counts[r]})
		}
	}
	for a := range auths {
		if a != "" {
			p.Authority = append(p.Authority, a)
		}
	}
	slices.Sort(p.Authority)
	if q.Page > 1 {
		p.Prev = q.Page - 1
	}
	if p.Matched > from+skipsPerPage {
		p.Next = q.Page + 1
	}
	return p, nil
}

func (s *Server) skipsPage(w http.ResponseWriter, r *http.Request) {
	p, err := s.skips(parseSkipQuery(r))
	switch {
	case p == nil && err == nil:
		s.notServed(w, "The skip-log browser", "It shows the skip log of a crawl watched live (--ui) or of a state directory (heed ui --state DIR).")
	case err != nil:
		s.render(w, http.StatusInternalServerError, "message", "Skip log", "/skips", message{Heading: "The skip log could not be read", Text: err.Error()})
	default:
		s.render(w, http.StatusOK, "skips", "Skip log", "/skips", p)
	}
}

func (s *Server) skipsAPI(w http.ResponseWriter, r *http.Request) {
	p, err := s.skips(parseSkipQuery(r))
	switch {
	case p == nil && err == nil:
		writeJSONError(w, http.StatusNotFound, "no skip log is served here")
	case err != nil:
		writeJSONError(w, http.StatusInternalServerError, err.Error())
	default:
		if p.Records == nil {
			p.Records = []*skiplog.Record{}
		}
		writeJSON(w, map[string]any{"matched": p.Matched, "kept": p.Kept, "page": p.Q.Page, "records": p.Records})
	}
}
