package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every flag of every command can also be set in the environment, under
// a name derived from the flag's: HEED_ and the name in capitals, '-' as
// '_' (--max-crawl-delay is HEED_MAX_CRAWL_DELAY). The derivation is
// mechanical, so a flag added to any command has its variable without
// further work. A flag given on the command line wins over its variable,
// which wins over a --config file, which wins over the default: the
// variable sets the flag before --config is read, and --config sets only
// the flags not set already.

// envPrefix starts every variable heed reads.
const envPrefix = "HEED_"

// envName is the environment variable of a flag ("" for those that have
// none: --help and --version ask for text, not settings).
func envName(flag string) string {
	if flag == "help" || flag == "version" {
		return ""
	}
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// envHelp is the paragraph --help ends with.
const envHelp = `Environment: every flag can also be set as HEED_ and its name in capitals,
'-' as '_' (--max-crawl-delay 5s: HEED_MAX_CRAWL_DELAY=5s; a repeatable
flag takes one value per line). A flag on the command line wins over the
environment, which wins over --config, which wins over the defaults.`

// applyEnv sets each flag of cmd the command line did not give from its
// environment variable, when that is set (even to ""), and remembers
// which, so that an error names the variable. lookup is os.LookupEnv.
// It first warns of the HEED_ variables that name no flag (warnUnknownEnv).
func (a *App) applyEnv(cmd *cobra.Command) error {
	if a.environ != nil {
		warnUnknownEnv(a.stderr, a.name, a.environ(), knownEnv(cmd.Root()))
	}
	var err error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		name := envName(fl.Name)
		if err != nil || fl.Changed || name == "" {
			return
		}
		v, ok := a.lookupEnv(name)
		if !ok {
			return
		}
		vals := []string{v}
		if isList(fl) {
			vals = nil
			for _, line := range strings.Split(v, "\n") {
				if line = strings.TrimSuffix(line, "\r"); line != "" {
					vals = append(vals, line)
				}
			}
		}
		for _, val := range vals {
			if serr := cmd.Flags().Set(fl.Name, val); serr != nil {
				err = usageError("%s=%q: --%s: %v", name, v, fl.Name, serr)
				return
			}
		}
		if len(vals) == 0 { // an empty list: the flag is given, with no values
			fl.Changed = true
		}
		if a.fromEnv == nil {
			a.fromEnv = map[string]string{}
		}
		a.fromEnv[fl.Name] = name
	})
	return err
}

// isList reports whether a flag is repeatable.
func isList(fl *pflag.Flag) bool {
	t := fl.Value.Type()
	return strings.HasSuffix(t, "Array") || strings.HasSuffix(t, "Slice")
}

// envLocate names the variable in the error of a value it set.
func (a *App) envLocate(err error) error {
	var fe *flagError
	if !errors.As(err, &fe) || a.fromEnv[fe.flag] == "" {
		return err
	}
	return fmt.Errorf("%s: %w", a.fromEnv[fe.flag], err)
}

// testEnv are the HEED_ variables heed's own test suites read (package
// redistest's and the browser tests'): a test that runs the command line
// passes them on, and they are no misspelt flag.
var testEnv = []string{"HEED_REQUIRE_REDIS", "HEED_REDIS_SERVER", "HEED_REQUIRE_BROWSER"}

// knownEnv returns the variables of every flag of every command of the
// program whose root is root, sorted: a variable for another command's
// flag is not a mistake, only unused by this one.
func knownEnv(root *cobra.Command) []string {
	var names []string
	add := func(fl *pflag.Flag) {
		if n := envName(fl.Name); n != "" {
			names = append(names, n)
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	slices.Sort(names)
	return slices.Compact(names)
}

// warnUnknownEnv writes one warning for each HEED_ variable of environ
// (os.Environ's "NAME=value" form) that names no flag, with the closest
// known name when one is near enough to be a slip of the keyboard
// (HEED_MAX_PAGE: "did you mean HEED_MAX_PAGES?"). A misspelt variable
// would otherwise be ignored in silence, and the setting it was meant to
// make never made.
func warnUnknownEnv(w io.Writer, program string, environ, known []string) {
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || slices.Contains(known, name) || slices.Contains(testEnv, name) {
			continue
		}
		msg := fmt.Sprintf("%s: warning: %s names no flag and is ignored", program, name)
		if near := closestEnv(name, known); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		fmt.Fprintln(w, msg)
	}
}

// closestEnv returns the known name nearest to name by edit distance,
// when at most two edits, or a third of its letters after HEED_, part
// them (HEED_AGNET is HEED_AGENT's slip); "" otherwise. Ties go to the
// first in known's order.
func closestEnv(name string, known []string) string {
	base := strings.TrimPrefix(name, envPrefix)
	best, bestDist := "", max(2, len(base)/3)+1
	for _, k := range known {
		if d := levenshtein.ComputeDistance(base, strings.TrimPrefix(k, envPrefix)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}
