package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/download"
	"github.com/heedcrawl/heed/httpcache"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/robots"
)

// The flags several commands share are declared here, once each: name,
// default and help text. A command takes a group by embedding its struct
// and calling register; the group's check refuses bad values with the
// same words wherever the flag appears.

// agentFlags are --agent and --user-agent: who the crawler says it is.
type agentFlags struct {
	agent     string
	userAgent string
	// names accepts, besides product tokens, agent names with digits
	// (MJ12bot) as real robots.txt files write them: robots check, lint
	// and inventory answer for them, a crawl does not send them.
	names bool
	// optional, when not empty, says what --agent does for a command
	// that runs without one (heed ui), instead of "required".
	optional string
	// many makes --agent repeatable (inventory: one verdict per agent);
	// agents are the values, agent the first.
	many   bool
	agents []string
}

// register adds the flags; spiderName, when not empty, is --agent's
// default (a spider program's own product token).
func (f *agentFlags) register(fs *pflag.FlagSet, spiderName string) {
	need := "required unless the spider names one"
	if f.optional != "" {
		need = f.optional
	}
	help := "product token that selects robots.txt groups, e.g. ExampleBot (" + need + ")"
	if f.many {
		var def []string
		if spiderName != "" {
			def = []string{spiderName}
		}
		fs.StringArrayVar(&f.agents, "agent", def, help+"; repeatable, the first is the one that fetches")
	} else {
		fs.StringVar(&f.agent, "agent", spiderName, help)
	}
	fs.StringVar(&f.userAgent, "user-agent", "", "User-Agent header; must contain the agent token, no control characters (default: a compatible string naming the token)")
}

// check refuses a missing or malformed token and a User-Agent that would
// not name it or could not be sent, with the crawler's own rules.
func (f *agentFlags) check() error {
	if f.many {
		if len(f.agents) == 0 {
			f.agents = []string{""}
		}
		for _, a := range f.agents[1:] {
			other := agentFlags{agent: a, names: f.names}
			if err := other.check(); err != nil {
				return err
			}
		}
		f.agent = f.agents[0]
	}
	if f.agent == "" {
		return usageError("--agent is required: the product token robots.txt rules are written for")
	}
	if f.names && robots.MatchableToken(f.agent) {
		// An agent name with digits is read as a whole token (see
		// robots.TokenNote, which the commands print).
	} else if !robots.ValidProductToken(f.agent) {
		return &exitError{code: 2, err: &flagError{flag: "agent", value: fmt.Sprintf("%q", f.agent), want: "not a product token (letters, '-' and '_' only)"}}
	}
	if f.userAgent != "" {
		if err := download.CheckUserAgent(f.userAgent, f.agent); err != nil {
			return &exitError{code: 2, err: &flagError{flag: "user-agent", want: err.Error()}}
		}
	}
	return nil
}

// effectiveUserAgent is the User-Agent header requests carry.
func (f *agentFlags) effectiveUserAgent() string {
	if f.userAgent != "" {
		return f.userAgent
	}
	return download.DefaultUserAgent(f.agent)
}

// timeoutFlag is --timeout.
type timeoutFlag struct{ timeout time.Duration }

func (f *timeoutFlag) register(fs *pflag.FlagSet) {
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "timeout of one request, its body included")
}

func (f *timeoutFlag) check() error { return atLeast("timeout", f.timeout, time.Nanosecond) }

// paceFlags are the politeness settings: --delay, --max-crawl-delay,
// --robots-give-up, --host-give-up.
type paceFlags struct {
	delay      time.Duration
	maxDelay   time.Duration
	giveUp     time.Duration
	hostGiveUp int
}

func (f *paceFlags) register(fs *pflag.FlagSet) {
	fs.DurationVar(&f.delay, "delay", time.Second, "least time between requests to one host; a larger robots.txt Crawl-delay wins")
	fs.DurationVar(&f.maxDelay, "max-crawl-delay", 30*time.Second, "hosts asking for a longer Crawl-delay are skipped")
	fs.DurationVar(&f.giveUp, "robots-give-up", 10*time.Minute, "how long to retry an unreachable robots.txt before skipping its host's URLs")
	fs.IntVar(&f.hostGiveUp, "host-give-up", politeness.DefaultGiveUp, "requests in a row without any answer (timeouts, connection errors) after which a host's remaining URLs are skipped as host-unreachable, in one process or across a fleet; 0 never")
}

