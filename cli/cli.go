// Package cli is heed's whole command line as a library: a spider program
// gets `crawl`, `status`, `fleet clear`, `robots check`, `robots lint`,
// `inventory` and `skiplog merge` with one call in its main, the way a
// Scrapy project gets `scrapy crawl NAME`:
//
//	func main() { cli.Main(&shopSpider{}) }
//
// The program then runs like heed itself:
//
//	shop crawl --state job1 --out products.jsonl --metrics 127.0.0.1:9090
//	shop status --state job1
//	shop robots check https://shop.example/cart/
//
// `crawl` has every flag `heed crawl` has: the live progress line,
// --config, --metrics and --stats-interval, --state (pause on Ctrl-C,
// resume by running the same command), --redis (one crawl shared by many
// processes), --out feeds, the skip log, the summary and the exit
// statuses. The spider's Name is the default --agent, its StartURLs the
// default seeds, and its Options (crawler.SpiderOptions) apply before the
// flags given on the command line, which therefore win; flags left at
// their defaults do not override the spider's own settings.
//
// # The contract
//
// Every option is validated before any output is opened: a usage error
// (exit status 2, one line on standard error, no summary) never truncates
// an earlier feed or skip log. The feed, the skip log and a state never
// name the same file. A crawl whose feed or skip log could not be written
// is a failed crawl (exit status 1) and says what was lost. Exit statuses:
// 0 success, 1 a failed crawl (or, for robots check and lint, a finding),
// 2 a usage or output error, 3 a crawl that ran to its end without
// fetching a page although it tried (crawler.NothingFetched), 130
// interrupted before the crawl was done.
//
// # Growing it
//
// New takes the program's spiders (WithSpider; with several, crawl
// --spider NAME chooses), commands of its own (WithCommand: heed adds
// `demo`), and flag groups that act on every crawl (WithCrawlFlags: a
// group registers its flags, validates them before any output is opened,
// and starts beside the crawler it configures). The shared flags (agent,
// user agent, timeout, delay, give-up, skip log, format, progress,
// verbosity in flags.go; --config, --state, --json and the others in
// shared_flags.go; --redis and --crawl-id in fleet.go) are declared once,
// with one help text and one default, and every command that takes one
// uses that declaration; a test fails on a second declaration.
//
// The package holds no crawling logic: everything a program embedding
// heed without its command line needs lives in the library packages.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/crawler"
)

// App is a spider program's command line. Make one with New and run it
// with Run or Main.
type App struct {
	name     string
	short    string
	spiders  []crawler.Spider
	commands []Command
	groups   []func() FlagGroup
	stdout   io.Writer
	stderr   io.Writer
	// lookupEnv reads the environment (os.LookupEnv) and environ lists
	// it (os.Environ; nil: no warning of unknown HEED_ variables);
	// fromEnv names the variable each flag it set came from (env.go).
	lookupEnv func(string) (string, bool)
	environ   func() []string
	fromEnv   map[string]string
}

// Command makes one subcommand of an App: heed's `demo`, say. It is
// called once per Run, so the flags it binds start from their defaults.
type Command func(a *App) *cobra.Command

// Option configures an App.
type Option func(*App)

// WithSpider adds a spider that crawl runs. The first added is the
// default; with more than one, crawl --spider NAME chooses by Name.
func WithSpider(s crawler.Spider) Option {
	return func(a *App) { a.spiders = append(a.spiders, s) }
}

// WithCommand adds a subcommand of the program's own.
func WithCommand(c Command) Option {
	return func(a *App) { a.commands = append(a.commands, c) }
}

// WithCrawlFlags adds a group of flags to crawl. newGroup is called once
// per Run, so the flags it binds start from their defaults.
func WithCrawlFlags(newGroup func() FlagGroup) Option {
	return func(a *App) { a.groups = append(a.groups, newGroup) }
}

// WithDescription sets the one line the program's help starts with.
func WithDescription(short string) Option {
	return func(a *App) { a.short = short }
}

// WithOutput sets where the program writes (default os.Stdout and
// os.Stderr): tests capture them.
func WithOutput(stdout, stderr io.Writer) Option {
	return func(a *App) { a.stdout, a.stderr = stdout, stderr }
}

// New returns the command line of the program called name.
func New(name string, opts ...Option) *App {
	a := &App{name: name, stdout: os.Stdout, stderr: os.Stderr, lookupEnv: os.LookupEnv, environ: os.Environ}
	for _, o := range opts {
		o(a)
	}
	if a.short == "" {
		a.short = name + ": a polite crawler built on heed, with RFC 9309 robots.txt compliance"
	}
	return a
}

// Main runs the command line of a program holding the given spiders
// (its name from os.Args[0]) and exits with its status.
func Main(spiders ...crawler.Spider) {
	opts := make([]Option, 0, len(spiders))
	for _, s := range spiders {
		opts = append(opts, WithSpider(s))
	}
	New(filepath.Base(os.Args[0]), opts...).Main()
}

// Main runs the command line with os.Args, stopping the crawl gracefully
// on SIGINT or SIGTERM, and exits with its status.
func (a *App) Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := a.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// Run executes the command line args (without the program's name) and
// returns the process exit status; errors are written to the App's
// standard error, prefixed by the program's name.
func (a *App) Run(ctx context.Context, args []string) int {
	root := a.root()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(a.stderr, "%s: %v\n", a.name, a.envLocate(ee.err))
		}
		return ee.code
	}
	fmt.Fprintf(a.stderr, "%s: %v\n", a.name, err)
	return 1
}

// Stdout is where the App writes results.
func (a *App) Stdout() io.Writer { return a.stdout }

// Stderr is where the App writes progress, logs and errors.
func (a *App) Stderr() io.Writer { return a.stderr }

// agentDefault is --agent's default: the product token of the App's only
// spider, or none.
func (a *App) agentDefault() string {
	if s := a.spiderList(); len(s) == 1 {
		return s[0].Name()
	}
	return ""
}

// root builds the command tree: heed's commands, listed here, then the
// program's own.
func (a *App) root() *cobra.Command {
	root := &cobra.Command{
		Use:           a.name,
		Short:         a.short,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: 2, err: err}
	})
	a.dress(root)
	root.Version = buildVersion(a.name)
	root.SetVersionTemplate("{{.Version}}")
	root.Flags().Bool("version", false, "print the version, the VCS revision built from, and the Go version")
	root.AddCommand(
		a.crawlCommand(),
		a.statusCommand(),
		a.fleetCommand(),
		a.robotsCommand(),
		a.inventoryCommand(),
		a.skiplogCommand(),
		a.uiCommand(),
		a.fetchCommand(),
		a.selectCommand(),
		a.parseCommand(),
		a.versionCommand(),
	)
	for _, c := range a.commands {
		root.AddCommand(c(a))
	}
	return root
}

// dress gives a command tree heed's habits: the environment sets the
// flags the command line did not (env.go), and help lists flags by group
// (help.go).
func (a *App) dress(cmd *cobra.Command) {
	cmd.PersistentPreRunE = func(c *cobra.Command, _ []string) error { return a.applyEnv(c) }
	cmd.SetUsageFunc(usage)
}

// exitError carries a process exit status through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError marks a mistake in the command line: exit status 2.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// UsageError returns the error a Command returns for a mistake in its
// command line: exit status 2, the message on one line.
func UsageError(format string, args ...any) error { return usageError(format, args...) }

// ExitError returns the error a Command returns to exit with code, err
// (when not nil) written on standard error.
func ExitError(code int, err error) error { return &exitError{code: code, err: err} }
