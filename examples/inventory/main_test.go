package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/inventory"
)

// TestInventoryMatchesTheOracle inventories the test site's sitemap host
// and compares the CSV rows with the site's expected inventory.
func TestInventoryMatchesTheOracle(t *testing.T) {
	site := heedtest.NewScenario(t)
	root := site.HostURL(heedtest.HostMaps, "/")
	out := filepath.Join(t.TempDir(), "inventory.csv")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout bytes.Buffer
	if err := run(ctx, []string{"-agent", "HeedBot", "-out", out, "-delay", "0", root}, &stdout); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != strings.Join(inventory.Columns, ",") {
		t.Fatalf("header %q", rows[0])
	}
	var want []heedtest.InventoryRow
	for _, r := range site.ExpectedInventory("HeedBot") {
		if strings.HasPrefix(r.Sitemap, root) {
			want = append(want, r)
		}
	}
	got := rows[1:]
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	col := func(row []string, name string) string {
		for i, c := range inventory.Columns {
			if c == name {
				return row[i]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	for i, w := range want {
		g := got[i]
		line := "0"
		if w.Line > 0 {
			line = strconv.Itoa(w.Line)
		}
		for name, v := range map[string]string{"url": w.URL, "lastmod_raw": w.LastMod, "changefreq": w.ChangeFreq, "priority": w.Priority,
			"sitemap": w.Sitemap, "allowed": strconv.FormatBool(w.Allowed), "reason": string(w.Reason), "line": line, "rule": w.Rule} {
			if col(g, name) != v {
				t.Errorf("row %d (%s): %s = %q, want %q", i, w.URL, name, col(g, name), v)
			}
		}
	}
	if !strings.Contains(stdout.String(), "13 URLs listed: 10 allowed, 3 disallowed for HeedBot") ||
		!strings.Contains(stdout.String(), "not read: robots-disallow") {
		t.Errorf("output:\n%s", stdout.String())
	}
}

// TestInventoryDefaultSite runs the example as its README does.
func TestInventoryDefaultSite(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout bytes.Buffer
	if err := run(ctx, []string{"-out", filepath.Join(dir, "inventory.jsonl"), "-delay", "0"}, &stdout); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "inventory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 13 || !strings.Contains(stdout.String(), "13 URLs listed: 10 allowed, 3 disallowed for InventoryBot") {
		t.Errorf("%d rows; output:\n%s", n, stdout.String())
	}
}
