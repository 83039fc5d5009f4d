package sitemap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// site is an in-memory web site for Walk: URL to body; a missing URL
// fails with errNotFound.
type site map[string][]byte

type statusError struct{ status int }

func (e *statusError) Error() string { return fmt.Sprintf("status %d", e.status) }

func (s site) fetch(fetched *[]string) FetchFunc {
	return func(ctx context.Context, u string) (io.ReadCloser, error) {
		if fetched != nil {
			*fetched = append(*fetched, u)
		}
		b, ok := s[u]
		if !ok {
			return nil, &statusError{404}
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
}

func index(children ...string) []byte {
	var b strings.Builder
	b.WriteString("<sitemapindex " + ns + ">")
	for _, c := range children {
		b.WriteString("<sitemap><loc>" + c + "</loc><lastmod>2024-05-01</lastmod></sitemap>")
	}
	b.WriteString("</sitemapindex>")
	return []byte(b.String())
}

func pages(locs ...string) []byte {
	var b strings.Builder
	b.WriteString("<urlset " + ns + ">")
	for _, l := range locs {
		b.WriteString("<url><loc>" + l + "</loc></url>")
	}
	b.WriteString("</urlset>")
	return []byte(b.String())
}

type walkResult struct {
	entries []string // "sitemap URL -> loc [!problem]"
	fetched []string
	rep     *WalkReport
	err     error
}

func walk(t *testing.T, s site, roots []string, opts ...Option) walkResult {
	t.Helper()
	var r walkResult
	r.rep, r.err = Walk(context.Background(), roots, s.fetch(&r.fetched), func(e Entry) error {
		if e.Kind != KindURL {
			t.Errorf("visit got a %v entry", e.Kind)
		}
		s := e.Sitemap + " -> " + e.Loc
		if e.Problem != "" {
			s += " !" + string(e.Problem)
		}
		r.entries = append(r.entries, s)
		return nil
	}, opts...)
	if r.rep == nil {
		t.Fatal("nil WalkReport")
	}
	return r
}

func reportFor(t *testing.T, wr *WalkReport, u string) SitemapReport {
	t.Helper()
	for _, s := range wr.Sitemaps {
		if s.URL == u {
			return s
		}
	}
	t.Fatalf("no report for %s", u)
	return SitemapReport{}
}

func TestWalkIndexWithGzipAndFailures(t *testing.T) {
	const h = "https://example.com"
	s := site{
		h + "/sitemap.xml":        index(h+"/a.xml.gz", h+"/b.txt", h+"/missing.xml", h+"/broken.xml", "/c.xml"),
		h + "/a.xml.gz":           gz(t, pages(h+"/a1", h+"/a2", "https://elsewhere.example/x")),
		h + "/b.txt":              []byte(h + "/b1\n" + h + "/a1\n"),
		h + "/broken.xml":         []byte("<urlset " + ns + "><url><loc>" + h + "/k1</loc></url><url><loc>"),
		h + "/c.xml":              pages(h + "/c1"),
		h + "/robots-sitemap.xml": pages(h + "/r1"),
		"https://other.example/s": pages("https://other.example/o1"),
	}
	r := walk(t, s, []string{h + "/sitemap.xml", h + "/robots-sitemap.xml", "https://other.example/s"})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := []string{
		h + "/a.xml.gz -> " + h + "/a1",
		h + "/a.xml.gz -> " + h + "/a2",
		h + "/a.xml.gz -> https://elsewhere.example/x !out-of-scope",
		h + "/b.txt -> " + h + "/b1",
		h + "/b.txt -> " + h + "/a1", // duplicates across sitemaps are the caller's to count
		h + "/broken.xml -> " + h + "/k1",
		h + "/c.xml -> " + h + "/c1",
		h + "/robots-sitemap.xml -> " + h + "/r1",
		"https://other.example/s -> https://other.example/o1",
	}
	if !slices.Equal(r.entries, want) {
		t.Fatalf("entries:\n%s\nwant:\n%s", strings.Join(r.entries, "\n"), strings.Join(want, "\n"))
	}
	wantFetched := []string{h + "/sitemap.xml", h + "/a.xml.gz", h + "/b.txt", h + "/missing.xml", h + "/broken.xml", h + "/c.xml", h + "/robots-sitemap.xml", "https://other.example/s"}
	if !slices.Equal(r.fetched, wantFetched) {
		t.Fatalf("fetched %v", r.fetched)
	}
	wr := r.rep
	if wr.URLs != 8 || wr.Rejected != 1 || wr.FetchErrors != 1 || len(wr.Sitemaps) != 8 {
		t.Fatalf("urls %d rejected %d fetch errors %d sitemaps %d", wr.URLs, wr.Rejected, wr.FetchErrors, len(wr.Sitemaps))
	}
	if a := reportFor(t, wr, h+"/a.xml.gz"); !a.Compressed || a.URLs != 2 || a.Rejected != 1 || a.Parent != h+"/sitemap.xml" || a.Depth != 1 || a.LastMod.IsZero() {
		t.Fatalf("a.xml.gz report %+v", a)
	}
	missing := reportFor(t, wr, h+"/missing.xml")
	var se *statusError
	if !errors.As(missing.FetchErr, &se) || se.status != 404 || missing.Counts[ProblemFetch] != 1 {
		t.Fatalf("missing.xml: FetchErr %v, counts %v", missing.FetchErr, missing.Counts)
	}
	if b := reportFor(t, wr, h+"/broken.xml"); b.Err == nil || b.URLs != 1 {
		t.Fatalf("broken.xml %+v", b)
	}
	if root := reportFor(t, wr, h+"/sitemap.xml"); root.Format != FormatIndex || root.Sitemaps != 5 || root.Counts[ProblemRelativeURL] != 1 {
		t.Fatalf("root %+v", root.Report)
	}
	if wr.Counts[ProblemFetch] != 1 || wr.Counts[ProblemOutOfScope] != 1 || wr.Counts[ProblemMalformed] != 1 {
		t.Fatalf("walk counts %v", wr.Counts)
	}
}

func TestWalkLoops(t *testing.T) {
	const h = "https://example.com"
	tests := []struct {
		name    string
		site    site
		roots   []string
		fetched []string
		problem ProblemKind
		in      string // the sitemap whose report has the problem
	}{
		{
			name:    "index lists itself",
			site:    site{h + "/s.xml": index(h+"/s.xml", h+"/p.xml"), h + "/p.xml": pages(h + "/1")},
			roots:   []string{h + "/s.xml"},
			fetched: []string{h + "/s.xml", h + "/p.xml"},
			problem: ProblemLoop, in: h + "/s.xml",
		},
		{
			name:    "lists itself under another spelling",
			site:    site{h + "/s.xml": index("HTTPS://EXAMPLE.COM:443/s.xml#top")},
			roots:   []string{h + "/s.xml"},
			fetched: []string{h + "/s.xml"},
			problem: ProblemLoop, in: h + "/s.xml",
		},
		{
			name:    "A lists B lists A",
			site:    site{h + "/a.xml": index(h + "/b.xml"), h + "/b.xml": index(h + "/a.xml")},
			roots:   []string{h + "/a.xml"},
			fetched: []string{h + "/a.xml", h + "/b.xml"},
			problem: ProblemLoop, in: h + "/b.xml",
		},
		{
			name:    "two indexes list the same sitemap",
			site:    site{h + "/a.xml": index(h+"/b.xml", h+"/c.xml"), h + "/b.xml": index(h + "/c.xml"), h + "/c.xml": pages(h + "/1")},
			roots:   []string{h + "/a.xml"},
			fetched: []string{h + "/a.xml", h + "/b.xml", h + "/c.xml"},
			problem: ProblemDuplicateSitemap, in: h + "/b.xml",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := walk(t, tt.site, tt.roots)
			if r.err != nil || !slices.Equal(r.fetched, tt.fetched) {
				t.Fatalf("err %v, fetched %v, want %v", r.err, r.fetched, tt.fetched)
			}
			if rep := reportFor(t, r.rep, tt.in); rep.Counts[tt.problem] != 1 {
				t.Fatalf("%s problems %v, want %s", tt.in, rep.Problems, tt.problem)
			}
		})
	}
}

func TestWalkDepthLimit(t *testing.T) {
	// A chain of indexes, each listing the next, 10 deep.
	const h = "https://example.com"
	s := site{}
	for i := range 10 {
		s[fmt.Sprintf("%s/%d.xml", h, i)] = index(fmt.Sprintf("%s/%d.xml", h, i+1))
	}
	r := walk(t, s, []string{h + "/0.xml"}, WithMaxDepth(3))
	if len(r.fetched) != 4 || r.rep.Counts[ProblemIndexDepth] != 1 {
		t.Fatalf("fetched %v, counts %v", r.fetched, r.rep.Counts)
	}
	if last := reportFor(t, r.rep, h+"/3.xml"); last.Depth != 3 || last.Counts[ProblemIndexDepth] != 1 {
		t.Fatalf("%+v", last)
	}
	r = walk(t, s, []string{h + "/0.xml"})
	if len(r.fetched) != DefaultMaxDepth+1 {
		t.Fatalf("default depth: fetched %d", len(r.fetched))
	}
}

func TestWalkMaxSitemaps(t *testing.T) {
	const h = "https://example.com"
	var children []string
	s := site{}
	for i := range 50 {
		c := fmt.Sprintf("%s/c%d.xml", h, i)
		children = append(children, c)
		s[c] = pages(fmt.Sprintf("%s/p%d", h, i))
	}
	s[h+"/index.xml"] = index(children...)
	r := walk(t, s, []string{h + "/index.xml", h + "/second-root.xml"}, WithMaxSitemaps(10))
	if len(r.fetched) != 10 || !r.rep.Truncated || r.rep.Counts[ProblemMaxSitemaps] != 42 {
		t.Fatalf("fetched %d, truncated %v, counts %v", len(r.fetched), r.rep.Truncated, r.rep.Counts)
	}
	// Roots are reserved first: the second root is fetched although the
	// first one's children would fill the budget.
	if !slices.Contains(r.fetched, h+"/second-root.xml") {
		t.Fatalf("fetched %v", r.fetched)
	}
}

func TestWalkRoots(t *testing.T) {
	const h = "https://example.com"
	s := site{h + "/s.xml": pages(h + "/1")}
	r := walk(t, s, []string{h + "/s.xml", "HTTPS://example.com/s.xml", "not a url", "ftp://example.com/s.xml"})
	if len(r.fetched) != 1 || len(r.entries) != 1 {
		t.Fatalf("fetched %v", r.fetched)
	}
	kinds := []ProblemKind{}
	for _, p := range r.rep.Problems {
		kinds = append(kinds, p.Kind)
	}
	if !slices.Equal(kinds, []ProblemKind{ProblemDuplicateSitemap, ProblemInvalidURL, ProblemInvalidURL}) {
		t.Fatalf("root problems %v", r.rep.Problems)
	}
}

func TestWalkOutOfScopeChildNotFollowed(t *testing.T) {
	s := site{
		"https://example.com/dir/index.xml": index("https://example.com/other/s.xml", "https://cdn.example.net/s.xml", "https://example.com/dir/s.xml"),
		"https://example.com/dir/s.xml":     pages("https://example.com/dir/1"),
	}
	r := walk(t, s, []string{"https://example.com/dir/index.xml"}, WithScope(ScopeDirectory))
	if len(r.fetched) != 2 || r.rep.Counts[ProblemOutOfScope] != 2 {
		t.Fatalf("fetched %v, counts %v", r.fetched, r.rep.Counts)
	}
}

func TestWalkStops(t *testing.T) {
	const h = "https://example.com"
	s := site{
		h + "/i.xml": index(h+"/a.xml", h+"/b.xml"),
		h + "/a.xml": pages(h+"/1", h+"/2"),
		h + "/b.xml": pages(h + "/3"),
	}
	stop := errors.New("stop")
	var fetched []string
	wr, err := Walk(context.Background(), []string{h + "/i.xml"}, s.fetch(&fetched), func(e Entry) error { return stop })
	if err != stop || len(fetched) != 2 || wr.URLs != 1 {
		t.Fatalf("err %v, fetched %v, urls %d", err, fetched, wr.URLs)
	}

	ctx, cancel := context.WithCancel(context.Background())
	fetch := func(ctx context.Context, u string) (io.ReadCloser, error) {
		cancel()
		return nil, ctx.Err()
	}
	wr, err = Walk(ctx, []string{h + "/i.xml"}, fetch, func(Entry) error { return nil })
	if !errors.Is(err, context.Canceled) || wr == nil {
		t.Fatalf("err %v", err)
	}
}

type closeCounter struct {
	io.Reader
	closed *int
}

func (c closeCounter) Close() error { *c.closed++; return nil }

func TestWalkClosesBodies(t *testing.T) {
	const h = "https://example.com"
	s := site{h + "/i.xml": index(h + "/a.xml"), h + "/a.xml": pages(h + "/1")}
	closed := 0
	fetch := func(ctx context.Context, u string) (io.ReadCloser, error) {
		return closeCounter{bytes.NewReader(s[u]), &closed}, nil
	}
	if _, err := Walk(context.Background(), []string{h + "/i.xml"}, fetch, func(Entry) error { return nil }); err != nil || closed != 2 {
		t.Fatalf("err %v, closed %d of 2", err, closed)
	}
}

func TestWalkNilFuncs(t *testing.T) {
	const h = "https://example.com"
	s := site{h + "/s.xml": pages(h+"/1", h+"/2")}
	wr, err := Walk(context.Background(), []string{h + "/s.xml"}, s.fetch(nil), nil)
	if err != nil || wr.URLs != 2 {
		t.Fatalf("nil visit: err %v, urls %d", err, wr.URLs)
	}
	if wr, err := Walk(context.Background(), []string{h + "/s.xml"}, nil, nil); err == nil || wr == nil {
		t.Fatalf("nil fetch: err %v", err)
	}
	rep, err := Parse(context.Background(), bytes.NewReader(pages(h+"/1")), nil)
	if err != nil || rep.URLs != 1 {
		t.Fatalf("Parse with nil visit: %v %v", rep, err)
	}
}
