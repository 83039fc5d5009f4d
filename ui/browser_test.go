package ui

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// The browser tests drive headless Chromium (Debian's chromium package)
// through the pages. Without a browser they skip, unless
// HEED_REQUIRE_BROWSER is set (as CI sets it): then they fail. Each saves
// screenshots under testout/ (git-ignored) for a person to look at.

// browserPath finds Chromium.
func browserPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless Chromium shared by the subtests of a test.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := browserPath()
	if path == "" {
		if os.Getenv("HEED_REQUIRE_BROWSER") != "" {
			t.Fatal("HEED_REQUIRE_BROWSER is set and no chromium is installed (apt-get install chromium)")
		}
		t.Skip("no chromium on this machine (apt-get install chromium; HEED_REQUIRE_BROWSER=1 makes this a failure)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc() })
	b := &browser{ctx: ctx}
	msgs := chromedp.Console(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				b.mu.Lock()
				b.errors = append(b.errors, m.String()+" ("+m.URL+")")
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// do runs actions and fails the test on an error.
func (b *browser) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// get runs one action with a result.
func get1[T any](t *testing.T, b *browser, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// noErrors fails the test if a page logged an error since the last call.
func (b *browser) noErrors(t *testing.T, page string) {
	t.Helper()
	b.do(t, chromedp.Sleep(100*time.Millisecond)) // late messages
	b.mu.Lock()
	errs := b.errors
	b.errors = nil
	b.mu.Unlock()
	if len(errs) > 0 {
		t.Errorf("%s: console errors:\n%s", page, strings.Join(errs, "\n"))
	}
}

// screenshot saves the whole page as testout/name.png.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	png := get1(t, b, chromedp.FullScreenshot(100))
	if err := os.MkdirAll("testout", 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join("testout", name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: ui/%s", p)
}

func TestBrowser(t *testing.T) {
	b := newBrowser(t)
	t.Run("tester", func(t *testing.T) { browseTester(t, b) })
	t.Run("live", func(t *testing.T) { browseLive(t, b) })
	t.Run("job", func(t *testing.T) { browseJob(t, b) })
	t.Run("report", func(t *testing.T) { browseReport(t, b) })
}

// browseTester pastes a robots.txt and URLs in the tester and finds the
// deciding lines marked.
func browseTester(t *testing.T, b *browser) {
	ts := newServer(t)
	b.do(t,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(ts.URL+"/robots"),
		chromedp.WaitVisible(chromedp.ID("robots")),
		chromedp.SetValue(chromedp.ID("robots"), hostile),
		chromedp.SetValue(chromedp.ID("agent"), "HeedBot"),
		chromedp.SetValue(chromedp.ID("urls"), "/private/x\n/private/open\n/fish.html\n/elsewhere"),
		chromedp.Click(chromedp.CSS(`button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.ID("verdicts")),
	)
	cls7 := get1(t, b, chromedp.AttributeValue(chromedp.ID("L7"), "class")).Value
	cls6 := get1(t, b, chromedp.AttributeValue(chromedp.ID("L6"), "class")).Value
	text3 := get1(t, b, chromedp.Text(chromedp.CSS("#L3 .t")))
	verdict1 := get1(t, b, chromedp.Text(chromedp.ID("u1")))
	if !strings.Contains(cls7, "decides-d") || !strings.Contains(cls7, "group") {
		t.Errorf("line 7 (Disallow: /private/ of HeedBot's group) has class %q", cls7)
	}
	if !strings.Contains(cls6, "decides-a") {
		t.Errorf("line 6 (Allow: /private/open) has class %q", cls6)
	}
	if text3 != "Disallow: /<script>alert(1)</script>" {
		t.Errorf("line 3 shows %q", text3)
	}
	if !strings.Contains(verdict1, "DISALLOWED") && !strings.Contains(strings.ToLower(verdict1), "disallowed") || !strings.Contains(verdict1, "line 7") {
		t.Errorf("verdict 1 reads %q", verdict1)
	}
	b.noErrors(t, "tester")
	b.screenshot(t, "tester")
	b.do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	b.screenshot(t, "tester-phone")
	b.do(t, chromedp.EmulateViewport(1280, 900))
}

// browseLive watches a crawl of a generated site on the live page and
// sees the counters and the per-host timeline move.
func browseLive(t *testing.T, b *browser) {
	site, err := testweb.StartGenerated(testweb.Generated{Hosts: 3, PagesPerHost: 14, PageBytes: 512, LinksPerPage: 3, CrawlDelay: 0.15, DisallowFraction: 0.15, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	c, err := crawler.New("HeedBot", crawler.WithDelay(0), crawler.WithAllowedDomains(site.Domains()...), crawler.WithStartLog(StartLogSize))
	if err != nil {
		t.Fatal(err)
	}
	c.FollowLinks()
	m := NewMonitor(c, WithSampleInterval(200*time.Millisecond))
	ts := newServer(t, WithMonitor(m))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := c.Run(ctx, site.Seeds()...); done <- err }()

	read := func() (pages, ticks int) {
		p := get1(t, b, chromedp.Text(chromedp.CSS(`[data-k="pages"]`)))
		n := get1(t, b, chromedp.Evaluate[int](`document.querySelectorAll("#chart-timeline line.tick").length`))
		pages, _ = strconv.Atoi(strings.TrimSpace(p))
		return pages, n
	}
	b.do(t, chromedp.Navigate(ts.URL+"/live"), chromedp.WaitVisible(chromedp.ID("chart-timeline")))
	p1, n1 := read()
	var p2, n2 int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		b.do(t, chromedp.Sleep(300*time.Millisecond))
		if p2, n2 = read(); p2 > p1 && n2 > n1 {
			break
		}
	}
	if p2 <= p1 || n2 <= n1 {
		t.Fatalf("the page did not update: pages %d → %d, timeline ticks %d → %d", p1, p2, n1, n2)
	}
	b.screenshot(t, "live-running")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b.do(t, chromedp.Sleep(500*time.Millisecond))
	state := get1(t, b, chromedp.Text(chromedp.CSS(`[data-k="state"]`)))
	p3, n3 := read()
	want := len(site.PageRequests())
	if state != "finished" || p3 != want {
		t.Errorf("after the crawl: state %q, pages %d (site served %d), %d ticks", state, p3, want, n3)
	}
	rows := get1(t, b, chromedp.Evaluate[int](`document.querySelectorAll("#authorities tbody tr").length`))
	if rows != 3 {
		t.Errorf("%d authority rows, want 3", rows)
	}
	b.noErrors(t, "live")
	b.screenshot(t, "live-finished")
	b.do(t, chromedp.Navigate(ts.URL+"/skips?reason=robots-disallow"), chromedp.WaitVisible(chromedp.ID("records")))
	first := get1(t, b, chromedp.Text(chromedp.CSS("#records li")))
	if !strings.Contains(first, "Disallow: /d/") || !strings.Contains(first, "line 3") {
		t.Errorf("first skip record reads %q", first)
	}
	b.noErrors(t, "skips")
	b.screenshot(t, "skips")
	b.do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(ts.URL+"/live"), chromedp.WaitVisible(chromedp.ID("chart-timeline")))
	b.screenshot(t, "live-phone")
	b.do(t, chromedp.EmulateViewport(1280, 900))
}

// browseJob opens a paused job's state.
func browseJob(t *testing.T, b *browser) {
	ts := newServer(t, WithStateDir(pausedJob(t)))
	b.do(t, chromedp.Navigate(ts.URL+"/job"), chromedp.WaitVisible(chromedp.CSS("main")))
	lead := get1(t, b, chromedp.Text(chromedp.CSS("main .lead")))
	if !strings.Contains(lead, "paused") {
		t.Errorf("job page says %q", lead)
	}
	b.noErrors(t, "job")
	b.screenshot(t, "job")
	// The fleet page, from a fixed view (redisfleet's own test reads a
	// real one).
	fs := newServer(t, WithFleet(fixedFleet{&FleetView{Shared: stats.Shared{CrawlID: "news", Pages: 1200, Bytes: 9 << 20, Queued: 340, Leased: 16, Reclaimed: 2,
		Skipped: map[skiplog.Reason]int64{skiplog.RobotsDisallow: 31, skiplog.Offsite: 12}},
		Authorities: []FleetAuthority{{Authority: "https://a.example", Pages: 700, Queued: 300, Skipped: 30}, {Authority: "https://b.example", Pages: 500, Queued: 40, Skipped: 13}}}}))
	b.do(t, chromedp.Navigate(fs.URL+"/fleet"), chromedp.WaitVisible(chromedp.CSS("main table")))
	b.noErrors(t, "fleet")
	b.screenshot(t, "fleet")
}

type fixedFleet struct{ v *FleetView }

func (f fixedFleet) Fleet(context.Context) (*FleetView, error) { return f.v, nil }

// browseReport opens the inventory report from its file.
func browseReport(t *testing.T, b *browser) {
	site := sitemapSite(t)
	path, err := filepath.Abs(filepath.Join(t.TempDir(), "inventory.html"))
	if err != nil {
		t.Fatal(err)
	}
	writeReport(t, site.URL, path)
	b.do(t, chromedp.Navigate("file://"+path), chromedp.WaitVisible(chromedp.ID("disallowed")))
	urls := get1(t, b, chromedp.Text(chromedp.ID("n-urls")))
	bars := get1(t, b, chromedp.Evaluate[int](`document.querySelectorAll("svg rect.bar").length`))
	if urls != "6" || bars != 3 {
		t.Errorf("report shows %s URLs and %d lastmod bars", urls, bars)
	}
	b.noErrors(t, "report")
	b.screenshot(t, "inventory-report")
}

func listenLoopback(tb testing.TB) net.Listener {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return ln
}
