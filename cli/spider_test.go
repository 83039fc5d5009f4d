package cli

import (
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/internal/testweb"
)

// TestSpiderProgramWearsTheCLI builds a spider program whose main is
// this package (examples/collector: its own spider, its own items) and
// runs its crawl as heed crawl's state jobs run: --state, --out and
// --metrics, paused with SIGINT, its status read, then resumed to the
// end. The invariants are heed crawl's: every URL the site's crawl
// discovers is fetched or in the skip log with the oracle's reason,
// exactly once; no page is fetched twice across the pause; the feed holds
// whole records after the interrupt, one per fetched page.
func TestSpiderProgramWearsTheCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	bin := buildCommand(t, "github.com/heedcrawl/heed/examples/collector")
	g := testweb.Generated{Hosts: 3, PagesPerHost: 50, PageBytes: 1024, LinksPerPage: 5, CrossHostFraction: 0.2, DisallowFraction: 0.1, Seed: 11}
	j := newStateJob(t, bin, g, 25*time.Millisecond)
	j.extra = []string{"--metrics", "127.0.0.1:0"}
	metricsLine := regexp.MustCompile(`metrics: (http://\S+/metrics)`)
	var scraped string
	j.probe = func(out string) bool {
		m := metricsLine.FindStringSubmatch(out)
		if m == nil {
			return false
		}
		resp, err := http.Get(m[1])
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		scraped = string(b)
		return strings.Contains(scraped, "heed_pages_total")
	}

	r := j.run(syscall.SIGINT, 20, 0)
	if r.code != 130 || !strings.Contains(r.out, "crawl paused") || !strings.Contains(r.out, "run the same command to resume") {
		t.Fatalf("paused run: exit %d\n%s", r.code, r.out)
	}
	if !strings.Contains(scraped, `agent="HeedBot"`) {
		t.Errorf("the running program served no metrics of its crawl:\n%.500s", scraped)
	}
	if n := len(heedtest.ReadFeed(t, j.items)); n < 20 {
		t.Errorf("the feed holds %d items after the interrupt, want at least 20", n)
	}
	out, err := exec.Command(bin, "status", "--state", j.dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "job: paused") {
		t.Errorf("the program's status of its paused job: %v\n%s", err, out)
	}

	j.probe = nil
	final := j.finish()
	if n := j.check(0, 0); n != 0 {
		t.Errorf("%d pages fetched twice across the pause", n)
	}
	t.Logf("paused run:\n%s\nfinal run:\n%s", r.out, final.out)
}
