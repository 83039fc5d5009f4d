package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/internal/testweb"
	"github.com/heedcrawl/heed/redisstore/redistest"
	"github.com/heedcrawl/heed/skiplog"
)

// TestHostGiveUpAloneAndInAFleet: --host-give-up gives a host whose pages
// never answer up after that many requests in a row without an answer,
// the same way in one process and in a crawl shared through Redis: the
// same skip-log records (host-unreachable with the failures as evidence)
// for its remaining URLs, and no more requests to it than that. 0 never
// gives up; a negative count is refused.
func TestHostGiveUpAloneAndInAFleet(t *testing.T) {
	t.Parallel()
	h, err := testweb.StartHostile(testweb.HostileConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	srv := redistest.Start(t)
	dir := t.TempDir()
	tried := 0 // requests to silent pages so far
	crawl := func(name string, extra ...string) map[string]*skiplog.Record {
		t.Helper()
		log := filepath.Join(dir, name+".jsonl")
		args := append([]string{"crawl", "--agent", "HeedBot", "--skiplog", log, "--progress", "never",
			"--delay", "0", "--timeout", "300ms", "--retries", "2", "--retry-wait", "100ms",
			"--host-give-up", "2", "--allow-domain", "127.0.0.1"}, extra...)
		code, _, stderr := runHeed(t, append(args, h.Silent+"/")...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		f, err := os.Open(log)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs := map[string]*skiplog.Record{}
		if err := skiplog.Read(f, func(r *skiplog.Record) error { recs[r.URL] = r; return nil }); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, hit := range h.HitsOn(h.Silent) {
			if strings.HasPrefix(hit.Path, "/s/") {
				n++
			}
		}
		if n-tried > 4 {
			t.Errorf("%s: %d requests to silent pages, want at most 4 (two in a row give the host up)", name, n-tried)
		}
		tried = n
		return recs
	}
	groups := map[string]int{}
	for _, run := range []struct {
		name  string
		extra []string
	}{
		{"alone", nil},
		{"fleet", []string{"--redis", srv.URL(0), "--crawl-id", fmt.Sprintf("giveup-%d", os.Getpid())}},
	} {
		recs := crawl(run.name, run.extra...)
		for i := 0; i < testweb.SilentPages; i++ {
			u := fmt.Sprintf("%s/s/%d", h.Silent, i)
			switch r := recs[u]; {
			case r == nil:
				t.Errorf("%s: %s has no record", run.name, u)
			case r.Reason == skiplog.HostUnreachable:
				groups[run.name]++
				if r.Err == "" || !strings.Contains(r.Detail, "2 requests in a row") {
					t.Errorf("%s: %s: host-unreachable without its evidence: %+v", run.name, u, r)
				}
			case r.Reason != skiplog.FetchError:
				t.Errorf("%s: %s: reason %s, want host-unreachable", run.name, u, r.Reason)
			}
		}
		if groups[run.name] < testweb.SilentPages-2 {
			t.Errorf("%s: %d of %d URLs given up as a group", run.name, groups[run.name], testweb.SilentPages)
		}
	}
	if code, _, stderr := runHeed(t, "crawl", "--agent", "HeedBot", "--host-give-up", "-1", h.Silent+"/"); code != 2 || !strings.Contains(stderr, "--host-give-up -1") {
		t.Errorf("--host-give-up -1: exit %d, %s; want a usage error naming the flag", code, stderr)
	}
}
