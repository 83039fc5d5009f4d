package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"
)

// FetchFunc fetches one sitemap for [Walk] and returns its body, which Walk
// closes. heed's crawler supplies one that goes through its robots.txt and
// pacing chain; an error it returns (a typed skip, say) is kept as is in
// SitemapReport.FetchErr and does not stop the walk. The body may be gzip
// or not: Parse detects it from the content.
type FetchFunc func(ctx context.Context, sitemapURL string) (io.ReadCloser, error)

// SitemapReport is what Walk did with one sitemap: where it was listed,
// and the Report of its parse (embedded, so r.URLs is the number of URLs
// it listed). When the fetch failed, FetchErr says why and the Report is
// empty but for a ProblemFetch.
type SitemapReport struct {
	// URL is the sitemap's URL as listed (resolved if it was relative).
	URL string
	// Parent is the index that listed it; empty for a root.
	Parent string
	// Depth is 0 for a root, 1 for a sitemap a root lists, and so on.
	Depth int
	// LastMod is the <lastmod> its parent index gave it; zero for a root.
	LastMod time.Time
	// FetchErr is the FetchFunc's error, if it failed.
	FetchErr error
	Report
}

// WalkReport is what one Walk read: a SitemapReport for every sitemap it
// fetched or tried to, in the order it did, and totals.
//
// Problems with a child sitemap that was not followed (a loop, a
// duplicate, too deep, over the limit, out of scope) are in the Report of
// the index that listed it; problems with the roots are in Problems here.
type WalkReport struct {
	Sitemaps []SitemapReport
	// URLs counts URL entries delivered without a Problem; Rejected those
	// delivered with one. Both sum over every sitemap.
	URLs     int
	Rejected int
	// FetchErrors counts sitemaps whose fetch failed.
	FetchErrors int
	// Truncated is true when the limit on sitemaps fetched left some out.
	Truncated bool

	Problems        []Problem
	ProblemsDropped int
	// Counts sums the problems of the walk and of every sitemap, by kind.
	Counts map[ProblemKind]int
}

// Walk reads the sitemaps at roots and every sitemap their indexes list,
// depth first in the order listed, and calls visit with every URL entry
// (Kind KindURL) of every sitemap; child sitemaps are followed by Walk and
// reported in WalkReport.Sitemaps, not passed to visit.
//
// Entries are delivered as Parse delivers them: Entry.Sitemap names the
// sitemap each came from, and entries with a Problem (out of scope,
// invalid) are delivered for the caller to account for. The same page
// listed by two sitemaps is delivered twice: deduplicating is the
// caller's, who knows what counts as the same URL.
//
// Walk fetches each sitemap once, by canonical URL (case of scheme and
// host, default port and fragment ignored), so a sitemap listing itself or
// a cycle of indexes ends. It follows indexes at most WithMaxDepth levels
// below a root and fetches at most WithMaxSitemaps sitemaps, roots first.
// Options apply to every sitemap parsed; WithBase is ignored: each sitemap
// is its own base, and WithScope applies to child sitemaps too.
//
// A nil visit only counts, for a walk that wants the reports alone.
//
// A failed fetch or a broken sitemap is recorded and the walk goes on.
// Walk returns an error only when visit returned one (as is) or ctx was
// cancelled; the WalkReport is never nil and holds what was done so far.
func Walk(ctx context.Context, roots []string, fetch FetchFunc, visit func(Entry) error, opts ...Option) (*WalkReport, error) {
	if visit == nil {
		visit = func(Entry) error { return nil }
	}
	if fetch == nil {
		return &WalkReport{Counts: make(map[ProblemKind]int)}, errors.New("sitemap: Walk needs a FetchFunc")
	}
	w := &walker{
		cfg:   newConfig(opts),
		fetch: fetch,
		visit: visit,
		seen:  make(map[string]bool),
		wr:    &WalkReport{Counts: make(map[ProblemKind]int)},
	}
	w.top = newReport("", w.cfg.maxProblems)
	defer w.finish()

	var start []child
	for _, r := range roots {
		canon, err := canonicalURL(r)
		switch {
		case err != nil:
			w.top.addProblem(ProblemInvalidURL, 0, r, "root sitemap: "+err.Error())
		case w.seen[canon]:
			w.top.addProblem(ProblemDuplicateSitemap, 0, r, "root listed twice")
		case w.reserved >= w.cfg.maxSitemaps:
			w.wr.Truncated = true
			w.top.addProblem(ProblemMaxSitemaps, 0, r, fmt.Sprintf("more than %d sitemaps; not fetched", w.cfg.maxSitemaps))
		default:
			w.seen[canon] = true
			w.reserved++
			start = append(start, child{url: r, canon: canon})
		}
	}
	for _, c := range start {
		if err := w.walk(ctx, c, nil); err != nil {
			return w.wr, err
		}
	}
	return w.wr, nil
}

