package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/heedcrawl/heed/aipref"
	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/pagerobots"
)

// purposeFlag is --purpose: what the crawl's data is for, as categories
// of the AI usage vocabulary. crawl and robots check share it.
type purposeFlag struct{ purposes []string }

func (f *purposeFlag) register(fs *pflag.FlagSet, help string) {
	fs.StringSliceVar(&f.purposes, "purpose", nil, help+" (categories: "+strings.Join(aipref.Labels(), ", ")+"; repeatable or comma-separated)")
}

func (f *purposeFlag) check() error {
	for _, p := range f.purposes {
		if _, ok := aipref.Lookup(p); !ok {
			return &exitError{code: 2, err: &flagError{flag: "purpose", value: fmt.Sprintf("%q", p),
				want: "not a usage category: " + strings.Join(aipref.Labels(), ", ")}}
		}
	}
	return nil
}

// signalFlags are crawl's policy for what a site says outside
// robots.txt: --ignore-nofollow, --rel-nofollow, --respect and --purpose.
type signalFlags struct {
	purposeFlag
	ignoreNofollow bool
	relNofollow    bool
	respect        []string
}

func (f *signalFlags) register(fs *pflag.FlagSet) {
	f.purposeFlag.register(fs, "declare what the data is for: a page whose site says n to it (robots.txt Content-Usage or the Content-Usage header) is fetched but exports no item, logged as usage-preference")
	fs.BoolVar(&f.ignoreNofollow, "ignore-nofollow", false, "follow the links of pages that say nofollow (meta robots or X-Robots-Tag); by default they are not followed, each logged as nofollow")
	fs.BoolVar(&f.relNofollow, "rel-nofollow", false, "do not follow links marked rel=\"nofollow\", each logged as rel-nofollow (by default that hint is followed)")
	fs.StringSliceVar(&f.respect, "respect", nil, "export no item of a page that says one of these directives (noindex, noarchive, nosnippet, none, noai, ...), logged as page-directive")
}

func (f *signalFlags) check() error {
	for _, d := range f.respect {
		if _, ok := pagerobots.Known[strings.ToLower(d)]; !ok {
			return &exitError{code: 2, err: &flagError{flag: "respect", value: fmt.Sprintf("%q", d), want: "not a page directive heed knows"}}
		}
	}
	return f.purposeFlag.check()
}

func (f *signalFlags) options(l *optionList) {
	l.add("ignore-nofollow", crawler.WithNofollow(!f.ignoreNofollow))
	l.add("rel-nofollow", crawler.WithRelNofollow(f.relNofollow))
	l.add("respect", crawler.WithRespect(f.respect...))
	l.add("purpose", crawler.WithPurposes(f.purposes...))
}
