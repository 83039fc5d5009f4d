package crawler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/sitemap"
	"github.com/heedcrawl/heed/skiplog"
)

// How sitemaps enter a crawl. A sitemap is a frontier.Request of Kind
// KindSitemap, queued like a page: the frontier deduplicates it (a sitemap
// listed twice, or an index listing itself, is read once), and it passes
// the whole chain, so robots.txt decides on it and the authority's pace
// applies. At the bottom of the chain the downloader streams its body
// instead of holding it, and sitemap.Parse reads it as it arrives: the
// child sitemaps of an index are queued one level deeper, the pages it
// lists are queued as pages with the sitemap's metadata in Request.Meta.
//
// Sitemaps come from WithSitemaps, from the Sitemap lines of each robots.txt
// the robots stage fetches (WithSitemapDiscovery), or from /sitemap.xml
// when a robots.txt lists none. With WithSitemapSeeds a seed is a site: it
// becomes a probe request for its /sitemap.xml, which makes the robots stage
// fetch the site's robots.txt; the probe is then read if it is the fallback
// or one of the listed sitemaps, and dropped, with nothing to account for,
// if robots.txt lists others.

// metaProbe marks a WithSitemapSeeds probe on its request.
const metaProbe = "heed.sitemap-probe"

// errProbeUnneeded ends a probe for /sitemap.xml made redundant by the
// Sitemap lines of the site's robots.txt. Nothing was discovered, so the
// engine accounts for nothing.
var errProbeUnneeded = errors.New("crawler: /sitemap.xml probe not needed: robots.txt lists the sitemaps")

// maxSitemapResults is how many sitemaps SitemapStats describes one by
// one; the rest are counted.
const maxSitemapResults = 1000

// SitemapStats is what a crawl did with sitemaps.
type SitemapStats struct {
	// Queued counts sitemaps admitted to the frontier; Read those answered
	// 2xx and parsed; Failed those answered another status (a missing
	// /sitemap.xml included) or not readable to the end (malformed, an
	// unknown format, a read error); Truncated those cut by a limit of
	// the sitemap package (50,000 entries, 50 MiB).
	Queued    int64 `json:"queued"`
	Read      int64 `json:"read"`
	Failed    int64 `json:"failed"`
	Truncated int64 `json:"truncated"`
	// Listed counts the page entries read; PagesQueued those admitted to
	// the frontier, Duplicates those it already knew, Skipped those
	// skip-logged (a problem, a filter).
	Listed      int64 `json:"listed"`
	PagesQueued int64 `json:"pages_queued"`
	Duplicates  int64 `json:"duplicates"`
	Skipped     int64 `json:"skipped"`
	// Probes counts /sitemap.xml probes of WithSitemapSeeds dropped
	// because robots.txt listed other sitemaps.
	Probes int64 `json:"probes_dropped"`
	// Sitemaps describes the first sitemaps fetched, one by one;
	// SitemapsDropped counts the others.
	Sitemaps        []SitemapResult `json:"sitemaps,omitempty"`
	SitemapsDropped int             `json:"sitemaps_dropped,omitempty"`
}

// SitemapResult is one sitemap fetched by a crawl.
type SitemapResult struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
	// Format is the document's format ("urlset", "index", "text", ...).
	Format     string `json:"format,omitempty"`
	Compressed bool   `json:"compressed,omitempty"`
	// Bytes is the uncompressed size read.
	Bytes int64 `json:"bytes"`
	// URLs and Sitemaps count the entries listed without a problem;
	// Rejected those with one.
	URLs     int `json:"urls"`
	Sitemaps int `json:"sitemaps"`
	Rejected int `json:"rejected,omitempty"`
	// TruncatedBy is "max-urls" or "max-bytes" when a limit cut the
	// document.
	TruncatedBy string `json:"truncated_by,omitempty"`
	// Err says why the sitemap could not be read to the end.
	Err string `json:"error,omitempty"`
}

// Format writes the sitemap counts in a few lines; nothing when the crawl
// read no sitemap.
func (s SitemapStats) Format(w io.Writer) error {
	if s.Queued == 0 && s.Read == 0 && s.Failed == 0 {
		return nil
	}
	probes := ""
	if s.Probes > 0 {
		probes = fmt.Sprintf(" (%d /sitemap.xml probes not needed)", s.Probes)
	}
	_, err := fmt.Fprintf(w, "sitemaps: %d queued%s, %d read, %d failed, %d truncated\n  listed %d pages: %d queued, %d already known, %d skipped\n",
		s.Queued, probes, s.Read, s.Failed, s.Truncated, s.Listed, s.PagesQueued, s.Duplicates, s.Skipped)
	return err
}

