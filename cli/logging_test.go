package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/internal/testweb"
)

// logSite is a small site beside a dead host: the crawl logs robots.txt
// fetches (info), the dead host's outage and give-up (warnings) and
// statistics.
func logSite(t *testing.T) (site string, dead string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/a":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<a href="/a">a</a><a href="/gone">g</a>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	h, err := testweb.StartHostile(testweb.HostileConfig{Dead: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return srv.URL, h.Dead[0]
}

// TestLogFormatJSON: with --log-format json every line of stderr is one
// JSON object with a level and a message, the statistics records
// included, and the dead host's outage is a warning with its next try.
func TestLogFormatJSON(t *testing.T) {
	t.Parallel()
	site, dead := logSite(t)
	code, _, stderr := runHeed(t, "crawl", "--agent", "HeedBot", "--skiplog", "", "--progress", "never",
		"--delay", "0", "--timeout", "300ms", "--robots-give-up", "1s", "--allow-domain", "127.0.0.1",
		"--log-format", "json", "--log-level", "info", "--stats-interval", "20ms", site+"/", dead+"/")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	msgs := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("stderr line is not JSON: %q (%v)", line, err)
		}
		level, _ := rec["level"].(string)
		msg, _ := rec["msg"].(string)
		if level == "" || msg == "" {
			t.Errorf("record without level or msg: %q", line)
		}
		if e, ok := rec["error"]; ok && e == "" {
			t.Errorf("record with an empty error: %q", line)
		}
		msgs[level+" "+msg]++
		if strings.HasPrefix(msg, "robots.txt unreachable: the authority") && rec["next_try"] == nil {
			t.Errorf("outage warning without its next try: %q", line)
		}
	}
	for _, want := range []string{
		"INFO robots.txt fetched",
		"INFO stats",
		"WARN robots.txt unreachable: the authority's URLs wait (complete disallow, RFC 9309 §2.3.1.4)",
		"WARN authority given up: its URLs are skip-logged",
	} {
		if msgs[want] == 0 {
			t.Errorf("no %q record in:\n%s", want, stderr)
		}
	}
}

// TestLogFormatText: the text log has no empty error attribute on a
// successful fetch; the default level (warn) hides the info records and
// says the outage; --verbose shows the info records.
func TestLogFormatText(t *testing.T) {
	t.Parallel()
	site, dead := logSite(t)
	args := []string{"crawl", "--agent", "HeedBot", "--skiplog", "", "--progress", "never",
		"--delay", "0", "--timeout", "300ms", "--robots-give-up", "1s", "--allow-domain", "127.0.0.1", site + "/", dead + "/"}
	code, _, stderr := runHeed(t, append(args, "-v")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, `error=""`) {
		t.Errorf("empty error attribute in:\n%s", stderr)
	}
	if !strings.Contains(stderr, "level=INFO msg=\"robots.txt fetched\"") || !strings.Contains(stderr, "level=WARN") {
		t.Errorf("--verbose: want the info and the warning records:\n%s", stderr)
	}
	code, _, stderr = runHeed(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, "level=INFO") || !strings.Contains(stderr, "level=WARN msg=\"robots.txt unreachable") {
		t.Errorf("default level: want the warnings only:\n%s", stderr)
	}
}

// TestLogFlagsRefused: a level or format heed does not know is a usage
// error naming the flag.
func TestLogFlagsRefused(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--log-level", "loud"}, {"--log-format", "xml"}} {
		code, _, stderr := runHeed(t, append([]string{"crawl", "--agent", "HeedBot", "--skiplog", "", "http://127.0.0.1:1/"}, args...)...)
		if code != 2 || !strings.Contains(stderr, args[0]) {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}
