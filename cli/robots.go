package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/aipref"
	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/robots"
	"github.com/heedcrawl/heed/skiplog"
)

func (a *App) robotsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "robots",
		Short: "Check URLs against robots.txt and lint robots.txt files",
	}
	cmd.AddCommand(a.robotsCheckCommand(), a.robotsLintCommand())
	return cmd
}

// checkResult is one line of `heed robots check --json`: the URL as
// given, heed's report of the decision, and what robots check adds.
type checkResult struct {
	URL string `json:"url"`
	middleware.RobotsReport
	Error string `json:"error,omitempty"`
	// AgentNote says how an agent name with digits is read (robots.TokenNote).
	AgentNote string `json:"agent_note,omitempty"`
	// Usage is the robots.txt usage preference for each --purpose.
	Usage []usageResult `json:"usage,omitempty"`

	entry *middleware.RobotsEntry // the robots.txt the URL was decided by
	u     *url.URL
}

// usageResult is the robots.txt AI usage preference for one purpose, with
// its deciding Content-Usage rule (line 0 and no rule when unknown).
type usageResult struct {
	Purpose    string `json:"purpose"`
	Preference string `json:"preference"` // y, n or unknown
	Line       int    `json:"line,omitempty"`
	Rule       string `json:"rule,omitempty"`
}