// sitemapReader is a crawl's sitemap discovery and reading.
type sitemapReader struct {
	r   *run
	cfg *sitemapConfig

	mu       sync.Mutex
	seedAuth map[string]bool // WithSitemapSeeds: the sites to discover
	perAuth  map[string]int
	seen     map[string]struct{}               // canonical URLs of sitemaps queued
	logged   map[frontier.Fingerprint]struct{} // URLs skip-logged here
	st       SitemapStats
}

func newSitemapReader(r *run, cfg *sitemapConfig) *sitemapReader {
	cfg.defaults()
	return &sitemapReader{r: r, cfg: cfg, seedAuth: map[string]bool{}, perAuth: map[string]int{}, seen: map[string]struct{}{}, logged: map[frontier.Fingerprint]struct{}{}}
}

// start queues the sitemaps the user gave and, for WithSitemapSeeds, a
// probe per seed's site; it returns the seeds left to queue as pages.
func (m *sitemapReader) start(ctx context.Context, seeds []string) []string {
	for _, u := range m.cfg.urls {
		m.queueSitemap(ctx, strings.TrimSpace(u), 0, "", false, nil)
	}
	if !m.cfg.seeds {
		return seeds
	}
	var pages []string
	for _, s := range seeds {
		auth, err := frontier.Authority(strings.TrimSpace(s))
		if err != nil {
			pages = append(pages, s) // queued as a page, the frontier records it as invalid
			continue
		}
		m.mu.Lock()
		m.seedAuth[auth] = true
		m.mu.Unlock()
		m.queueSitemap(ctx, auth+"/sitemap.xml", 0, "", false, map[string]string{metaProbe: "1"})
	}
	return pages
}

// discover queues the sitemaps of a freshly fetched robots.txt.
func (m *sitemapReader) discover(e *middleware.RobotsEntry) {
	m.mu.Lock()
	seed := m.seedAuth[e.Authority]
	m.mu.Unlock()
	if !(m.cfg.discover || seed) || e.State == middleware.RobotsUnreachable {
		return
	}
	for _, s := range e.Sitemaps {
		m.queueSitemap(m.r.work, s, 0, e.URL, true, nil)
	}
	if len(e.Sitemaps) == 0 && !m.cfg.noFallback {
		m.queueSitemap(m.r.work, e.Authority+"/sitemap.xml", 0, e.URL, false, nil)
	}
}

// queueSitemap queues one sitemap. listed says it was listed by robots.txt
// or an index, where the follow patterns apply.
func (m *sitemapReader) queueSitemap(ctx context.Context, rawURL string, depth int, referrer string, listed bool, meta map[string]string) {
	req := &frontier.Request{URL: rawURL, Kind: frontier.KindSitemap, Depth: depth, Referrer: referrer, Meta: meta}
	canon, err := frontier.Canonicalize(rawURL)
	if err != nil {
		m.r.enqueue(ctx, req) // the frontier records it as invalid
		return
	}
	auth, _ := frontier.Authority(canon)
	m.mu.Lock()
	if _, dup := m.seen[canon]; dup {
		m.mu.Unlock()
		m.r.enqueue(ctx, req) // counted as a duplicate by the frontier
		return
	}
	var reason skiplog.Reason
	var detail string
	switch {
	case listed && len(m.cfg.follow) > 0 && !matchAny(m.cfg.follow, canon):
		reason, detail = skiplog.SitemapFilter, "sitemap matches no follow pattern"
	case depth > m.cfg.maxDepth:
		reason, detail = skiplog.SitemapLimit, fmt.Sprintf("sitemap index nested %d levels deep, over the limit of %d", depth, m.cfg.maxDepth)
	case m.perAuth[auth] >= m.cfg.perAuth:
		reason, detail = skiplog.SitemapLimit, fmt.Sprintf("already %d sitemaps from %s, the limit", m.perAuth[auth], auth)
	default:
		m.seen[canon] = struct{}{}
		m.perAuth[auth]++
	}
	m.mu.Unlock()
	if reason != "" {
		m.skipOnce(&skiplog.Record{URL: canon, Authority: auth, Reason: reason, Detail: detail, Depth: depth, Referrer: referrer})
		return
	}
	added := m.r.enqueue(ctx, req) == frontier.Added
	m.mu.Lock()
	if added {
		m.st.Queued++
	} else {
		m.perAuth[auth]-- // refused by the frontier's admission: not read
	}
	m.mu.Unlock()
}

