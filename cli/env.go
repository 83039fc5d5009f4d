package cli

import (
	"errors"
	"fmt"
	"strings"

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
func (a *App) applyEnv(cmd *cobra.Command) error {
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
