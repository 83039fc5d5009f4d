package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// everyCommand calls fn for each command of heed's command line (the page
// spider and every heed command), subcommands included.
func everyCommand(t *testing.T, fn func(c *cobra.Command)) {
	t.Helper()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		fn(c)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(New("heed", WithSpider(Pages())).root())
}

// TestEveryFlagInOneHelpGroup: every flag of every command is listed in
// exactly one help group, and help shows it under that group.
func TestEveryFlagInOneHelpGroup(t *testing.T) {
	count := map[string]int{}
	for _, g := range helpGroups {
		for _, f := range g.flags {
			count[f]++
		}
	}
	for f, n := range count {
		if n != 1 {
			t.Errorf("flag --%s is in %d help groups", f, n)
		}
	}
	everyCommand(t, func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if _, ok := helpGroup(fl.Name); !ok {
				t.Errorf("%s: flag --%s has no help group: add it to helpGroups in cli/help.go", c.CommandPath(), fl.Name)
			}
		})
	})
}

// TestCrawlHelpIsGrouped: crawl --help lists its flags under group
// titles, each flag once, under the group helpGroups gives it.
func TestCrawlHelpIsGrouped(t *testing.T) {
	code, out, errOut := runHeed(t, "crawl", "--help")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	for _, title := range []string{"Input", "Scope", "Politeness", "Output", "Job", "Fleet", "Transport", "Logging"} {
		if !strings.Contains(out, "\n"+title+" Flags:\n") {
			t.Errorf("crawl --help has no %s group:\n%s", title, out)
		}
	}
	if strings.Contains(out, "\nFlags:\n") {
		t.Error("crawl --help still has one alphabetical Flags list")
	}
	title := regexp.MustCompile(`^(\w+) Flags:$`)
	flagLine := regexp.MustCompile(`^\s+(?:-\w, )?--([a-z0-9-]+)`)
	listed := map[string][]string{} // flag -> the groups it is listed under
	group := ""
	for _, l := range strings.Split(out, "\n") {
		if m := title.FindStringSubmatch(l); m != nil {
			group = m[1]
		} else if m := flagLine.FindStringSubmatch(l); m != nil && group != "" {
			listed[m[1]] = append(listed[m[1]], group)
		}
	}
	c := New("heed", WithSpider(Pages())).crawlCommand()
	c.InitDefaultHelpFlag()
	n := 0
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		n++
		want, _ := helpGroup(fl.Name)
		if got := listed[fl.Name]; len(got) != 1 || got[0] != want {
			t.Errorf("--%s listed under %v, want once under %s", fl.Name, got, want)
		}
	})
	if len(listed) != n {
		t.Errorf("help lists %d flags, crawl has %d", len(listed), n)
	}
}

// TestAgentHelpUnderUI: --agent is not said to be required where it is
// not (heed ui), and is where it is.
func TestAgentHelpUnderUI(t *testing.T) {
	_, out, _ := runHeed(t, "ui", "--help")
	if strings.Contains(out, "required") {
		t.Errorf("ui --help says --agent is required:\n%s", out)
	}
	_, out, _ = runHeed(t, "crawl", "--help")
	if !strings.Contains(out, "(required unless the spider names one)") {
		t.Errorf("crawl --help no longer says --agent is required")
	}
}
