package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/fleet"
	"github.com/heedcrawl/heed/ui"
	"github.com/heedcrawl/heed/ui/redisfleet"
)

// defaultUIAddr is where heed's pages listen unless told otherwise: this
// machine only (the tester fetches URLs on a visitor's behalf).
const defaultUIAddr = "127.0.0.1:8080"

// uiFlags is crawl's --ui: heed's pages, with the live view of the crawl
// in progress. heed's own FlagGroup, beside --metrics.
type uiFlags struct{ addr string }

func (u *uiFlags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&u.addr, "ui", "", "serve the live crawl page and the robots.txt tester on this address while crawling, e.g. "+defaultUIAddr+" (a non-loopback address lets others make this machine fetch URLs)")
}

func (u *uiFlags) Check() error {
	if u.addr == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(u.addr); err != nil {
		return usageError("--ui %q: want HOST:PORT, e.g. %s", u.addr, defaultUIAddr)
	}
	return nil
}

// Options keeps the request starts the live view's timeline shows.
func (u *uiFlags) Options() []crawler.Option {
	if u.addr == "" {
		return nil
	}
	return []crawler.Option{crawler.WithStartLog(ui.StartLogSize)}
}

func (u *uiFlags) Start(c *crawler.Crawler, a *App) (stop func(), err error) {
	if u.addr == "" {
		return nil, nil
	}
	s, err := ui.New(ui.WithMonitor(ui.NewMonitor(c)), ui.WithAgent(c.Agent()), ui.WithUserAgent(c.UserAgent()))
	if err != nil {
		return nil, &exitError{code: 1, err: err}
	}
	srv, err := serveUI(u.addr, s, a.stderr, "/live")
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("--ui: %w", err)}
	}
	return func() { srv.Close() }, nil
}

// serveUI listens on addr and serves h in the background, saying where
// (and warning when the address is reachable from elsewhere).
func serveUI(addr string, h http.Handler, stderr io.Writer, page string) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		fmt.Fprintf(stderr, "heed: warning: the pages on %s are reachable from other machines; anyone who reaches them can make this machine fetch URLs (see the README)\n", ln.Addr())
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(stderr, "heed: pages on http://%s%s\n", ln.Addr(), page)
	return srv, nil
}

// uiFlagSet are the settings of `heed ui`.
type uiFlagSet struct {
	agentFlags
	timeoutFlag
	stateFlag   // shared_flags.go
	fleetTarget // fleet.go
	addr        string
}

func (a *App) uiCommand() *cobra.Command {
	var f uiFlagSet
	cmd := &cobra.Command{
		Use:   "ui [--addr " + defaultUIAddr + "] [--state DIR] [--redis URL --crawl-id ID]",
		Short: "Serve heed's pages: the robots.txt tester, a job at rest (--state), a fleet (--redis)",
		Long: `Serve heed's local web pages until interrupted: the robots.txt tester
(paste a file or give its URL, an agent token and URLs: each gets heed's
verdict with the deciding line marked in the file); with --state DIR, the
job kept in DIR (read-only, while no crawl uses it) and its skip log; with
--redis URL --crawl-id ID, the counters and queue a fleet shares.

The pages listen on this machine only unless --addr says otherwise: the
tester fetches robots.txt URLs on the visitor's behalf, so a page reachable
from a network lets anyone who reaches it make this machine fetch URLs.
A running crawl shows its own live page: heed crawl ... --ui ADDR.`,
		Example: `  heed ui
  heed ui --state job1
  heed ui --redis redis://127.0.0.1:6379/0 --crawl-id news --addr 127.0.0.1:9000`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError("ui takes no arguments (did you mean --state %s?)", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runUI(cmd.Context(), &f)
		},
	}
	fl := cmd.Flags()
	f.agentFlags.optional = "optional: the token the robots.txt tester starts with"
	f.agentFlags.register(fl, a.agentDefault())
	f.timeoutFlag.register(fl)
	fl.StringVar(&f.addr, "addr", defaultUIAddr, "listen on this address (HOST:PORT; port 0 picks one)")
	f.stateFlag.register(fl)
	f.fleetTarget.register(cmd)
	return cmd
}

func (a *App) runUI(ctx context.Context, f *uiFlagSet) error {
	if err := f.timeoutFlag.check(); err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return usageError("--addr %q: want HOST:PORT, e.g. %s", f.addr, defaultUIAddr)
	}
	if (f.url == "") != (f.crawlID == "") {
		return usageError("--redis and --crawl-id go together")
	}
	opts := []ui.Option{ui.WithFetchTimeout(f.timeout)}
	if f.agent != "" {
		if err := f.agentFlags.check(); err != nil {
			return err
		}
		opts = append(opts, ui.WithAgent(f.agent), ui.WithUserAgent(download.DefaultUserAgent(f.agent)))
	}
	if f.userAgent != "" {
		opts = append(opts, ui.WithUserAgent(f.userAgent))
	}
	page := "/robots"
	if f.state != "" {
		if fi, err := os.Stat(f.state); err != nil || !fi.IsDir() {
			return usageError("--state %s: not a directory", f.state)
		}
		opts = append(opts, ui.WithStateDir(f.state))
		page = "/job"
	}
	if f.url != "" {
		ro, err := redis.ParseURL(f.url)
		if err != nil {
			return usageError("--redis %s: %v", redactURL(f.url), err)
		}
		rdb := redis.NewClient(ro)
		defer rdb.Close()
		src, err := redisfleet.New(rdb, f.crawlID, fleet.Prefix(f.crawlID))
		if err != nil {
			return usageError("%v", err)
		}
		opts = append(opts, ui.WithFleet(src))
		page = "/fleet"
	}
	s, err := ui.New(opts...)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	srv, err := serveUI(f.addr, s, a.stderr, page)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	<-ctx.Done()
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return &exitError{code: 1, err: err}
	}
	return nil
}
