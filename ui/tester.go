package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/robots"
	"github.com/heedcrawl/heed/skiplog"
)

// MaxURLs is how many URLs the tester decides per request.
const MaxURLs = 1000

// TesterRequest is what the tester is asked: a robots.txt (pasted as
// Robots, or fetched from RobotsURL), the agent's product token, and the
// URLs to decide (absolute URLs, or paths with their query).
type TesterRequest struct {
	Robots    string   `json:"robots,omitempty"`
	RobotsURL string   `json:"robots_url,omitempty"`
	Agent     string   `json:"agent"`
	URLs      []string `json:"urls"`
}

// TesterResult is the tester's answer: how the file was obtained, each
// URL's verdict with its evidence, and the lint findings.
type TesterResult struct {
	Source string `json:"source"`
	// Status, State, FinalURL, Hops and Err describe a fetch (Status 200
	// and State available for a pasted file).
	Status   int    `json:"status"`
	State    string `json:"state"`
	FinalURL string `json:"final_url,omitempty"`
	Hops     int    `json:"hops,omitempty"`
	Err      string `json:"error,omitempty"`
	Bytes    int    `json:"bytes"`
	// Group says which user-agent lines chose the group ("no group" when
	// none applies), GroupLines every line of it: its user-agent lines
	// and its rules. CrawlDelay is the group's, in seconds, if any.
	Group      string   `json:"group"`
	GroupLines []int    `json:"group_lines,omitempty"`
	CrawlDelay *float64 `json:"crawl_delay,omitempty"`
	// Truncated says where the file was cut at the parse limit.
	Truncated *robots.Truncation `json:"truncated,omitempty"`
	Verdicts  []URLVerdict       `json:"verdicts"`
	Findings  []robots.Finding   `json:"findings"`
	// Lines are the file's lines as the parser numbered them (JSON
	// leaves them out; the page shows them).
	Lines []string `json:"-"`
}

// URLVerdict is one URL's verdict: the URL as given, heed's report of
// the decision (the fields of `heed robots check --json`, from the same
// decision), and a sentence explaining it.
type URLVerdict struct {
	URL string `json:"url"`
	middleware.RobotsReport
	Explain string `json:"explain"`
	Error   string `json:"error,omitempty"`
}

// testerError is a request the tester cannot answer: HTTP 400.
type testerError struct{ msg string }

func (e *testerError) Error() string { return e.msg }

