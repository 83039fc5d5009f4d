package cli

import (
	"regexp"

	"github.com/spf13/pflag"
)

// More flags several commands share, declared once each (see flags.go
// for the others, and fleetTarget in fleet.go for --redis and
// --crawl-id): --config, --concurrency, --include and --exclude,
// --metrics (crawl and inventory), --state (crawl, status, ui) and --json
// (status, robots check, robots lint). What a flag means to one command
// in particular is said by that command's own help, not by a second
// declaration of the flag.

// configFlag is --config: settings from a YAML file (config.go).
type configFlag struct{ config string }

func (f *configFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "read settings from this YAML file (keys are flag names, plus urls); flags given on the command line win")
}

// concurrencyFlag is --concurrency: requests in flight at once.
type concurrencyFlag struct{ workers int }

func (f *concurrencyFlag) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.workers, "concurrency", 16, "requests in flight in total")
}

func (f *concurrencyFlag) check() error {
	return atLeastN("concurrency", f.workers, 1, "must be at least 1")
}

// patternFlags are --include and --exclude: regular expressions a URL
// must match, and must not match; verb says what the command does with
// the URLs ("follow", "list").
type patternFlags struct{ include, exclude []string }

func (f *patternFlags) register(fs *pflag.FlagSet, verb string) {
	fs.StringArrayVar(&f.include, "include", nil, "only "+verb+" URLs matching this regular expression (repeatable)")
	fs.StringArrayVar(&f.exclude, "exclude", nil, "never "+verb+" URLs matching this regular expression (repeatable)")
}

func (f *patternFlags) check() error {
	for _, p := range append(append([]string{}, f.include...), f.exclude...) {
		if _, err := regexp.Compile(p); err != nil {
			return usageError("bad pattern %q: %v", p, err)
		}
	}
	return nil
}

// compiled returns the patterns, which check compiled.
func (f *patternFlags) compiled() (include, exclude []*regexp.Regexp) {
	for _, p := range f.include {
		include = append(include, regexp.MustCompile(p))
	}
	for _, p := range f.exclude {
		exclude = append(exclude, regexp.MustCompile(p))
	}
	return include, exclude
}

// metricsFlag is --metrics: the address of a Prometheus endpoint.
type metricsFlag struct{ metrics string }

func (f *metricsFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.metrics, "metrics", "", "serve Prometheus metrics on this address at /metrics while running, e.g. 127.0.0.1:9090")
}

// stateFlag is --state: the directory a crawl job keeps its state in
// (package jobstate). crawl keeps it; status and ui read it.
type stateFlag struct{ state string }

func (f *stateFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.state, "state", "", "the crawl job's state directory: a crawl keeps its queue there, so Ctrl-C pauses, a crash loses nothing queued and the same crawl command resumes (the skip log is DIR/skipped.jsonl; --out is appended to)")
}

// jsonFlag is --json: results for a program rather than a person. Each
// command's help says the shape of its JSON.
type jsonFlag struct{ asJSON bool }

func (f *jsonFlag) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.asJSON, "json", false, "print the results as JSON instead of text (the command's help says their shape)")
}
