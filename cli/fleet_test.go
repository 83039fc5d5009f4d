package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/fleet"
)

// heed status --redis watches a shared crawl from outside: running with
// its live process and heartbeat, paused once that process is killed -9
// (and gone from the live ones); heed fleet clear refuses while the
// process is live and deletes the keys after; a finished crawl run again
// says it finished, opens no skip log and exits 0.
func TestFleetStatusClearAndFinished(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs fleets of it")
	}
	bin := buildHeed(t)
	f := newFleet(t, bin, fleetSite(2, 30))
	redisURL := f.srv.URL(0)
	status := func(extra ...string) (int, string, string) {
		return runHeed(t, append([]string{"status", "--redis", redisURL, "--crawl-id", f.id}, extra...)...)
	}
	readStatus := func() *fleet.Status {
		t.Helper()
		code, out, errOut := status("--json")
		var st fleet.Status
		if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
			t.Fatalf("status --json: exit %d, %v\n%s%s", code, err, out, errOut)
		}
		return &st
	}

	// 60 pages at one request per 300 ms per host: over 9 s of crawling.
	f.start(1, "--delay", "300ms")
	f.waitForHits(3, 60*time.Second)
	for deadline := time.Now().Add(30 * time.Second); readStatus().Live() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the process never showed live")
		}
		time.Sleep(20 * time.Millisecond)
	}
	pid := f.procs[0].cmd.Process.Pid
	host, _ := os.Hostname()
	code, out, errOut := status()
	if code != 0 {
		t.Fatalf("status of a running fleet: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"crawl: " + f.id, "state: running: 1 live processes", fmt.Sprintf("pid %d on %s  live", pid, host), "last heartbeat ",
		"progress: ", "leases outstanding", "URLs seen", "queued by authority:", "skipped: ", "robots.txt fetches: available=",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status of a running fleet lacks %q:\n%s", want, out)
		}
	}
	if st := readStatus(); st.State != fleet.StateRunning || len(st.Processes) != 1 || st.Processes[0].PID != pid || st.Pages == 0 {
		t.Errorf("status --json of a running fleet: %+v", st)
	}
	code, out, errOut = runHeed(t, "fleet", "clear", "--redis", redisURL, "--crawl-id", f.id)
	if code != 1 || !strings.Contains(errOut, fmt.Sprintf("1 live processes (pid %d on %s)", pid, host)) || !strings.Contains(errOut, "--force") {
		t.Errorf("fleet clear of a running crawl: exit %d\n%s%s", code, out, errOut)
	}

	f.procs[0].cmd.Process.Kill()
	<-f.procs[0].done
	for deadline := time.Now().Add(30 * time.Second); readStatus().Live() != 0; {
		if time.Now().After(deadline) {
			t.Fatal("the killed process still shows live after 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	code, out, _ = status()
	for _, want := range []string{"state: paused: ", "no live process", fmt.Sprintf("pid %d on %s  gone (no heartbeat", pid, host)} {
		if !strings.Contains(out, want) {
			t.Errorf("status of a fleet whose process was killed lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runHeed(t, "fleet", "clear", "--redis", redisURL, "--crawl-id", f.id)
	if code != 0 || !strings.Contains(out, "crawl "+f.id+": deleted ") || !strings.Contains(out, " keys from ") {
		t.Fatalf("fleet clear of a paused crawl: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut = status(); code != 2 || !strings.Contains(errOut, "has no keys") {
		t.Errorf("status of a cleared crawl: exit %d\n%s", code, errOut)
	}

	// The crawl run to its end, then run again.
	f.start(1)
	f.wait(map[int]bool{0: true}, 90*time.Second)
	if st := readStatus(); st.State != fleet.StateFinished || st.Finished == nil || st.Finished.Pages == 0 || len(st.Processes) != 0 {
		t.Fatalf("status of a finished crawl: %+v", st)
	}
	code, out, _ = status()
	if !strings.Contains(out, "state: finished ") || !strings.Contains(out, "processes: none") {
		t.Errorf("status of a finished crawl:\n%s", out)
	}
	f.start(1)
	f.wait(map[int]bool{0: true, 1: true}, 60*time.Second)
	again := f.procs[2]
	for _, want := range []string{"crawl " + f.id + " already finished at ", "nothing left to do", "fleet clear --redis " + redisURL + " --crawl-id " + f.id} {
		if !strings.Contains(again.out.String(), want) {
			t.Errorf("a finished crawl run again lacks %q:\n%s", want, again.out.String())
		}
	}
	if strings.Contains(again.out.String(), "pages: ") {
		t.Errorf("a finished crawl run again printed a summary:\n%s", again.out.String())
	}
	if _, err := os.Stat(again.log); !os.IsNotExist(err) {
		t.Errorf("a finished crawl run again opened its skip log %s: %v", again.log, err)
	}
	code, out, errOut = runHeed(t, "fleet", "clear", "--redis", redisURL, "--crawl-id", f.id)
	if code != 0 || !strings.Contains(out, "deleted ") {
		t.Fatalf("fleet clear of a finished crawl: exit %d\n%s%s", code, out, errOut)
	}
}