// stage drops a WithSitemapSeeds probe that robots.txt made redundant. It
// sits after the robots stage, which has fetched the site's robots.txt.
func (m *sitemapReader) stage() middleware.Stage {
	return func(next middleware.Fetcher) middleware.Fetcher {
		return middleware.FetcherFunc(func(ctx context.Context, req *frontier.Request) (*middleware.Response, error) {
			if req.Kind == frontier.KindSitemap && req.Meta[metaProbe] != "" && !m.probeNeeded(req) {
				m.mu.Lock()
				m.st.Probes++
				m.mu.Unlock()
				return nil, errProbeUnneeded
			}
			return next.Fetch(ctx, req)
		})
	}
}

func (m *sitemapReader) probeNeeded(req *frontier.Request) bool {
	e, ok := m.r.robots.Cached(req.Authority())
	if !ok {
		return true
	}
	if len(e.Sitemaps) == 0 {
		return !m.cfg.noFallback
	}
	for _, s := range e.Sitemaps {
		if c, err := frontier.Canonicalize(s); err == nil && c == req.URL {
			return true
		}
	}
	return false
}

// handle reads a sitemap response: redirects go back to the frontier,
// other statuses are counted, and a 2xx body is parsed as it streams in.
func (m *sitemapReader) handle(ctx context.Context, resp *middleware.Response) {
	req := resp.Request
	body := resp.Stream
	if body == nil { // a downloader that does not stream
		body = io.NopCloser(bytes.NewReader(resp.Body))
	}
	defer body.Close()
	auth := req.Authority()
	res := SitemapResult{URL: req.URL, Status: resp.Status}
	if resp.Status >= 300 && resp.Status < 400 && resp.Header.Get("Location") != "" {
		m.r.stats.fetched(auth, resp.Status, 0)
		if req.Meta[metaProbe] != "" {
			// The target is a sitemap in its own right, not a probe.
			meta := make(map[string]string, len(req.Meta))
			for k, v := range req.Meta {
				if k != metaProbe {
					meta[k] = v
				}
			}
			req.Meta = meta
		}
		m.r.redirect(ctx, resp)
		return
	}
	if resp.Status < 200 || resp.Status >= 300 {
		m.r.stats.fetched(auth, resp.Status, 0)
		res.Err = fmt.Sprintf("status %d", resp.Status)
		m.result(res, false)
		m.r.cfg.logger.Info("sitemap not read", "url", req.URL, "status", resp.Status)
		return
	}
	rep, err := sitemap.Parse(ctx, body, func(e sitemap.Entry) error {
		m.entry(ctx, req, e)
		return nil
	}, sitemap.WithBase(req.URL), sitemap.WithScope(m.cfg.scope))
	m.r.stats.fetched(auth, resp.Status, int(rep.Bytes))
	if err == nil {
		err = rep.Err
	}
	res.Format, res.Compressed, res.Bytes = rep.Format.String(), rep.Compressed, rep.Bytes
	res.URLs, res.Sitemaps, res.Rejected = rep.URLs, rep.Sitemaps, rep.Rejected
	if rep.Truncated {
		res.TruncatedBy = string(rep.TruncatedBy)
	}
	if err != nil {
		res.Err = err.Error()
	}
	m.result(res, err == nil)
	attrs := []any{"url", req.URL, "format", res.Format, "urls", rep.URLs, "sitemaps", rep.Sitemaps, "rejected", rep.Rejected}
	if res.TruncatedBy != "" {
		attrs = append(attrs, "truncated", res.TruncatedBy)
	}
	if res.Err != "" {
		attrs = append(attrs, "error", res.Err)
	}
	m.r.cfg.logger.Info("sitemap read", attrs...)
}

func (m *sitemapReader) result(res SitemapResult, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok {
		m.st.Read++
	} else {
		m.st.Failed++
	}
	if res.TruncatedBy != "" {
		m.st.Truncated++
	}
	if len(m.st.Sitemaps) < maxSitemapResults {
		m.st.Sitemaps = append(m.st.Sitemaps, res)
	} else {
		m.st.SitemapsDropped++
	}
}

