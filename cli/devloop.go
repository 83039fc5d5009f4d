package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"github.com/antchfx/htmlquery"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/net/html"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/skiplog"
)

// The developer's loop: fetch one page as heed would, try selectors on
// it, run one callback of a spider on it (live, from --cache, or from a
// fixture file).

// oneFlags are the settings of one request as heed makes it: who asks,
// the timeout, the body limit, headers, and the cache.
type oneFlags struct {
	agentFlags
	timeoutFlag
	cacheFlags
	connFlags
	maxBodyFlag
	retryFlags // crawl's --retries and --retry-wait, with their defaults
	// warnTo and program are where and as whom fetchOne warns of what
	// the flags weaken (--insecure-skip-verify).
	warnTo  io.Writer
	program string
}

func (f *oneFlags) register(fs *pflag.FlagSet, spiderName string) {
	f.agentFlags.register(fs, spiderName)
	f.timeoutFlag.register(fs)
	f.cacheFlags.register(fs)
	f.connFlags.register(fs)
	f.maxBodyFlag.register(fs)
	f.retryFlags.register(fs)
}

func (f *oneFlags) check() error {
	return firstError(f.agentFlags.check(), f.timeoutFlag.check(), f.cacheFlags.check(), f.connFlags.check(), f.maxBodyFlag.check(),
		f.retryFlags.check())
}

// fetched is what fetchOne got: the response, or the skip-log record
// that refused the URL.
type fetched struct {
	resp *crawler.Response
	rec  *skiplog.Record
	sum  crawler.Summary
}

// fetchOne makes one request as a crawl would (robots.txt, User-Agent,
// decompression, size limit, redirects each checked), and returns the
// final response or the record of the exclusion.
func (f *oneFlags) fetchOne(ctx context.Context, rawURL string, extra ...crawler.Option) (*fetched, error) {
	if f.warnTo != nil {
		f.connFlags.warn(f.warnTo, f.program)
	}
	opts := []crawler.Option{crawler.WithDelay(0), crawler.WithTimeout(f.timeout), crawler.WithMaxBodySize(f.maxBodyFlag.bytes()),
		crawler.WithWorkers(1), crawler.WithRetries(f.retries, f.wait)}
	opts = append(opts, f.connFlags.crawlerOptions()...)
	if f.userAgent != "" {
		opts = append(opts, crawler.WithUserAgent(f.userAgent))
	}
	cache, err := f.cacheFlags.open()
	if err != nil {
		return nil, err
	}
	if cache != nil {
		opts = append(opts, crawler.WithHTTPCache(cache))
	}
	c, err := crawler.New(f.agent, append(opts, extra...)...)
	if err != nil {
		return nil, usageError("%v", err)
	}
	if err := f.cacheFlags.bound(); err != nil {
		return nil, err
	}
	out := &fetched{}
	keep := func(r *crawler.Response) { out.resp = r }
	c.OnResponse(keep)
	c.OnError(func(r *crawler.Response, _ error) { keep(r) })
	c.OnSkip(func(rec *skiplog.Record) {
		if out.rec == nil {
			out.rec = rec
		}
	})
	out.sum, err = c.Run(ctx, rawURL)
	if err != nil {
		return nil, &exitError{code: 1, err: err}
	}
	if out.resp == nil && out.rec == nil {
		return nil, &exitError{code: 1, err: fmt.Errorf("%s: no response", rawURL)}
	}
	return out, nil
}

// printRefusal is the exit of a URL heed did not fetch: status 1, with the
// record's reason and, for robots.txt, the deciding line, rule and group.
func printRefusal(w io.Writer, rec *skiplog.Record) error {
	fmt.Fprintf(w, "not fetched: %s\n", rec.Error())
	if r := rec.Robots; r != nil {
		fmt.Fprintf(w, "robots.txt: %s (status %d, fetched %s)\n", r.URL, r.Status, r.FetchedAt.Format("2006-01-02T15:04:05Z07:00"))
		if r.Line > 0 {
			fmt.Fprintf(w, "line %d: %s\ngroup: %s (lines %v)\n", r.Line, r.Rule, strings.Join(r.Group, ", "), r.GroupLines)
		}
	}
	return &exitError{code: 1}
}

