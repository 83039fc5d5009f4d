package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ownMeaning lists the flag names several commands use with a meaning of
// each command's own, and why. Every other flag several commands take is
// one flag: one declaration, so one help text and one default wherever
// it appears.
var ownMeaning = map[string]string{
	"agent":     "one declaration (agentFlags) says whether the command needs it and whether it repeats (inventory)",
	"include":   "one declaration (patternFlags) with the command's verb: crawl follows, inventory lists",
	"exclude":   "one declaration (patternFlags) with the command's verb: crawl follows, inventory lists",
	"purpose":   "one declaration (purposeFlag) with what the command does with it: crawl exports no item, robots check shows the preference",
	"out":       "what each command writes: crawl a feed, fetch a body, inventory rows, skiplog merge a skip log",
	"overwrite": "what each command's --out is: crawl's a feed (beside --append), inventory's a file of rows",
}

// TestSharedFlagsDeclaredOnce walks every command heed's command line
// has and checks that a flag name taken by several commands has the same
// help text and default on each, but for the names in ownMeaning; a
// second declaration of a shared flag, with words of its own, fails it.
func TestSharedFlagsDeclaredOnce(t *testing.T) {
	type use struct{ cmd, usage, def, typ string }
	uses := map[string][]use{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			uses[f.Name] = append(uses[f.Name], use{c.CommandPath(), f.Usage, f.DefValue, f.Value.Type()})
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(New("heed", WithSpider(Pages())).root())

	// The commands that read or join a job or a fleet must all have
	// their flags, or the rule below has nothing to compare.
	for name, want := range map[string][]string{
		"state":    {"heed crawl", "heed status", "heed ui"},
		"redis":    {"heed crawl", "heed fleet clear", "heed status", "heed ui"},
		"crawl-id": {"heed crawl", "heed fleet clear", "heed status", "heed ui"},
		"json":     {"heed robots check", "heed robots lint", "heed status"},
	} {
		var got []string
		for _, u := range uses[name] {
			got = append(got, u.cmd)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("--%s is on %v, want %v", name, got, want)
		}
	}

	for _, name := range slices.Sorted(maps.Keys(uses)) {
		us := uses[name]
		if len(us) < 2 {
			if _, ok := ownMeaning[name]; ok {
				t.Errorf("--%s is listed in ownMeaning but only %s takes it", name, us[0].cmd)
			}
			continue
		}
		differ := false
		for _, u := range us[1:] {
			if u.usage != us[0].usage || u.def != us[0].def || u.typ != us[0].typ {
				differ = true
			}
		}
		_, own := ownMeaning[name]
		switch {
		case differ && !own:
			var b strings.Builder
			for _, u := range us {
				fmt.Fprintf(&b, "\n  %s (default %q): %s", u.cmd, u.def, u.usage)
			}
			t.Errorf("--%s is declared more than once, with different words or defaults: declare it once and register it from each command:%s", name, b.String())
		case !differ && own:
			t.Errorf("--%s has one help text and default on every command: take it out of ownMeaning", name)
		}
	}
}
