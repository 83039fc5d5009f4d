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

	"github.com/heedcrawl/heed/skiplog"
)

func TestCatalogue(t *testing.T) {
	dir := t.TempDir()
	out, skips := filepath.Join(dir, "products.csv"), filepath.Join(dir, "skipped.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout bytes.Buffer
	if err := run(ctx, []string{"-out", out, "-skiplog", skips, "-delay", "0"}, &stdout); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	for _, want := range []string{
		"dropped W-004 (Widget 4): item dropped: duplicate",
		"dropped W-013 (Widget 13): item dropped: no price",
		"14 products written to " + out,
		"items: 14 exported, 2 dropped, 0 errors (dropped: duplicate=1, no price=1)",
		"robots-disallow        1",
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
	var recs []*skiplog.Record
	sf, err := os.Open(skips)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	if err := skiplog.Read(sf, func(r *skiplog.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Reason != skiplog.RobotsDisallow || recs[0].Robots.Rule != "Disallow: /*?from=" || !strings.HasSuffix(recs[0].URL, "/product/4?from=featured") {
		t.Errorf("skip log %+v", recs)
	}
}

func TestCatalogueBadArguments(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"-out", filepath.Join(t.TempDir(), "products.txt")}, &stdout); err == nil {
		t.Error("a feed name without a format accepted")
	}
	if err := run(context.Background(), []string{"-nosuchflag"}, &stdout); err == nil {
		t.Error("an unknown flag accepted")
	}
}
