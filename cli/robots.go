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

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/robots"
)

func (a *App) robotsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "robots",
		Short: "Check URLs against robots.txt and lint robots.txt files",
	}
	cmd.AddCommand(a.robotsCheckCommand(), a.robotsLintCommand())
	return cmd
}

// checkResult is one line of `heed robots check --json`.
type checkResult struct {
	URL          string   `json:"url"`
	Allowed      bool     `json:"allowed"`
	Line         int      `json:"line"`
	Rule         string   `json:"rule"`
	Group        []string `json:"group"`
	GroupLines   []int    `json:"group_lines"`
	Implicit     bool     `json:"implicit,omitempty"`
	RobotsURL    string   `json:"robots_url"`
	RobotsStatus int      `json:"robots_status"`
	RobotsState  string   `json:"robots_state"`
	Error        string   `json:"error,omitempty"`
}

func (a *App) robotsCheckCommand() *cobra.Command {
	stdout := a.stdout
	var af agentFlags
	var tf timeoutFlag
	var source string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check --agent TOKEN [--robots FILE_OR_URL] URL...",
		Short: "Say whether robots.txt allows each URL for a product token, and which line decided",
		Long: `For each URL, print heed's verdict, the deciding line and rule, and the group
that applied. Without --robots, the robots.txt of each URL's authority is
fetched with RFC 9309's semantics (4xx: no restrictions; 5xx, 429, timeout:
everything disallowed; up to 5 redirects). With --robots, every URL is
checked against that file (a path, or an http(s) URL).

Exit status: 0 when every URL is allowed, 1 when at least one is not,
2 on usage or I/O errors.`,
		Example: `  heed robots check --agent ExampleBot https://example.com/private/page
  heed robots check --agent ExampleBot --robots robots.txt --json /a /b?q=1`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := firstError(af.check(), tf.check()); err != nil {
				return err
			}
			if len(args) == 0 {
				return usageError("check needs at least one URL")
			}
			fetch := &middleware.HTTPFetcher{Client: &http.Client{Timeout: tf.timeout}, UserAgent: af.effectiveUserAgent()}
			results, err := robotsCheck(cmd.Context(), af.agent, source, args, fetch)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			allAllowed := true
			enc := json.NewEncoder(stdout)
			enc.SetEscapeHTML(false)
			for _, r := range results {
				allAllowed = allAllowed && r.Allowed
				if asJSON {
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
	af.register(fl, a.agentDefault())
	tf.register(fl)
	fl.StringVar(&source, "robots", "", "check against this robots.txt (file path or URL) instead of each URL's own")
	fl.BoolVar(&asJSON, "json", false, "one JSON object per line per URL")
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
			res.Error = err.Error()
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
			res.Error = err.Error()
			return
		}
		u = &url.URL{} // the file's rules do not apply: no path to decide
	}
	d := middleware.DecideRobots(e, u, 0)
	v := d.Verdict
	res.Allowed, res.Implicit = d.Allowed, v.Implicit
	if v.Rule != nil {
		res.Line, res.Rule = v.Rule.Line, v.Rule.Text
	}
	if v.Group != nil {
		res.Group, res.GroupLines = v.Group.Values(), v.Group.Lines()
	}
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

func (a *App) robotsLintCommand() *cobra.Command {
	stdout := a.stdout
	var asJSON bool
	var tf timeoutFlag
	cmd := &cobra.Command{
		Use:   "lint FILE_OR_URL",
		Short: "Report the traps in a robots.txt file, with line numbers",
		Long: `Report what in a robots.txt file does not do what it seems to: named groups
that silently drop the * rules, lines that merge groups, rules outside any
group, misspelled fields, paths without a leading /, a trailing * that does
nothing, bad Crawl-delay values, relative Sitemap URLs, content past 500 KiB,
and Disallow lines that advertise sensitive paths.

Exit status: 0 when there are no findings, 1 when there are, 2 on usage
or I/O errors.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("lint takes exactly one file or URL")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := tf.check(); err != nil {
				return err
			}
			fetch := &middleware.HTTPFetcher{Client: &http.Client{Timeout: tf.timeout}, UserAgent: "heed-lint (+https://github.com/heedcrawl/heed)"}
			rf, err := loadRobots(cmd.Context(), args[0], fetch)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if rf.State != middleware.RobotsAvailable {
				msg := fmt.Sprintf("%s: robots.txt is %s (status %d)", args[0], rf.State, rf.Status)
				if rf.Err != "" {
					msg += ": " + rf.Err
				}
				return &exitError{code: 2, err: errors.New(msg)}
			}
			findings := robots.Lint(rf.Body)
			enc := json.NewEncoder(stdout)
			enc.SetEscapeHTML(false)
			for _, f := range findings {
				if asJSON {
					enc.Encode(f)
					continue
				}
				fmt.Fprintf(stdout, "%s:%d: %s: %s [%s]\n", args[0], f.Line, f.Severity, f.Message, f.Code)
			}
			if len(findings) > 0 {
				if !asJSON {
					fmt.Fprintf(stdout, "%d findings\n", len(findings))
				}
				return &exitError{code: 1}
			}
			if !asJSON {
				fmt.Fprintln(stdout, "no findings")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per finding")
	tf.register(cmd.Flags())
	return cmd
}
