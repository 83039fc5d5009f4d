package cli

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	flags := New("heed").crawlCommand().Flags()
	for _, tt := range []struct {
		name, in string
		want     map[string][]string
		urls     []string
		err      string
	}{
		{"empty", "", map[string][]string{}, nil, ""},
		{"null document", "~\n", map[string][]string{}, nil, ""},
		{"scalars and lists", "agent: HeedBot\ndelay: 2s\nmax-pages: 10\nverbose: true\nallow-domain: [a.example, b.example]\nurls:\n  - https://a.example/\n",
			map[string][]string{"agent": {"HeedBot"}, "delay": {"2s"}, "max-pages": {"10"}, "verbose": {"true"}, "allow-domain": {"a.example", "b.example"}},
			[]string{"https://a.example/"}, ""},
		{"unknown", "agnet: X\n", nil, nil, `line 1: unknown setting "agnet"`},
		{"twice", "agent: A\nagent: B\n", nil, nil, "line 2: agent given twice"},
		{"list for a single value", "delay: [1s, 2s]\n", nil, nil, "takes one value"},
		{"null value", "delay:\n", nil, nil, "no value"},
		{"nested", "agent:\n  name: X\n", nil, nil, "want a value"},
		{"list of maps", "include:\n  - a: b\n", nil, nil, "only plain values"},
		{"sequence root", "- a\n", nil, nil, "must be a mapping"},
		{"bad yaml", "agent: [\n", nil, nil, "yaml"},
		{"help is not a setting", "help: true\n", nil, nil, "unknown setting"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig([]byte(tt.in), flags)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.values, tt.want) || !reflect.DeepEqual(cfg.urls, tt.urls) {
				t.Errorf("got %v %v", cfg.values, cfg.urls)
			}
		})
	}
}

// FuzzParseConfig: any file gives settings or an error, never a panic,
// and every setting it gives names a flag.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"", "agent: HeedBot\n", "urls: [a, b]\ndelay: 1s\n", "allow-domain:\n - x\n - y\n", "- a\n", "a: &x [1]\nb: *x\n", "{agent: X, delay: 1s}", "agent: !!binary aGVsbG8=\n"} {
		f.Add([]byte(s))
	}
	flags := New("heed").crawlCommand().Flags()
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parseConfig(data, flags)
		if err != nil {
			return
		}
		for k := range cfg.values {
			if flags.Lookup(k) == nil {
				t.Errorf("setting %q names no flag", k)
			}
		}
	})
}
