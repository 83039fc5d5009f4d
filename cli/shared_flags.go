package cli

import (
	"regexp"

	"github.com/spf13/pflag"
)

// The flags crawl and inventory share, declared once each (see flags.go
// for the others): --config, --concurrency, --include and --exclude,
// --metrics.

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
