package warnings_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/heedcrawl/heed/warnings"
)

// TestLoggerPassesWarningsToTheDefaultOfTheMoment: the logger made
// before slog.SetDefault writes to the default set after it, warnings
// and errors only, with its attributes and groups.
func TestLoggerPassesWarningsToTheDefaultOfTheMoment(t *testing.T) {
	l := warnings.Logger().With("crawl", "c1").WithGroup("g")
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(old)
	l.Debug("debug record")
	l.Info("info record")
	l.Warn("warn record", "n", 1)
	l.Error("error record")
	out := buf.String()
	if strings.Contains(out, "debug record") || strings.Contains(out, "info record") {
		t.Errorf("records below warning level got through:\n%s", out)
	}
	if !strings.Contains(out, `msg="warn record" crawl=c1 g.n=1`) || !strings.Contains(out, `msg="error record" crawl=c1`) {
		t.Errorf("the warning and the error, with their attributes, are missing:\n%s", out)
	}
	if l.Enabled(t.Context(), slog.LevelInfo) {
		t.Error("the logger says info is enabled")
	}
}

// TestOnceSaysEachKeyOnce: of many goroutines asking for the same key,
// one is first; keys of different types are different keys.
func TestOnceSaysEachKeyOnce(t *testing.T) {
	type callback string
	type stage int
	var o warnings.Once
	var firsts atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for _, k := range []any{callback("a"), callback("b"), stage(1), 1} {
				if o.First(k) {
					firsts.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := firsts.Load(); n != 4 {
		t.Errorf("%d firsts for 4 keys asked 16 times each, want 4", n)
	}
}