type walker struct {
	cfg      config
	fetch    FetchFunc
	visit    func(Entry) error
	seen     map[string]bool // canonical URLs fetched or queued
	reserved int             // sitemaps fetched or queued
	wr       *WalkReport
	top      *Report // problems with roots
}

// child is a sitemap queued for fetching.
type child struct {
	url, canon, parent string
	lastmod            time.Time
	depth              int
}

func (w *walker) finish() {
	w.wr.Problems, w.wr.ProblemsDropped = w.top.Problems, w.top.ProblemsDropped
	for k, n := range w.top.Counts {
		w.wr.Counts[k] += n
	}
}

// walk fetches and parses one sitemap, then walks the children it lists.
// path holds the canonical URLs of the indexes that led to it.
func (w *walker) walk(ctx context.Context, c child, path []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cfg := w.cfg
	cfg.base = c.url
	sr := SitemapReport{URL: c.url, Parent: c.parent, Depth: c.depth, LastMod: c.lastmod}
	path = append(path, c.canon)

	body, err := w.fetch(ctx, c.url)
	if err == nil && body == nil {
		err = errors.New("sitemap: FetchFunc returned no body")
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		rep := newReport(c.url, cfg.maxProblems)
		rep.addProblem(ProblemFetch, 0, c.url, err.Error())
		sr.FetchErr, sr.Report = err, *rep
		w.wr.FetchErrors++
		w.record(&sr)
		return nil
	}

	var children []child
	var p *parser
	p = newParser(ctx, &cfg, func(e Entry) error {
		if e.Kind == KindSitemap {
			if k, ok := w.follow(p.rep, e, c, path); ok {
				children = append(children, k)
			}
			return nil
		}
		if e.Problem == "" {
			w.wr.URLs++
		} else {
			w.wr.Rejected++
		}
		return w.visit(e)
	})
	p.run(body)
	body.Close()
	sr.Report = *p.rep
	w.record(&sr)
	if p.stop != nil {
		return p.stop
	}
	for _, k := range children {
		if err := w.walk(ctx, k, path); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) record(sr *SitemapReport) {
	w.wr.Sitemaps = append(w.wr.Sitemaps, *sr)
	for k, n := range sr.Counts {
		w.wr.Counts[k] += n
	}
}

// follow decides whether a child sitemap listed by parent is fetched,
// reporting in rep why not.
func (w *walker) follow(rep *Report, e Entry, parent child, path []string) (child, bool) {
	if e.Problem != "" {
		return child{}, false // already reported by the parse
	}
	canon, err := canonicalURL(e.Loc)
	switch {
	case err != nil:
		rep.addProblem(ProblemInvalidURL, e.Line, e.Loc, err.Error())
	case slices.Contains(path, canon):
		detail := "the sitemap lists itself"
		if canon != parent.canon {
			detail = "the sitemap lists an index that led to it"
		}
		rep.addProblem(ProblemLoop, e.Line, e.Loc, detail+"; not fetched again")
	case w.seen[canon]:
		rep.addProblem(ProblemDuplicateSitemap, e.Line, e.Loc, "already fetched or queued in this walk")
	case parent.depth+1 > w.cfg.maxDepth:
		rep.addProblem(ProblemIndexDepth, e.Line, e.Loc, fmt.Sprintf("deeper than %d levels of index; not fetched", w.cfg.maxDepth))
	case w.reserved >= w.cfg.maxSitemaps:
		w.wr.Truncated = true
		rep.addProblem(ProblemMaxSitemaps, e.Line, e.Loc, fmt.Sprintf("more than %d sitemaps in this walk; not fetched", w.cfg.maxSitemaps))
	default:
		w.seen[canon] = true
		w.reserved++
		return child{url: e.Loc, canon: canon, parent: parent.url, lastmod: e.LastMod, depth: parent.depth + 1}, true
	}
	return child{}, false
}

// canonicalURL is the key Walk fetches a sitemap once by: lower-case
// scheme and host, no default port, "/" for an empty path, no fragment.
// The path and query are kept as written.
func canonicalURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", err
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute http or https URL", raw)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	key := authority(u) + path
	if u.RawQuery != "" || u.ForceQuery {
		key += "?" + u.RawQuery
	}
	return key, nil
}