func (a *App) fetchCommand() *cobra.Command {
	f := oneFlags{warnTo: a.stderr, program: a.name}
	var out, fixture string
	cmd := &cobra.Command{
		Use:   "fetch --agent TOKEN URL",
		Short: "Fetch one URL as heed would, robots.txt checked, and print the status, headers and body",
		Long: `Make the one request a crawl would make for URL: robots.txt fetched and
obeyed for the agent token, heed's User-Agent, decompression, the body size
limit, and each redirect checked against the robots.txt of its host. The
status line and the headers go to stderr, the body to stdout (or --out);
--fixture saves the response for tests (package heedtest reads it back).

When robots.txt (or any other rule) refuses the URL, nothing is fetched
and the exit status is 1, with the deciding line, rule and group.

Exit status: 0 on a response (any HTTP status), 1 when the URL was not
fetched, 2 on usage or I/O errors.`,
		Example: `  heed fetch --agent ExampleBot https://example.com/page
  heed fetch --agent ExampleBot --fixture testdata/page.html https://example.com/page
  heed fetch --agent ExampleBot --cache .heed-cache https://example.com/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := firstError(f.check(), absoluteURL(args[0])); err != nil {
				return err
			}
			got, err := f.fetchOne(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if got.resp == nil {
				return printRefusal(a.stderr, got.rec)
			}
			r := got.resp
			printHead(a.stderr, r, got.sum)
			if fixture != "" {
				m := heedtest.Meta{URL: r.Request.URL, Status: r.StatusCode, Header: r.Header}
				if err := heedtest.WriteFixture(fixture, m, r.Body); err != nil {
					return &exitError{code: 2, err: err}
				}
				fmt.Fprintf(a.stderr, "fixture: %s (and %s)\n", fixture, heedtest.MetaPath(fixture))
			}
			w := a.stdout
			if out != "" {
				if err := os.WriteFile(out, r.Body, 0o644); err != nil {
					return &exitError{code: 2, err: err}
				}
				return nil
			}
			if fixture != "" {
				return nil
			}
			if _, err := w.Write(r.Body); err != nil {
				return &exitError{code: 2, err: err}
			}
			return nil
		},
	}
	f.register(cmd.Flags(), a.agentDefault())
	cmd.Flags().StringVar(&out, "out", "", "write the body to this file instead of stdout")
	cmd.Flags().StringVar(&fixture, "fixture", "", "save the response as a test fixture: the body in this file, its URL, status and headers beside it in FILE.meta.json")
	return cmd
}

// printHead writes the status line, the redirects followed and the
// headers.
func printHead(w io.Writer, r *crawler.Response, sum crawler.Summary) {
	for _, u := range r.Request.Redirects {
		fmt.Fprintf(w, "redirected from %s\n", u)
	}
	from := ""
	if sum.Stats.CacheHits > 0 {
		from = " (from the cache)"
	}
	fmt.Fprintf(w, "%s %d %s%s\n", r.Request.URL, r.StatusCode, http.StatusText(r.StatusCode), from)
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range r.Header[k] {
			fmt.Fprintf(w, "%s: %s\n", k, v)
		}
	}
	fmt.Fprintln(w)
}

func (a *App) selectCommand() *cobra.Command {
	f := oneFlags{warnTo: a.stderr, program: a.name}
	var attr string
	var outer, xpath bool
	cmd := &cobra.Command{
		Use:   "select URL|FILE SELECTOR",
		Short: "Print what a CSS selector or an XPath matches on a page, live or saved",
		Long: `Print every match of SELECTOR on the page: its text (default), an attribute
(--attr NAME) or its outer HTML (--html), one per line. The page is a saved
file when FILE exists, else URL fetched as heed fetch does (--agent needed,
robots.txt obeyed, --cache honoured). SELECTOR is CSS unless --xpath is
given or it starts with '/' or '('.

Exit status: 0 when something matched, 1 when nothing did (or the URL was
not fetched), 2 on usage errors or a bad selector.`,
		Example: `  heed select --agent ExampleBot https://example.com/ 'h1'
  heed select page.html 'a.next' --attr href
  heed select page.html '//table//tr[2]' --html`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			body, err := a.page(cmd.Context(), &f, args[0])
			if err != nil {
				return err
			}
			sel := args[1]
			var matches []string
			if xpath || strings.HasPrefix(sel, "/") || strings.HasPrefix(sel, "(") {
				matches, err = selectXPath(body, sel, attr, outer)
			} else {
				matches, err = selectCSS(body, sel, attr, outer)
			}
			if err != nil {
				return usageError("selector %q: %v", sel, err)
			}
			for _, m := range matches {
				fmt.Fprintln(a.stdout, m)
			}
			if len(matches) == 0 {
				return &exitError{code: 1, err: fmt.Errorf("%q matches nothing on %s", sel, args[0])}
			}
			return nil
		},
	}
	f.register(cmd.Flags(), a.agentDefault())
	cmd.Flags().StringVar(&attr, "attr", "", "print this attribute of each match instead of its text")
	cmd.Flags().BoolVar(&outer, "html", false, "print each match's outer HTML")
	cmd.Flags().BoolVar(&xpath, "xpath", false, "read SELECTOR as XPath")
	return cmd
}

// page returns a saved file's body, or a URL's fetched as heed would.
func (a *App) page(ctx context.Context, f *oneFlags, arg string) ([]byte, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		b, err := os.ReadFile(arg)
		if err != nil {
			return nil, &exitError{code: 2, err: err}
		}
		return b, nil
	}
	if err := firstError(f.check(), absoluteURL(arg)); err != nil {
		return nil, err
	}
	got, err := f.fetchOne(ctx, arg)
	if err != nil {
		return nil, err
	}
	if got.resp == nil {
		return nil, printRefusal(a.stderr, got.rec)
	}
	return got.resp.Body, nil
}

func selectCSS(body []byte, sel, attr string, outer bool) (out []string, err error) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	compiled, err := cascadia.Compile(sel)
	if err != nil {
		return nil, err
	}
	doc.FindMatcher(compiled).Each(func(_ int, s *goquery.Selection) {
		switch {
		case attr != "":
			if v, ok := s.Attr(attr); ok {
				out = append(out, v)
			}
		case outer:
			h, _ := goquery.OuterHtml(s)
			out = append(out, h)
		default:
			out = append(out, strings.TrimSpace(s.Text()))
		}
	})
	return out, nil
}

func selectXPath(body []byte, sel, attr string, outer bool) ([]string, error) {
	doc, err := htmlquery.Parse(strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	nodes, err := htmlquery.QueryAll(doc, sel)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range nodes {
		switch {
		case attr != "":
			if n.Type == html.ElementNode {
				for _, at := range n.Attr {
					if at.Key == attr {
						out = append(out, at.Val)
					}
				}
			}
		case outer:
			out = append(out, htmlquery.OutputHTML(n, true))
		default:
			out = append(out, strings.TrimSpace(htmlquery.InnerText(n)))
		}
	}
	return out, nil
}

func (a *App) parseCommand() *cobra.Command {
	f := oneFlags{warnTo: a.stderr, program: a.name}
	var callback, spiderFlag, fixtureURL string
	cmd := &cobra.Command{
		Use:   "parse URL|FILE --callback NAME",
		Short: "Run one callback of the spider on one response and print its items and requests",
		Long: `Run the spider's callback NAME (empty: the default callbacks) on one
response and print what it produced, as scrapy parse does: each item as a
JSON line on stdout, each follow-up request as "request METHOD URL
callback=NAME" on stderr. The response is a fixture file when FILE exists
(its URL from FILE.meta.json, or --url), else URL fetched as heed fetch
does (robots.txt obeyed; --cache to replay it).

Exit status: 0 on success, 1 when the URL was not fetched or a callback
panicked, 2 on usage errors.`,
		Example: `  shop parse https://shop.example/p/1 --callback product
  shop parse testdata/product.html --callback product --url https://shop.example/p/1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spider, err := a.chooseSpider(spiderFlag)
			if err != nil {
				return err
			}
			if f.agent == "" {
				f.agent = spider.Name()
			}
			var opts []crawler.Option
			if so, ok := spider.(crawler.SpiderOptions); ok {
				opts = so.Options()
			}
			c, err := crawler.NewSpider(spider, crawler.WithUserAgent(download.DefaultUserAgent(f.agent)))
			if err != nil {
				return usageError("%v", err)
			}
			var resp *middleware.Response
			if st, err := os.Stat(args[0]); err == nil && !st.IsDir() {
				if resp, err = heedtest.Fixture(args[0], fixtureURL); err != nil {
					return &exitError{code: 2, err: err}
				}
			} else {
				if err := firstError(f.check(), absoluteURL(args[0])); err != nil {
					return err
				}
				got, err := f.fetchOne(cmd.Context(), args[0], opts...)
				if err != nil {
					return err
				}
				if got.resp == nil {
					return printRefusal(a.stderr, got.rec)
				}
				r := got.resp
				resp = &middleware.Response{Request: &frontier.Request{URL: r.Request.URL}, URL: r.Request.URL,
					Status: r.StatusCode, Header: r.Header, Body: r.Body}
			}
			res, err := c.Parse(cmd.Context(), callback, resp)
			if err != nil {
				return usageError("%v", err)
			}
			enc := json.NewEncoder(a.stdout)
			enc.SetEscapeHTML(false)
			for _, it := range res.Items {
				if err := enc.Encode(it); err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			for _, r := range res.Requests {
				m := r.Method
				if m == "" {
					m = http.MethodGet
				}
				fmt.Fprintf(a.stderr, "request %s %s callback=%s\n", m, r.URL, r.Callback)
			}
			fmt.Fprintf(a.stderr, "%d items, %d requests\n", len(res.Items), len(res.Requests))
			if res.CallbackErrors > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d callbacks panicked", res.CallbackErrors)}
			}
			return nil
		},
	}
	f.register(cmd.Flags(), "")
	cmd.Flags().StringVar(&callback, "callback", "", "the callback (handler) name to run; empty for the spider's default callbacks")
	cmd.Flags().StringVar(&spiderFlag, "spider", "", "the spider to use, by name, when the program has several")
	cmd.Flags().StringVar(&fixtureURL, "url", "", "the URL of a fixture FILE without a .meta.json")
	return cmd
}
