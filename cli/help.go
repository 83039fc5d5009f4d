package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Help lists a command's flags in groups, in this order, rather than one
// alphabetical list. Each flag name belongs to exactly one group, here:
// a flag added to a command needs its line (a test fails until it has
// one). A program's own flags (WithCrawlFlags) that are not listed go
// under "Other".
var helpGroups = []struct {
	title string
	flags []string
}{
	{"Input", []string{"config", "spider", "sitemap", "sitemaps", "sitemaps-only", "since", "no-sitemap-fallback",
		"robots", "url", "callback", "xpath"}},
	{"Scope", []string{"allow-domain", "include", "exclude", "depth", "max-pages", "max-pages-per-host"}},
	{"Politeness", []string{"agent", "user-agent", "delay", "max-crawl-delay", "per-host", "concurrency",
		"robots-give-up", "host-give-up", "robots-max-age", "ignore-nofollow", "rel-nofollow", "respect", "purpose"}},
	{"Output", []string{"out", "format", "append", "overwrite", "summary-json", "skiplog", "json", "fixture", "attr", "html"}},
	{"Job", []string{"state", "cache", "cache-policy", "cache-max-age", "cache-max-size"}},
	{"Fleet", []string{"redis", "crawl-id", "lease-timeout", "force"}},
	{"Transport", []string{"header", "proxy", "ca-file", "insecure-skip-verify", "timeout", "max-body", "retries", "retry-wait"}},
	{"Logging", []string{"log-level", "log-format", "verbose", "progress", "stats-interval", "metrics", "metrics-authorities", "ui", "addr"}},
	{"Other", []string{"help", "version"}},
}

// otherGroup is where flags no group lists go.
const otherGroup = "Other"

// helpGroup returns the group of a flag name, and whether one lists it.
func helpGroup(flag string) (string, bool) {
	for _, g := range helpGroups {
		for _, f := range g.flags {
			if f == flag {
				return g.title, true
			}
		}
	}
	return otherGroup, false
}

// usage writes a command's usage: how to call it, its examples, its
// subcommands, its flags by group, and how the environment sets them.
func usage(c *cobra.Command) error {
	w := c.OutOrStderr()
	fmt.Fprint(w, "Usage:")
	if c.Runnable() {
		fmt.Fprintf(w, "\n  %s", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n  %s [command]", c.CommandPath())
	}
	fmt.Fprintln(w)
	if c.HasExample() {
		fmt.Fprintf(w, "\nExamples:\n%s\n", c.Example)
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintln(w, "\nAvailable Commands:")
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() || s.Name() == "help" {
				fmt.Fprintf(w, "  %-*s %s\n", s.NamePadding(), s.Name(), s.Short)
			}
		}
	}
	writeFlagGroups(w, c.LocalFlags())
	if c.HasAvailableInheritedFlags() {
		fmt.Fprintf(w, "\nGlobal Flags:\n%s", c.InheritedFlags().FlagUsages())
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprintf(w, "\n%s\n", envHelp)
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\nUse \"%s [command] --help\" for more information about a command.\n", c.CommandPath())
	}
	return nil
}

// writeFlagGroups writes the flags of fs under their groups' titles.
func writeFlagGroups(w io.Writer, fs *pflag.FlagSet) {
	byGroup := map[string]*pflag.FlagSet{}
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		g, _ := helpGroup(fl.Name)
		if byGroup[g] == nil {
			byGroup[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			byGroup[g].SortFlags = true
		}
		byGroup[g].AddFlag(fl)
	})
	titles := make([]string, 0, len(byGroup))
	for _, g := range helpGroups {
		if byGroup[g.title] != nil {
			titles = append(titles, g.title)
		}
	}
	for _, t := range titles {
		fmt.Fprintf(w, "\n%s Flags:\n%s", t, strings.TrimRight(byGroup[t].FlagUsages(), " \n")+"\n")
	}
}