func (f *paceFlags) check() error {
	return firstError(
		atLeast("delay", f.delay, 0),
		atLeast("max-crawl-delay", f.maxDelay, time.Nanosecond),
		atLeast("robots-give-up", f.giveUp, time.Nanosecond),
		atLeastN("host-give-up", f.hostGiveUp, 0, "must not be negative (0 never gives a host up)"),
	)
}

func (f *paceFlags) options(l *optionList) {
	l.add("delay", crawler.WithDelay(f.delay))
	l.add("max-crawl-delay", crawler.WithMaxCrawlDelay(f.maxDelay))
	l.add("robots-give-up", crawler.WithRobotsGiveUp(f.giveUp, 0))
	hostGiveUp := f.hostGiveUp
	if hostGiveUp == 0 {
		hostGiveUp = -1 // crawler.WithHostGiveUp's "never"
	}
	l.add("host-give-up", crawler.WithHostGiveUp(hostGiveUp))
}

// reportFlags are what a long command writes beside its results: the skip
// log, the live progress line and the log (logging.go).
type reportFlags struct {
	skiplog   string
	progress  string
	verbose   bool
	logLevel  string
	logFormat string
}

// defaultSkipLog is the skip log's name when --skiplog is not given.
const defaultSkipLog = "skipped.jsonl"

func (f *reportFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.skiplog, "skiplog", defaultSkipLog, "write the skip log (every URL not fetched, and why) to this file; empty for none")
	fs.StringVar(&f.progress, "progress", "auto", "live progress on stderr: auto (a line on a terminal, a log record every "+progressLogEvery.String()+" otherwise), always (the line), never")
	VerboseFlag(fs, &f.verbose)
	LogFlags(fs, &f.logLevel, &f.logFormat)
}

// VerboseFlag adds heed's --verbose (-v) to a command of the program's
// own, with the help text and default every heed command has.
func VerboseFlag(fs *pflag.FlagSet, p *bool) {
	fs.BoolVarP(p, "verbose", "v", false, "log at info level: robots.txt and sitemap fetches besides the warnings (--log-level info; an explicit --log-level wins)")
}

// LogFlags adds heed's --log-level and --log-format to a command of the
// program's own; NewLogger makes the logger they name.
func LogFlags(fs *pflag.FlagSet, level, format *string) {
	fs.StringVar(level, "log-level", "warn", "least level logged to stderr: debug, info, warn (retries, pauses, outages, give-ups) or error")
	fs.StringVar(format, "log-format", "text", "format of the log on stderr: text (key=value) or json (one object a line)")
}

func (f *reportFlags) check() error {
	switch f.progress {
	case "auto", "always", "never":
	default:
		return usageError("--progress %q: want auto, always or never", f.progress)
	}
	_, err := parseLogSettings(f.logLevel, f.logFormat, f.verbose)
	return err
}

// formatFlag is --format, the format of --out.
type formatFlag struct{ format string }

func (f *formatFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.format, "format", "", "format of --out: jsonl, json or csv (default: from the --out file name, a .gz suffix compressing; else jsonl)")
}

// optionList collects the crawler options of a command's flags. Options
// of flags left at their defaults go first, then the spider's own, then
// those of the flags given on the command line (or in --config), so a
// spider's settings beat heed's defaults and the command line beats both.
type optionList struct {
	fs       *pflag.FlagSet
	defaults []crawler.Option
	given    []crawler.Option
}

func (l *optionList) add(flag string, o crawler.Option) {
	if l.fs.Changed(flag) {
		l.given = append(l.given, o)
	} else {
		l.defaults = append(l.defaults, o)
	}
}

// always adds an option that is not a flag's: it comes last.
func (l *optionList) always(o ...crawler.Option) { l.given = append(l.given, o...) }