func (a *App) robotsCheckCommand() *cobra.Command {
	stdout := a.stdout
	var af agentFlags
	var tf timeoutFlag
	var cf connFlags
	var pf purposeFlag
	var source string
	var jf jsonFlag
	cmd := &cobra.Command{
		Use:   "check --agent TOKEN [--robots FILE_OR_URL] URL...",
		Short: "Say whether robots.txt allows each URL for a product token, and which line decided",
		Long: `For each URL, print heed's verdict, the deciding line and rule, and the group
that applied. Without --robots, the robots.txt of each URL's authority is
fetched with RFC 9309's semantics (4xx: no restrictions; 5xx, 429, timeout:
everything disallowed; up to 5 redirects). With --robots, every URL is
checked against that file (a path, or an http(s) URL), and a URL may be a
bare path; without it, every URL must be absolute (scheme and host).

With --purpose, also print the AI usage preference robots.txt states for
that purpose (Content-Usage rules, draft-ietf-aipref-attach) and the line
that decided; it does not change the exit status.

With --json, each URL is one JSON object on a line of its own (url,
allowed, the deciding line and rule, the group, robots.txt's state and
status, and the usage preferences asked for) instead of text.

An agent name with digits (MJ12bot, 360Spider), which RFC 9309 does not
allow in a product token, is matched as a whole token, and the output says
how an RFC-strict parser and Google's read it.

Exit status: 0 when every URL is allowed, 1 when at least one is not,
2 on usage or I/O errors.`,
		Example: `  heed robots check --agent ExampleBot https://example.com/private/page
  heed robots check --agent ExampleBot --robots robots.txt --json /a /b?q=1`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := firstError(af.check(), tf.check(), cf.check(), pf.check()); err != nil {
				return err
			}
			if len(args) == 0 {
				return usageError("check needs at least one URL")
			}
			if source == "" {
				for _, raw := range args {
					if err := absoluteURL(raw); err != nil {
						return err
					}
				}
			}
			st, err := crawler.ResolveSettings(af.agent, cf.crawlerOptions()...)
			if err != nil {
				return usageError("%v", err)
			}
			cf.warn(a.stderr, a.name)
			fetch := &middleware.HTTPFetcher{Client: &http.Client{Timeout: tf.timeout, Transport: st.Transport}, UserAgent: af.effectiveUserAgent()}
			results, err := robotsCheck(cmd.Context(), af.agent, source, args, fetch)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			note := robots.TokenNote(af.agent)
			if note != "" && !jf.asJSON {
				fmt.Fprintf(stdout, "note: %s\n", note)
			}
			for i := range results {
				results[i].AgentNote = note
				results[i].Usage = checkUsage(results[i], pf.purposes)
			}
			allAllowed := true
			enc := json.NewEncoder(stdout)
			enc.SetEscapeHTML(false)
			for _, r := range results {
				allAllowed = allAllowed && r.Allowed
				if jf.asJSON {
					if err := enc.Encode(r); err != nil {
						return &exitError{code: 2, err: err}
					}
					continue
				}
				printCheck(stdout, r)
			}
			if !allAllowed {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	af.names = true
	af.register(fl, a.agentDefault())
	tf.register(fl)
	cf.register(fl)
	pf.register(fl, "also show the robots.txt usage preference for this purpose, with its deciding line")
	fl.StringVar(&source, "robots", "", "check against this robots.txt (file path or URL) instead of each URL's own")
	jf.register(fl)
	return cmd
}

func printCheck(w io.Writer, r checkResult) {
	verdict := "DISALLOWED"
	if r.Allowed {
		verdict = "ALLOWED"
	}
	fmt.Fprintf(w, "%-10s %s\n", verdict, r.URL)
	switch {
	case r.Error != "":
		fmt.Fprintf(w, "  %s\n", r.Error)
	case r.Implicit:
		fmt.Fprintln(w, "  /robots.txt is always allowed (RFC 9309 §2.2.2)")
	case r.Line > 0:
		fmt.Fprintf(w, "  line %d: %s\n", r.Line, r.Rule)
	case r.RobotsState == middleware.RobotsUnavailable.String():
		fmt.Fprintf(w, "  robots.txt unavailable (status %d): no restrictions\n", r.RobotsStatus)
	case r.RobotsState == middleware.RobotsUnreachable.String():
		fmt.Fprintf(w, "  robots.txt unreachable (status %d): complete disallow\n", r.RobotsStatus)
	default:
		fmt.Fprintln(w, "  no rule matches")
	}
	if len(r.Group) > 0 {
		parts := make([]string, len(r.Group))
		for i, g := range r.Group {
			parts[i] = fmt.Sprintf("%s (line %d)", g, r.GroupLines[i])
		}
		fmt.Fprintf(w, "  group: %s\n", strings.Join(parts, ", "))
	} else if r.RobotsState == middleware.RobotsAvailable.String() {
		fmt.Fprintln(w, "  group: none applies (no group names the agent and there is no *)")
	}
	if r.RobotsURL != "" {
		fmt.Fprintf(w, "  robots.txt: %s (status %d)\n", r.RobotsURL, r.RobotsStatus)
	}
	for _, u := range r.Usage {
		switch {
		case u.Line > 0:
			fmt.Fprintf(w, "  usage %s: %s (line %d: %s)\n", u.Purpose, u.Preference, u.Line, u.Rule)
		case !r.Allowed:
			fmt.Fprintf(w, "  usage %s: none (preferences apply only to URLs that may be crawled)\n", u.Purpose)
		default:
			fmt.Fprintf(w, "  usage %s: unknown (no Content-Usage rule states it)\n", u.Purpose)
		}
	}
}

// absoluteURL refuses, as a usage error, a URL robots check cannot
// decide without --robots: one without a scheme and host.
func absoluteURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return usageError("%q is not a URL: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return usageError("%q is not an absolute http(s) URL: robots check needs a scheme and host to find the robots.txt (or --robots FILE to check paths against one file)", raw)
	}
	return nil
}

// robotsCheck decides every URL, against source when given, else against
// each URL's own robots.txt.
func robotsCheck(ctx context.Context, agent, source string, urls []string, fetch middleware.Fetcher) ([]checkResult, error) {
	var fixed *middleware.RobotsFetch
	if source != "" {
		rf, err := loadRobots(ctx, source, fetch)
		if err != nil {
			return nil, err
		}
		fixed = rf
	}
	var stage *middleware.Robots
	if fixed == nil {
		stage = middleware.NewRobots(fetch, middleware.RobotsPolicy{Agent: agent})
	}
	var out []checkResult
	for _, raw := range urls {
		res := checkResult{URL: raw}
		if fixed != nil {
			res.RobotsURL, res.RobotsStatus, res.RobotsState = fixed.URL, fixed.Status, fixed.State.String()
			decide(&res, raw, middleware.NewRobotsEntry("", fixed, agent, 0))
			out = append(out, res)
			continue
		}
		auth, err := frontier.Authority(raw)
		if err != nil {
			res.Error, res.Reason = err.Error(), skiplog.InvalidURL
			out = append(out, res)
			continue
		}
		e, err := stage.Entry(ctx, auth)
		if err != nil {
			return nil, err
		}
		res.RobotsURL, res.RobotsStatus, res.RobotsState = e.URL, e.Status, e.State.String()
		if e.Err != "" && e.State == middleware.RobotsUnreachable {
			res.Error = "robots.txt unreachable: " + e.Err
		}
		decide(&res, raw, e)
		out = append(out, res)
	}
	return out, nil
}

// decide fills a result with heed's decision under the robots.txt entry
// (middleware.DecideRobots, as the crawl decides): unavailable allows
// everything, unreachable disallows everything.
func decide(res *checkResult, raw string, e *middleware.RobotsEntry) {
	u, err := url.Parse(raw)
	if err != nil {
		if e.State == middleware.RobotsAvailable {
			res.Error, res.Reason = err.Error(), skiplog.InvalidURL
			return
		}
		u = &url.URL{} // the file's rules do not apply: no path to decide
	}
	res.entry, res.u = e, u
	res.RobotsReport = middleware.DecideRobots(e, u, 0).Report()
}

// loadRobots reads a robots.txt from a file, or fetches it from a URL with
// RFC 9309's status semantics.
func loadRobots(ctx context.Context, source string, fetch middleware.Fetcher) (*middleware.RobotsFetch, error) {
	if strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://") {
		rf, err := middleware.FetchRobots(ctx, fetch, source, 5, nil)
		if err != nil {
			return nil, err
		}
		return rf, nil
	}
	body, err := os.ReadFile(source)
	if err != nil {
		return nil, err
	}
	return &middleware.RobotsFetch{URL: source, FinalURL: source, Status: 200, State: middleware.RobotsAvailable, Body: body}, nil
}

