package cli

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// busySnapshot is a crawl well under way, with numbers of a long job.
func busySnapshot() stats.Snapshot {
	return stats.Snapshot{
		Pages: 1234567, Elapsed: 26*time.Hour + 3*time.Minute, Waiting: 987654, InFlight: 16,
		Duplicates: 4567890, Items: 1200000, Statuses: map[int]int64{200: 1234000, 503: 567},
		Skipped: map[skiplog.Reason]int64{skiplog.FetchError: 89, skiplog.HostUnreachable: 1000, skiplog.RobotsDisallow: 20000},
	}
}

// TestProgressLineFitsTheWidth renders the crawl's progress at 40, 80 and
// 200 columns: no line reaches the last column (so none wraps), and the
// most important fields survive: pages and the recent rate and errors at
// 40, the queue and the hosts as well at 80, every field in full at 200.
func TestProgressLineFitsTheWidth(t *testing.T) {
	hosts := &crawler.Hosts{Active: 12, Waiting: 3400, Paused: 7, Robots: 25, Paced: true}
	fields := crawlFields(busySnapshot(), 42.5, hosts)
	for _, tc := range []struct {
		width int
		want  []string
	}{
		{40, []string{"pages 1234567", "42.5/s", "err 1656"}},
		{80, []string{"pages 1234567", "42.5/s", "err 1656", "q 987654", "robots 25", "hosts 12/3400/7"}},
		{200, []string{"pages 1234567 (42.5/s now, 13.2/s avg)", "errors 1656", "queued 987654", "robots.txt wait 25",
			"hosts 12 active 3400 waiting 7 paused", "in flight 16", "skipped 21089", "items 1200000", "duplicates 4567890", "26h3m0s"}},
	} {
		line := fitLine(fields, tc.width)
		if n := utf8.RuneCountInString(line); n >= tc.width {
			t.Errorf("width %d: %d columns: %q", tc.width, n, line)
		}
		for _, w := range tc.want {
			if !strings.Contains(line, w) {
				t.Errorf("width %d: no %q in %q", tc.width, w, line)
			}
		}
		if strings.ContainsAny(line, "\r\n") {
			t.Errorf("width %d: a line break in %q", tc.width, line)
		}
	}
	// Narrower than the most important field: cut, never wrapped.
	if line := fitLine(fields, 10); utf8.RuneCountInString(line) != 9 || !strings.HasPrefix(line, "pages") {
		t.Errorf("width 10: %q", line)
	}
	// A fleet's pacing is in Redis: the hosts waiting, no active count.
	line := fitLine(crawlFields(busySnapshot(), 1, &crawler.Hosts{Waiting: 5, Robots: 1}), 200)
	if !strings.Contains(line, "hosts 5 waiting") || strings.Contains(line, "active") {
		t.Errorf("unpaced hosts: %q", line)
	}
}

// TestRateMeterMeasuresTheRecentWindow: the recent rate is the pages of
// the last recentWindow over its length, not the average since the start.
func TestRateMeterMeasuresTheRecentWindow(t *testing.T) {
	var m rateMeter
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if r := m.add(t0, 0); r != 0 {
		t.Errorf("one sample: rate %v", r)
	}
	// 10 pages a second for a minute, then none for 30 s.
	var r float64
	for s := 1; s <= 60; s++ {
		r = m.add(t0.Add(time.Duration(s)*time.Second), int64(10*s))
	}
	if r != 10 {
		t.Errorf("steady 10/s: recent rate %v", r)
	}
	for s := 61; s <= 70; s++ {
		r = m.add(t0.Add(time.Duration(s)*time.Second), 600)
	}
	if r != 5 { // 100 pages in the window's 20 s
		t.Errorf("10 s without pages: recent rate %v, want 5", r)
	}
	for s := 71; s <= 90; s++ {
		r = m.add(t0.Add(time.Duration(s)*time.Second), 600)
	}
	if r != 0 {
		t.Errorf("20 s without pages: recent rate %v, want 0", r)
	}
	if len(m.samples) > int(recentWindow/time.Second)+1 {
		t.Errorf("%d samples kept for a %v window", len(m.samples), recentWindow)
	}
}

// lockedBuffer is a bytes.Buffer safe for the progress goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestProgressAwayFromATerminalIsLogRecords: in auto mode, with stderr
// not a terminal, the progress is log records in the log's format (no
// carriage returns, no escape codes), and none at all with "never" or
// when --stats-interval already logs.
func TestProgressAwayFromATerminalIsLogRecords(t *testing.T) {
	fields := func(time.Time) []progressField {
		return crawlFields(busySnapshot(), 3, &crawler.Hosts{Active: 1, Paced: true})
	}
	var buf lockedBuffer
	term := newLiveTerm(&buf)
	log := slog.New(slog.NewJSONHandler(term, nil))
	stop := progress{mode: "auto", term: term, log: log, every: 5 * time.Millisecond}.start(fields)
	for i := 0; i < 2000 && strings.Count(buf.String(), "\n") < 2; i++ {
		time.Sleep(time.Millisecond)
	}
	stop()
	out := buf.String()
	if strings.ContainsAny(out, "\r\033") {
		t.Errorf("terminal codes away from a terminal: %q", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		t.Fatalf("want progress records, got %q", out)
	}
	for _, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["msg"] != "progress" || rec["pages"] != float64(1234567) ||
			rec["errors"] != float64(1656) || rec["hosts_active"] != float64(1) || rec["rate_recent"] != float64(3) {
			t.Errorf("not a progress record: %q (%v)", line, err)
		}
	}
	for _, p := range []progress{{mode: "never", term: term, log: log, every: time.Millisecond}, {mode: "auto", term: term, log: log, every: time.Millisecond, logged: true}} {
		before := buf.String()
		stop := p.start(fields)
		time.Sleep(20 * time.Millisecond)
		stop()
		if buf.String() != before {
			t.Errorf("%+v wrote %q", p, strings.TrimPrefix(buf.String(), before))
		}
	}
}

// TestLogRecordsKeepTheLineBelowThem: a record logged while the line is
// shown clears the line, is written whole, and the line is drawn again;
// stopping clears it.
func TestLogRecordsKeepTheLineBelowThem(t *testing.T) {
	var buf bytes.Buffer
	term := newLiveTerm(&buf)
	term.draw("pages 1")
	slog.New(slog.NewTextHandler(term, nil)).Warn("robots.txt unreachable")
	term.draw("")
	out := buf.String()
	want := clearLine + "pages 1" + clearLine
	if !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "\n"+"pages 1"+clearLine) || !strings.Contains(out, "msg=\"robots.txt unreachable\"\n") {
		t.Errorf("got %q", out)
	}
}
