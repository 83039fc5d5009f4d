package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestEveryFlagHasItsVariable: every flag of every command (but --help
// and --version) is set by its HEED_ variable, derived from its name.
func TestEveryFlagHasItsVariable(t *testing.T) {
	names := map[string]string{}
	everyCommand(t, func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		env := map[string]string{}
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			name := envName(fl.Name)
			if fl.Name == "help" || fl.Name == "version" {
				if name != "" {
					t.Errorf("--%s has a variable", fl.Name)
				}
				return
			}
			if !regexp.MustCompile(`^HEED_[A-Z0-9_]+$`).MatchString(name) {
				t.Fatalf("--%s: variable %q", fl.Name, name)
			}
			if other, ok := names[name]; ok && other != fl.Name {
				t.Errorf("%s names both --%s and --%s", name, other, fl.Name)
			}
			names[name] = fl.Name
			v := fl.DefValue
			switch {
			case fl.Value.Type() == "bool":
				v = "true"
			case isList(fl):
				v = "a\nb"
			case fl.Value.Type() == "string":
				v = "x"
			}
			env[name] = v
		})
		a := &App{lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
		if err := a.applyEnv(c); err != nil {
			t.Fatalf("%s: %v", c.CommandPath(), err)
		}
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if envName(fl.Name) != "" && !fl.Changed {
				t.Errorf("%s: %s did not set --%s", c.CommandPath(), envName(fl.Name), fl.Name)
			}
			if isList(fl) && !strings.Contains(fl.Value.String(), "a") {
				t.Errorf("%s: --%s = %s from a list of two lines", c.CommandPath(), fl.Name, fl.Value)
			}
		})
	})
	if names["HEED_MAX_CRAWL_DELAY"] != "max-crawl-delay" || names["HEED_AGENT"] != "agent" || names["HEED_INSECURE_SKIP_VERIFY"] != "insecure-skip-verify" {
		t.Errorf("derived names: %v", names)
	}
	_, out, _ := runHeed(t, "crawl", "--help")
	if !strings.Contains(out, envHelp) {
		t.Error("crawl --help does not say how the environment sets flags")
	}
}

// TestEnvPrecedence: a flag on the command line beats its variable,
// which beats --config, which beats the default; a bad value from the
// environment is a usage error naming the variable.
func TestEnvPrecedence(t *testing.T) {
	s := &site{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "crawl.yaml")
	pages := func(env map[string]string, config string, args ...string) string {
		t.Helper()
		os.WriteFile(cfg, []byte(config+"urls: ["+srv.URL+"/]\n"), 0o644)
		var out, errb bytes.Buffer
		a := New("heed", WithSpider(Pages()), WithOutput(&out, &errb))
		a.lookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		args = append([]string{"crawl", "--agent", "HeedBot", "--delay", "0", "--progress", "never", "--skiplog", "", "--retries", "0", "--config", cfg}, args...)
		if code := a.Run(context.Background(), args); code != 0 {
			return errb.String()
		}
		m := regexp.MustCompile(`(?m)^pages: (\d+)`).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("no pages line:\n%s", out.String())
		}
		return m[1]
	}
	if got := pages(nil, ""); got != "4" {
		t.Errorf("default: %s pages, want 4 (no limit)", got)
	}
	if got := pages(nil, "max-pages: 3\n"); got != "3" {
		t.Errorf("config over default: %s pages, want 3", got)
	}
	if got := pages(map[string]string{"HEED_MAX_PAGES": "2"}, "max-pages: 3\n"); got != "2" {
		t.Errorf("environment over config: %s pages, want 2", got)
	}
	if got := pages(map[string]string{"HEED_MAX_PAGES": "2"}, "max-pages: 3\n", "--max-pages", "1"); got != "1" {
		t.Errorf("flag over environment: %s pages, want 1", got)
	}
	for env, want := range map[string]string{"lots": `HEED_MAX_PAGES="lots": --max-pages`, "-1": "HEED_MAX_PAGES: --max-pages -1"} {
		got := pages(map[string]string{"HEED_MAX_PAGES": env}, "")
		if !strings.Contains(got, want) || strings.Count(strings.TrimSpace(got), "\n") != 0 {
			t.Errorf("HEED_MAX_PAGES=%s: %q, want one line with %q", env, got, want)
		}
	}
	// A list: one value per line.
	got := pages(map[string]string{"HEED_EXCLUDE": "/big$\n/flaky$"}, "")
	if got != "2" {
		t.Errorf("HEED_EXCLUDE of two lines: %s pages, want 2", got)
	}
}
