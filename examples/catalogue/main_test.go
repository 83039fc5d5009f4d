package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heedcrawl/heed/heedtest"
	"github.com/heedcrawl/heed/skiplog"
)

func TestCatalogue(t *testing.T) {
	site := newCatalogue()
	defer site.Close()
	dir := t.TempDir()
	out, skips := filepath.Join(dir, "products.csv"), filepath.Join(dir, "skipped.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	args := []string{"crawl", "--out", out, "--skiplog", skips, "--delay", "0", "--progress", "never", site.URL + "/catalogue"}
	if code := newApp(&stdout, &stderr).Run(ctx, args); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{
		"dropped W-004 (Widget 4): item dropped: duplicate",
		"dropped W-013 (Widget 13): item dropped: no price",
		"items: 14 exported, 2 dropped, 0 errors (dropped: duplicate=1, no price=1)",
		"robots-disallow        1",
		"items: " + out,
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("no %q in\n%s", want, stdout.String())
		}
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
	if strings.Join(rows[0], ",") != "sku,name,price,currency,tags,url,listing" || len(rows) != 15 {
		t.Fatalf("header %q, %d rows", rows[0], len(rows))
	}
	bySKU := map[string][]string{}
	for _, r := range rows[1:] {
		bySKU[r[0]] = r
	}
	if w := bySKU["W-012"]; w == nil || w[1] != "Widget 12" || w[2] != "17.44" || w[3] != "EUR" || w[4] != `["steel","small"]` ||
		!strings.HasSuffix(w[5], "/product/12") || w[6] != "3" {
		t.Errorf("W-012: %q", w)
	}
	if bySKU["W-013"] != nil {
		t.Error("the product without a price was exported")
	}
	recs := heedtest.ReadSkipLog(t, skips)
	r := recs[site.URL+"/product/4?from=featured"]
	if len(recs) != 1 || r == nil || r.Reason != skiplog.RobotsDisallow || r.Robots.Rule != "Disallow: /*?from=" {
		t.Errorf("skip log %+v", recs)
	}
}

// TestCatalogueDemo runs the program's own command: the loopback
// catalogue, crawled with crawl's flags (a given one winning over the
// demo's).
func TestCatalogueDemo(t *testing.T) {
	t.Chdir(t.TempDir())
	var stdout, stderr bytes.Buffer
	if code := newApp(&stdout, &stderr).Run(context.Background(), []string{"demo", "--delay", "0", "--out", "p.jsonl", "--progress", "never"}); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if n := len(heedtest.ReadFeed(t, "p.jsonl")); n != 14 {
		t.Errorf("%d products", n)
	}
}

func TestCatalogueBadArguments(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"crawl", "--out", filepath.Join(dir, "products.txt"), "http://127.0.0.1:1/"},
		{"crawl", "--nosuchflag"},
		{"crawl", "--out", filepath.Join(dir, "products.csv")}, // no URL
	} {
		var stdout, stderr bytes.Buffer
		if code := newApp(&stdout, &stderr).Run(context.Background(), args); code != 2 || stdout.Len() > 0 {
			t.Errorf("%v: exit %d, want 2 and no output\n%s%s", args, code, stdout.String(), stderr.String())
		}
	}
}
