package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// configURLsKey is the config file key for the seeds, which are arguments
// rather than a flag on the command line.
const configURLsKey = "urls"

// crawlConfig is a parsed config file: flag names to their values (a
// list for repeatable flags) and the line each is on, and the seeds.
type crawlConfig struct {
	path   string
	values map[string][]string
	lines  map[string]int
	urls   []string
	set    map[string]bool // the flags the file set (the command line gave no value)
}

func newConfig() *crawlConfig {
	return &crawlConfig{values: map[string][]string{}, lines: map[string]int{}, set: map[string]bool{}}
}

// parseConfig reads a YAML config file for `heed crawl`. Its keys are the
// command's long flag names without the dashes ("delay: 2s",
// "allow-domain: [example.com]") plus "urls" for the seeds; every value is
// a scalar or a list of scalars. Keys that name no flag are an error, so a
// misspelt setting is not silently ignored.
func parseConfig(data []byte, flags *pflag.FlagSet) (*crawlConfig, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return newConfig(), nil
		}
		return nil, err
	}
	if len(doc.Content) == 0 {
		return newConfig(), nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return newConfig(), nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: the file must be a mapping of settings (key: value)", root.Line)
	}
	cfg := newConfig()
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: a key must be a name", k.Line)
		}
		key := k.Value
		vals, err := scalars(v)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", v.Line, key, err)
		}
		if key == configURLsKey {
			for i, u := range vals {
				if err := checkSeed(u); err != nil {
					return nil, fmt.Errorf("line %d: urls: %v", valueLine(v, i), err)
				}
			}
			cfg.urls = append(cfg.urls, vals...)
			continue
		}
		fl := flags.Lookup(key)
		if fl == nil || key == "config" || key == "help" {
			return nil, fmt.Errorf("line %d: unknown setting %q (settings are the flag names of heed crawl, and urls)", k.Line, key)
		}
		if _, dup := cfg.values[key]; dup {
			return nil, fmt.Errorf("line %d: %s given twice", k.Line, key)
		}
		if len(vals) != 1 && !strings.HasSuffix(fl.Value.Type(), "Array") && !strings.HasSuffix(fl.Value.Type(), "Slice") {
			return nil, fmt.Errorf("line %d: %s takes one value, not a list", v.Line, key)
		}
		cfg.values[key] = vals
		cfg.lines[key] = v.Line
	}
	return cfg, nil
}

// valueLine is the line of the i-th value of a value or list.
func valueLine(v *yaml.Node, i int) int {
	if v.Kind == yaml.SequenceNode && i < len(v.Content) {
		return v.Content[i].Line
	}
	return v.Line
}

// scalars returns a value or a list of values as strings.
func scalars(n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, errors.New("no value")
		}
		return []string{n.Value}, nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
				return nil, errors.New("a list may hold only plain values")
			}
			out = append(out, c.Value)
		}
		return out, nil
	}
	return nil, errors.New("want a value or a list of values")
}

// applyConfig reads --config, if given, and sets every flag the command
// line did not. It returns the file's settings (nil without --config):
// its urls are the seeds when the command line gives none.
func (f *crawlFlags) applyConfig(cmd *cobra.Command) (*crawlConfig, error) {
	return f.configFlag.apply(cmd)
}

// apply reads --config, if given, and sets every flag of cmd the command
// line did not (crawl's and inventory's).
func (f *configFlag) apply(cmd *cobra.Command) (*crawlConfig, error) {
	if f.config == "" {
		return nil, nil
	}
	data, err := os.ReadFile(f.config)
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("--config: %w", err)}
	}
	cfg, err := parseConfig(data, cmd.Flags())
	if err != nil {
		return nil, usageError("--config %s: %v", f.config, err)
	}
	cfg.path = f.config
	keys := make([]string, 0, len(cfg.values))
	for k := range cfg.values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fl := cmd.Flags().Lookup(k)
		if fl.Changed {
			continue // the command line wins
		}
		cfg.set[k] = true
		for _, v := range cfg.values[k] {
			if err := cmd.Flags().Set(k, v); err != nil {
				return nil, usageError("--config %s: line %d: %s: %v", f.config, cfg.lines[k], k, err)
			}
		}
	}
	return cfg, nil
}

// locate names the config file's line in the error of a value it set.
func (cfg *crawlConfig) locate(err error) error {
	var fe *flagError
	if cfg == nil || !errors.As(err, &fe) || !cfg.set[fe.flag] {
		return err
	}
	if fe.value == "" {
		return usageError("--config %s: line %d: %s: %s", cfg.path, cfg.lines[fe.flag], fe.flag, fe.want)
	}
	return usageError("--config %s: line %d: %s: %s: %s", cfg.path, cfg.lines[fe.flag], fe.flag, fe.value, fe.want)
}
