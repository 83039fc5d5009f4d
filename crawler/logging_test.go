package crawler_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/crawltest"
	"github.com/heedcrawl/heed/internal/testweb"
)

// flakySite serves pages that fail the ways a long crawl meets: /busy
// answers 503 with Retry-After: 1 the first time, /fail always 500,
// /broken hangs up without an answer. robots.txt is 404 (allow all).
func flakySite(t *testing.T) *httptest.Server {
	var busy atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<a href="/busy">b</a><a href="/fail">f</a><a href="/broken">x</a>`)
		case "/busy":
			if busy.Add(1) == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<p>ok</p>")
		case "/fail":
			w.WriteHeader(http.StatusInternalServerError)
		case "/broken":
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestWarningsAreSaidWhenTheyHappen crawls a flaky site beside a dead
// host and a host whose robots.txt is rate limited, and checks the
// warnings the crawl's logger received: each retry with its URL, try,
// status or error and next try; the 503 pause with its Retry-After; the
// requests whose tries are spent; the dead host's robots.txt outage with
// its next try and give-up time, and the give-ups with their queues. No
// record carries an empty error attribute.
func TestWarningsAreSaidWhenTheyHappen(t *testing.T) {
	t.Parallel()
	flaky := flakySite(t)
	hostile := startHostile(t, testweb.HostileConfig{Dead: 1})
	dead := hostile.Dead[0]
	logs := crawltest.NewLogs()
	c, err := crawler.New("HeedBot",
		crawler.WithLogger(logs.Logger()),
		crawler.WithDelay(0),
		crawler.WithTimeout(300*time.Millisecond),
		crawler.WithRetries(1, 10*time.Millisecond),
		crawler.WithRobotsGiveUp(time.Second, 100*time.Millisecond),
		crawler.WithAllowedDomains("127.0.0.1"),
	)
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	run(t, c, flaky.URL+"/", dead+"/", dead+"/a", hostile.RateLimited+"/")

	warn := slog.LevelWarn
	must := func(what string, got []crawltest.LogRecord, keys ...string) crawltest.LogRecord {
		t.Helper()
		if len(got) == 0 {
			t.Fatalf("no %s warning in:\n%s", what, dump(logs))
		}
		for _, k := range keys {
			if got[0].Attr(k) == "" {
				t.Errorf("%s warning without %s: %v", what, k, got[0])
			}
		}
		return got[0]
	}
	must("retry of /busy", logs.Find(warn, "retrying", "url", flaky.URL+"/busy", "attempt", "1", "status", "503", "retry_after", "1"), "next_try", "wait")
	must("retry of /broken", logs.Find(warn, "retrying", "url", flaky.URL+"/broken", "attempt", "1"), "error", "next_try")
	must("tries spent on /broken", logs.Find(warn, "no tries left", "url", flaky.URL+"/broken", "tries", "2"), "error")
	must("tries spent on /fail", logs.Find(warn, "no tries left", "url", flaky.URL+"/fail", "status", "500"))
	auth := strings.TrimSuffix(flaky.URL, "/")
	must("503 pause", logs.Find(warn, "authority paused", "authority", auth, "status", "503", "retry_after", "1", "pause", "1s"), "until")
	must("dead robots.txt outage", logs.Find(warn, "robots.txt unreachable: the authority's URLs wait", "authority", dead, "failures", "1"), "error", "next_try", "give_up_at")
	must("dead robots.txt give-up", logs.Find(warn, "robots.txt unreachable: giving up", "authority", dead), "since")
	must("dead host given up", logs.Find(warn, "authority given up", "authority", dead, "reason", "robots-unreachable"), "queued")
	must("rate-limited robots.txt", logs.Find(warn, "robots.txt unreachable", "authority", hostile.RateLimited, "status", "429"))
	must("rate-limited host given up", logs.Find(warn, "authority given up", "authority", hostile.RateLimited, "reason", "robots-unreachable"))
	if n := len(logs.Find(warn, "authority given up", "authority", dead)); n != 1 {
		t.Errorf("the dead host's give-up said %d times, want once", n)
	}
	for _, r := range logs.Records() {
		if v, ok := r.Attrs["error"]; ok && v.String() == "" {
			t.Errorf("record with an empty error attribute: %v", r)
		}
	}
}

func dump(l *crawltest.Logs) string {
	var b strings.Builder
	for _, r := range l.Records() {
		b.WriteString(r.String() + "\n")
	}
	return b.String()
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// fullDisk fails every export.
type fullDisk struct{}

func (fullDisk) Export(any) error { return errors.New("disk full") }
func (fullDisk) Close() error     { return nil }

// TestOutputErrorsAreSaidOnce: a skip log and a feed that cannot be
// written are each an error record when the first write fails, and the
// losses after it are debug records (the summary counts them).
func TestOutputErrorsAreSaidOnce(t *testing.T) {
	t.Parallel()
	site := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 12, LinksPerPage: 3, Seed: 4})
	logs := crawltest.NewLogs()
	c, err := crawler.New("HeedBot", append(siteOptions(site),
		crawler.WithLogger(logs.Logger()), crawler.WithSkipLog(failingWriter{}), crawler.WithMaxPages(6))...)
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.OnHTML("title", func(e *crawler.HTMLElement) { e.Emit(e.Text) })
	c.Export(fullDisk{})
	sum, err := c.Run(context.Background(), everyHost(site)...)
	if err == nil {
		t.Fatal("a crawl whose skip log failed succeeded")
	}
	if sum.Skipped.Failed < 2 || sum.Stats.ItemErrors < 2 {
		t.Fatalf("want at least two lost records and items, got %d and %d", sum.Skipped.Failed, sum.Stats.ItemErrors)
	}
	for _, msg := range []string{"skip log: record not written", "item not exported"} {
		errs, debugs := logs.Find(slog.LevelError, msg), logs.Find(slog.LevelDebug, msg)
		if len(errs) != 1 || len(debugs) == 0 {
			t.Errorf("%q: %d error records and %d debug records, want 1 and more", msg, len(errs), len(debugs))
		}
		if len(errs) == 1 && (errs[0].Attr("url") == "" || !strings.Contains(errs[0].Attr("error"), "disk full")) {
			t.Errorf("%q without its URL or error: %v", msg, errs[0])
		}
	}
}

// TestDefaultLoggerSaysWarnings: a crawl without WithLogger sends its
// warnings to slog's default logger and drops its info records; a
// callback name no handler has is warned of once, however many requests
// name it.
func TestDefaultLoggerSaysWarnings(t *testing.T) {
	// Not parallel: it replaces slog's default logger for its duration.
	logs := crawltest.NewLogs()
	old := slog.Default()
	slog.SetDefault(logs.Logger())
	defer slog.SetDefault(old)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<a href="/a">a</a><a href="/b">b</a><a href="/c">c</a>`)
	}))
	defer srv.Close()
	c, err := crawler.New("HeedBot", crawler.WithDelay(0))
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href"), crawler.WithCallback("detial")) })
	c.Handle("detail").OnHTML("p", func(*crawler.HTMLElement) {})
	sum := run(t, c, srv.URL+"/")
	if sum.Stats.CallbackErrors != 3 {
		t.Errorf("%d callback errors, want 3 (one per page naming the missing handler)", sum.Stats.CallbackErrors)
	}
	got := logs.Find(slog.LevelWarn, "no handler for callback", "callback", "detial")
	if len(got) != 1 {
		t.Fatalf("the misspelt callback warned %d times, want once:\n%s", len(got), dump(logs))
	}
	if got[0].Attr("handlers") != "[detail]" {
		t.Errorf("the warning names the handlers %q, want [detail]", got[0].Attr("handlers"))
	}
	for _, r := range logs.Records() {
		if r.Level < slog.LevelWarn {
			t.Errorf("the default logger let through a %s record: %v", r.Level, r)
		}
	}
}