// entry handles one entry of a sitemap being read.
func (m *sitemapReader) entry(ctx context.Context, parent *frontier.Request, e sitemap.Entry) {
	if e.Kind == sitemap.KindURL {
		m.mu.Lock()
		m.st.Listed++
		m.mu.Unlock()
	}
	if e.Problem != "" {
		reason := skiplog.InvalidURL
		if e.Problem == sitemap.ProblemOutOfScope {
			reason = skiplog.SitemapScope
		}
		m.skipEntry(parent, e, reason, fmt.Sprintf("%s: %s", e.Problem, e.Detail))
		return
	}
	if e.Kind == sitemap.KindSitemap {
		m.queueSitemap(ctx, e.Loc, parent.Depth+1, parent.URL, true, nil)
		return
	}
	if why := entryFilter(m.cfg, e); why != "" {
		m.skipEntry(parent, e, skiplog.SitemapFilter, why)
		return
	}
	callback, ok := m.callback(e.Loc)
	if !ok {
		m.skipEntry(parent, e, skiplog.SitemapFilter, "matches no sitemap rule")
		return
	}
	req := &frontier.Request{URL: e.Loc, Referrer: parent.URL, Callback: callback, Meta: entryMeta(parent.URL, e)}
	res := m.r.enqueue(ctx, req)
	m.mu.Lock()
	switch res {
	case frontier.Added:
		m.st.PagesQueued++
	case frontier.Duplicate:
		m.st.Duplicates++
	default:
		m.st.Skipped++ // the frontier's admission refused it, and the engine logged why
	}
	m.mu.Unlock()
}

func (m *sitemapReader) callback(loc string) (string, bool) {
	if len(m.cfg.rules) == 0 {
		return "", true
	}
	for _, rule := range m.cfg.rules {
		if rule.pattern.MatchString(loc) {
			return rule.callback, true
		}
	}
	return "", false
}

// skipEntry skip-logs an entry a sitemap listed, once per URL.
func (m *sitemapReader) skipEntry(parent *frontier.Request, e sitemap.Entry, reason skiplog.Reason, why string) {
	detail := fmt.Sprintf("listed in %s line %d: %s", parent.URL, e.Line, why)
	if e.Kind == sitemap.KindURL {
		m.mu.Lock()
		m.st.Skipped++
		m.mu.Unlock()
	}
	m.skipOnce(&skiplog.Record{URL: e.Loc, Reason: reason, Detail: detail, Depth: parent.Depth + 1, Referrer: parent.URL})
}

// skipOnce writes a record unless the same URL was skip-logged by sitemap
// reading before: a URL listed by two sitemaps is one excluded URL.
func (m *sitemapReader) skipOnce(rec *skiplog.Record) {
	key := rec.URL
	if c, err := frontier.Canonicalize(rec.URL); err == nil {
		key = c
	}
	fp := frontier.NewFingerprint("", key)
	m.mu.Lock()
	_, dup := m.logged[fp]
	if !dup {
		m.logged[fp] = struct{}{}
	}
	m.mu.Unlock()
	if !dup {
		m.r.skip(rec)
	}
}

func (m *sitemapReader) snapshot() SitemapStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.st
	s.Sitemaps = append([]SitemapResult(nil), m.st.Sitemaps...)
	return s
}

// entryFilter returns why the user's sitemap filters refuse an entry, or
// "" when they keep it. The inventory applies the same filters.
func entryFilter(cfg *sitemapConfig, e sitemap.Entry) string {
	if !cfg.since.IsZero() && !e.LastMod.IsZero() && e.LastMod.Before(cfg.since) {
		return fmt.Sprintf("lastmod %s is before %s", e.LastModRaw, cfg.since.Format("2006-01-02T15:04:05Z07:00"))
	}
	for _, re := range cfg.exclude {
		if re.MatchString(e.Loc) {
			return "matches sitemap exclude pattern " + re.String()
		}
	}
	if len(cfg.include) > 0 && !matchAny(cfg.include, e.Loc) {
		return "matches no sitemap include pattern"
	}
	return ""
}

// entryMeta is the Meta a listed page carries to its callbacks.
func entryMeta(sitemapURL string, e sitemap.Entry) map[string]string {
	meta := map[string]string{MetaSitemap: sitemapURL}
	if e.LastModRaw != "" {
		meta[MetaLastMod] = e.LastModRaw
	}
	if e.ChangeFreq != "" {
		meta[MetaChangeFreq] = e.ChangeFreq
	}
	if p := FormatPriority(e); p != "" {
		meta[MetaPriority] = p
	}
	return meta
}

// FormatPriority writes a priority with at least one decimal, as sitemaps
// write them ("1.0", "0.5", "0.85"); "" when absent.
func FormatPriority(e sitemap.Entry) string {
	if !e.HasPriority {
		return ""
	}
	s := strconv.FormatFloat(e.Priority, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func matchAny(patterns []*regexp.Regexp, s string) bool {
	for _, re := range patterns {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}