// test answers a tester request by heed's library calls only.
func (s *Server) test(r *http.Request, req TesterRequest) (*TesterResult, error) {
	req.Agent = strings.TrimSpace(req.Agent)
	if !robots.ValidProductToken(req.Agent) {
		return nil, &testerError{fmt.Sprintf("%q is not a product token (letters, '-' and '_' only)", req.Agent)}
	}
	var urls []string
	for _, u := range req.URLs {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	if len(urls) > MaxURLs {
		return nil, &testerError{fmt.Sprintf("%d URLs: the tester decides at most %d at once", len(urls), MaxURLs)}
	}
	var rf *middleware.RobotsFetch
	res := &TesterResult{}
	switch raw := strings.TrimSpace(req.RobotsURL); {
	case raw != "" && req.Robots != "":
		return nil, &testerError{"give a robots.txt or its URL, not both"}
	case raw != "":
		var err error
		if rf, err = s.fetchRobots(r.Context(), raw); err != nil {
			return nil, err
		}
		res.Source = rf.URL
	default:
		if len(req.Robots) > DefaultFetchBytes {
			return nil, &testerError{fmt.Sprintf("the pasted file is over %d bytes", DefaultFetchBytes)}
		}
		rf = &middleware.RobotsFetch{URL: "pasted", FinalURL: "pasted", Status: 200, State: middleware.RobotsAvailable, Body: []byte(req.Robots)}
		res.Source = "pasted"
	}
	res.Status, res.State, res.Err, res.Bytes = rf.Status, rf.State.String(), rf.Err, len(rf.Body)
	if rf.FinalURL != rf.URL {
		res.FinalURL, res.Hops = rf.FinalURL, rf.Hops
	}
	entry := middleware.NewRobotsEntry("", rf, req.Agent, 0)
	if rf.State == middleware.RobotsAvailable {
		res.Lines = robots.Lines(rf.Body)
		res.Findings = robots.Lint(rf.Body)
		res.Truncated = entry.Truncated
		m := entry.Group.Match()
		res.Group = m.String()
		res.GroupLines = groupLines(entry.Group)
		if d, ok := entry.Group.CrawlDelay(); ok {
			secs := d.Seconds()
			res.CrawlDelay = &secs
		}
	}
	if res.Findings == nil {
		res.Findings = []robots.Finding{}
	}
	res.Verdicts = make([]URLVerdict, 0, len(urls))
	for _, raw := range urls {
		res.Verdicts = append(res.Verdicts, decideOne(entry, raw))
	}
	return res, nil
}

// groupLines returns every line of the group: its user-agent lines and
// its rules, in order.
func groupLines(g *robots.Group) []int {
	if g == nil {
		return nil
	}
	m := g.Match()
	lines := append([]int(nil), m.Lines()...)
	for _, r := range g.Rules() {
		lines = append(lines, r.Line)
	}
	return sortedUnique(lines)
}

// decideOne decides one URL with middleware.DecideRobots.
func decideOne(e *middleware.RobotsEntry, raw string) URLVerdict {
	v := URLVerdict{URL: raw}
	u, err := url.Parse(raw)
	if err != nil {
		v.Error = err.Error()
		v.Reason = skiplog.InvalidURL
		v.Explain = "not a URL: " + err.Error()
		return v
	}
	d := middleware.DecideRobots(e, u, 0)
	v.RobotsReport = d.Report()
	switch e.State {
	case middleware.RobotsUnavailable:
		v.Explain = fmt.Sprintf("robots.txt unavailable (status %d): no restrictions (RFC 9309 §2.3.1.3)", e.Status)
	case middleware.RobotsUnreachable:
		v.Explain = fmt.Sprintf("robots.txt unreachable (status %d): complete disallow (RFC 9309 §2.3.1.4)", e.Status)
	default:
		v.Explain = d.Verdict.String()
	}
	return v
}

func (s *Server) testerForm(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := TesterRequest{Agent: q.Get("agent"), RobotsURL: q.Get("robots_url")}
	if req.Agent == "" {
		req.Agent = s.agent
	}
	s.render(w, http.StatusOK, "tester", "robots.txt tester", "/robots", testerPage{Req: req, URLText: q.Get("urls")})
}

type testerPage struct {
	Req     TesterRequest
	URLText string
	Res     *TesterResult
	Err     string
	// Lines are the file's lines with their marks, for the page.
	Lines []testerLine
}

// testerLine is one line of the file as the page shows it.
type testerLine struct {
	N        int
	Text     string
	InGroup  bool
	Decides  []int // 1-based numbers of the URLs this line decides
	Allow    bool  // the line is an Allow rule that decides a URL
	Findings []robots.Finding
}

// maxBodyForm bounds a tester form or JSON request.
const maxBodyForm = DefaultFetchBytes + 256<<10

func (s *Server) testerSubmit(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyForm)
	if err := r.ParseForm(); err != nil {
		s.render(w, http.StatusBadRequest, "tester", "robots.txt tester", "/robots", testerPage{Req: TesterRequest{Agent: s.agent}, Err: "the form could not be read: " + err.Error()})
		return
	}
	req := TesterRequest{
		Robots:    r.PostForm.Get("robots"),
		RobotsURL: r.PostForm.Get("robots_url"),
		Agent:     r.PostForm.Get("agent"),
		URLs:      strings.Split(r.PostForm.Get("urls"), "\n"),
	}
	p := testerPage{Req: req, URLText: r.PostForm.Get("urls")}
	res, err := s.test(r, req)
	if err != nil {
		code := http.StatusBadGateway
		var te *testerError
		if errors.As(err, &te) {
			code = http.StatusBadRequest
		}
		p.Err = err.Error()
		s.render(w, code, "tester", "robots.txt tester", "/robots", p)
		return
	}
	p.Res = res
	p.Lines = markLines(res)
	s.render(w, http.StatusOK, "tester", "robots.txt tester", "/robots", p)
}

// markLines places the evidence on the file's lines.
func markLines(res *TesterResult) []testerLine {
	lines := make([]testerLine, len(res.Lines))
	for i, t := range res.Lines {
		lines[i] = testerLine{N: i + 1, Text: t}
	}
	at := func(n int) *testerLine {
		if n < 1 || n > len(lines) {
			return nil
		}
		return &lines[n-1]
	}
	for _, n := range res.GroupLines {
		if l := at(n); l != nil {
			l.InGroup = true
		}
	}
	for i, v := range res.Verdicts {
		if l := at(v.Line); l != nil {
			l.Decides = append(l.Decides, i+1)
			l.Allow = v.Allowed
		}
	}
	for _, f := range res.Findings {
		if l := at(f.Line); l != nil {
			l.Findings = append(l.Findings, f)
		}
	}
	return lines
}

func (s *Server) testerAPI(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyForm)
	var req TesterRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeJSONError(w, http.StatusBadRequest, "the request is not a tester request: "+err.Error())
		return
	}
	res, err := s.test(r, req)
	if err != nil {
		code := http.StatusBadGateway
		var te *testerError
		if errors.As(err, &te) {
			code = http.StatusBadRequest
		}
		writeJSONError(w, code, err.Error())
		return
	}
	writeJSON(w, res)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	enc.Encode(v)
}

func writeJSONError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func sortedUnique(xs []int) []int {
	slices.Sort(xs)
	return slices.Compact(xs)
}