type listing struct{ Name string }
type rating struct{ Stars int }

// TestStageOfTheOtherPointerFormIsReported: a Stage for listing while the
// spider emits *listing is warned of once, at the first item; a stage no
// item matched is warned of once at the end; a stage that matched is
// not.
func TestStageOfTheOtherPointerFormIsReported(t *testing.T) {
	t.Parallel()
	site := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 5, LinksPerPage: 2, Seed: 2})
	logs := crawltest.NewLogs()
	c, err := crawler.New("HeedBot", append(siteOptions(site), crawler.WithLogger(logs.Logger()))...)
	if err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *crawler.HTMLElement) { e.Follow(e.Attr("href")) })
	c.OnHTML("title", func(e *crawler.HTMLElement) { e.Emit(&listing{Name: e.Text}) })
	var byValue, byPointer atomic.Int64
	c.Pipeline(
		crawler.Stage(func(_ context.Context, p listing) (listing, error) { byValue.Add(1); return p, nil }),
		crawler.Stage(func(_ context.Context, r rating) (rating, error) { return r, nil }),
		crawler.Stage(func(_ context.Context, p *listing) (*listing, error) { byPointer.Add(1); return p, nil }),
	)
	sum := run(t, c, everyHost(site)...)
	if sum.Stats.Items < 2 || byValue.Load() != 0 || byPointer.Load() != sum.Stats.Items {
		t.Fatalf("items %d, value stage %d, pointer stage %d", sum.Stats.Items, byValue.Load(), byPointer.Load())
	}
	warns := logs.Find(slog.LevelWarn, "pipeline stage")
	if len(warns) != 2 {
		t.Fatalf("%d stage warnings, want 2:\n%s", len(warns), dump(logs))
	}
	form := logs.Find(slog.LevelWarn, "received a *crawler_test.listing", "stage", "0", "stage_type", "crawler_test.listing", "item_type", "*crawler_test.listing")
	if len(form) != 1 {
		t.Errorf("no warning of stage 0's pointer form:\n%s", dump(logs))
	}
	none := logs.Find(slog.LevelWarn, "matched none", "stage", "1", "stage_type", "crawler_test.rating", "item_types", "[*crawler_test.listing]")
	if len(none) != 1 || none[0].Attr("items") != strconvI(sum.Stats.Items) {
		t.Errorf("no end-of-crawl warning of stage 1 with %d items:\n%s", sum.Stats.Items, dump(logs))
	}
}

func strconvI(n int64) string { return slog.Int64Value(n).String() }
