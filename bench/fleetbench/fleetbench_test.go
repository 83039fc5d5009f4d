package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/heedcrawl/heed/redisstore/redistest"
)

// The harness end to end on a tiny site: one process alone, then one and
// two processes through Redis crawl it,
// and the report says every count held. It checks behaviour only, never
// speed.
func TestFleetbenchSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds heed and runs crawls")
	}
	bin, err := redistest.Binary()
	if err != nil {
		if redistest.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	var out, errb bytes.Buffer
	code := cli(context.Background(), []string{"-procs", "0,1,2", "-runs", "1", "-hosts", "3", "-pages", "6",
		"-redis-server", bin}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| 1 alone") || strings.HasPrefix(line, "| 1 process") || strings.HasPrefix(line, "| 2 processes") {
			rows++
			cells := strings.Split(line, "|")
			// dup fetches, missing, robots≠1, gap violations: all 0;
			// the skip log exact.
			for _, i := range []int{10, 11, 12, 13} {
				if strings.TrimSpace(cells[i]) != "0" {
					t.Errorf("column %d is %q in %s", i, cells[i], line)
				}
			}
			if !strings.Contains(cells[15], "exact") {
				t.Errorf("skip log not exact: %s", line)
			}
			// Redis round trips and commands per page: none for the crawl
			// alone, some through Redis, never fewer commands than trips.
			trips, err1 := strconv.ParseFloat(strings.TrimSpace(cells[8]), 64)
			cmds, err2 := strconv.ParseFloat(strings.TrimSpace(cells[9]), 64)
			alone := strings.HasPrefix(line, "| 1 alone")
			if err1 != nil || err2 != nil || alone != (trips == 0) || alone != (cmds == 0) || cmds < trips {
				t.Errorf("round trips %v, commands %v per page in %s", trips, cmds, line)
			}
		}
	}
	if rows != 3 {
		t.Errorf("report has %d rows; want 3:\n%s", rows, out.String())
	}
	if code := cli(context.Background(), []string{"-procs", "17"}, &out, &errb); code != 2 {
		t.Errorf("-procs 17: exit %d; want 2", code)
	}
}