// lintResult is one line of `heed robots lint --json`, in the key style
// of check's output.
type lintResult struct {
	File     string          `json:"file"`
	Line     int             `json:"line"`
	Code     string          `json:"code"`
	Severity robots.Severity `json:"severity"`
	Message  string          `json:"message"`
	Related  []int           `json:"related,omitempty"`
}

func (a *App) robotsLintCommand() *cobra.Command {
	stdout, stderr := a.stdout, a.stderr
	var jf jsonFlag
	var tf timeoutFlag
	cmd := &cobra.Command{
		Use:   "lint FILE_OR_URL...",
		Short: "Report the traps in robots.txt files, with line numbers",
		Long: `Report what in a robots.txt file does not do what it seems to: named groups
that silently drop the * rules, lines that merge groups, rules outside any
group, misspelled fields, paths without a leading / (which match nothing),
a trailing * that does nothing, bad Crawl-delay values, relative Sitemap
URLs, malformed Content-Usage preferences, user-agent names with digits,
content past 500 KiB, and Disallow lines that advertise sensitive paths.
Several files (paths or URLs) are linted in turn, each finding prefixed by
its file. With --json, each finding is one JSON object on a line of its
own (keys: file, line, code, severity, message, related) instead of text.

Exit status: 0 when there are no findings, 1 when there are, 2 on usage
or I/O errors (the other files are still linted).`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("lint takes one or more files or URLs")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := tf.check(); err != nil {
				return err
			}
			fetch := &middleware.HTTPFetcher{Client: &http.Client{Timeout: tf.timeout}, UserAgent: "heed-lint (+https://github.com/heedcrawl/heed)"}
			enc := json.NewEncoder(stdout)
			enc.SetEscapeHTML(false)
			total := 0
			var failed error
			for _, name := range args {
				findings, err := lintOne(cmd.Context(), name, fetch)
				if err != nil {
					fmt.Fprintf(stderr, "heed: %v\n", err)
					failed = err
					continue
				}
				total += len(findings)
				for _, f := range findings {
					if jf.asJSON {
						if err := enc.Encode(lintResult{File: name, Line: f.Line, Code: f.Code, Severity: f.Severity, Message: f.Message, Related: f.Related}); err != nil {
							return &exitError{code: 2, err: err}
						}
						continue
					}
					fmt.Fprintf(stdout, "%s:%d: %s: %s [%s]\n", name, f.Line, f.Severity, f.Message, f.Code)
				}
			}
			if !jf.asJSON {
				switch {
				case total > 0:
					fmt.Fprintf(stdout, "%d findings\n", total)
				case failed == nil:
					fmt.Fprintln(stdout, "no findings")
				}
			}
			switch {
			case failed != nil:
				return &exitError{code: 2}
			case total > 0:
				return &exitError{code: 1}
			}
			return nil
		},
	}
	jf.register(cmd.Flags())
	tf.register(cmd.Flags())
	return cmd
}

// lintOne reads one robots.txt (file or URL) and lints it, with the
// usage vocabulary for its Content-Usage rules.
func lintOne(ctx context.Context, name string, fetch middleware.Fetcher) ([]robots.Finding, error) {
	rf, err := loadRobots(ctx, name, fetch)
	if err != nil {
		return nil, err
	}
	if rf.State != middleware.RobotsAvailable {
		msg := fmt.Sprintf("%s: robots.txt is %s (status %d)", name, rf.State, rf.Status)
		if rf.Err != "" {
			msg += ": " + rf.Err
		}
		return nil, errors.New(msg)
	}
	return robots.Lint(rf.Body, robots.WithUsageLabels(aipref.Labels()...)), nil
}

// checkUsage returns the robots.txt usage preference of a checked URL for
// each purpose, decided by middleware.DecideUsage as the crawl decides
// (without a page, so without its Content-Usage header).
func checkUsage(r checkResult, purposes []string) []usageResult {
	var out []usageResult
	for _, p := range purposes {
		ur := usageResult{Purpose: p, Preference: aipref.Unknown.String()}
		if r.entry != nil && r.u != nil && r.Error == "" {
			d := middleware.DecideUsage(r.entry, r.u, nil, p)
			ur.Preference = d.Value.String()
			if d.By != nil && d.Value != aipref.Unknown {
				ur.Line, ur.Rule = d.By.Line, d.By.Text
			}
		}
		out = append(out, ur)
	}
	return out
}