// with returns the options, the spider's in the middle.
func (l *optionList) with(spider []crawler.Option) []crawler.Option {
	out := append(append([]crawler.Option{}, l.defaults...), spider...)
	return append(out, l.given...)
}

// flagError is a flag value out of range. The crawl command names the
// --config line the value came from.
type flagError struct {
	flag  string
	value string
	want  string
}

func (e *flagError) Error() string {
	if e.value == "" { // the explanation quotes it
		return fmt.Sprintf("--%s: %s", e.flag, e.want)
	}
	return fmt.Sprintf("--%s %s: %s", e.flag, e.value, e.want)
}

// atLeast refuses a duration below min (0: negative; 1ns: not positive).
func atLeast(flag string, d, min time.Duration) error {
	if d >= min {
		return nil
	}
	want := "must not be negative"
	if min > 0 {
		want = "must be positive"
	}
	return &exitError{code: 2, err: &flagError{flag: flag, value: d.String(), want: want}}
}

// atLeastN refuses a count below min, saying what the count means.
func atLeastN(flag string, n, min int, want string) error {
	if n >= min {
		return nil
	}
	return &exitError{code: 2, err: &flagError{flag: flag, value: fmt.Sprint(n), want: want}}
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// cacheFlags are --cache, --cache-policy, --cache-max-age and
// --cache-max-size: the HTTP cache of the developer's loop (package
// httpcache), for crawl, fetch, select and parse.
type cacheFlags struct {
	dir     string
	policy  string
	maxAge  time.Duration
	maxSize sizeValue
	// cache is the one open returned, for the summary; store its
	// directory, bounded by bound.
	cache *httpcache.Cache
	store *httpcache.Dir
}

func (f *cacheFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "cache", "", "keep responses in this directory and serve them again (robots.txt still obeyed, re-read after 24h); empty for none")
	fs.StringVar(&f.policy, "cache-policy", "replay", "replay (serve every stored response without asking the site: develop offline) or rfc9111 (HTTP's freshness, revalidated by ETag and Last-Modified)")
	fs.DurationVar(&f.maxAge, "cache-max-age", 0, "fetch a stored response again once it is older than this, whatever --cache-policy says, and store the new one (Scrapy's HTTPCACHE_EXPIRATION_SECS); 0 never")
	fs.Var(&f.maxSize, "cache-max-size", "keep the --cache directory within this size (1048576, 512KiB, 10MiB ...) by removing the responses stored longest ago, which are then fetched again when asked for; 0 for no bound")
}

func (f *cacheFlags) check() error {
	if err := atLeast("cache-max-age", f.maxAge, 0); err != nil {
		return err
	}
	if f.dir == "" && (f.maxAge > 0 || f.maxSize.n > 0) {
		return usageError("--cache-max-age and --cache-max-size apply to a --cache directory: give --cache DIR")
	}
	switch f.policy {
	case "replay", "rfc9111":
		return nil
	}
	return usageError("--cache-policy %q: want replay or rfc9111", f.policy)
}

// open returns the cache, or nil without --cache. Its directory is not
// bounded yet: bound prunes it, once the command is sure to run, so that
// a refused command removes no entry.
func (f *cacheFlags) open() (*httpcache.Cache, error) {
	if f.dir == "" {
		return nil, nil
	}
	store, err := httpcache.OpenDir(f.dir)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	f.store = store
	var p httpcache.Policy = httpcache.Replay{}
	if f.policy == "rfc9111" {
		p = httpcache.RFC9111{}
	}
	f.cache, err = httpcache.New(store, httpcache.WithPolicy(p), httpcache.WithMaxAge(f.maxAge))
	return f.cache, err
}

// bound applies --cache-max-size to the open cache (pruning it to the
// bound); nothing without --cache.
func (f *cacheFlags) bound() error {
	if f.store == nil {
		return nil
	}
	if err := f.store.Bound(f.maxSize.n); err != nil {
		return &exitError{code: 2, err: err}
	}
	return nil
}

// summary writes the cache's line of a summary: what this process served,
// fetched, found expired and pruned (nothing without --cache).
func (f *cacheFlags) summary(w io.Writer) {
	if f.cache != nil {
		f.cache.Stats().Format(w)
	}
}
