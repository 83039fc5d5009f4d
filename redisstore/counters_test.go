package redisstore_test

import (
	"context"
	"sync"
	"testing"

	"github.com/heedcrawl/heed/redisstore"
)

// Counters from several processes add up.
func TestCountersAggregate(t *testing.T) {
	_, rdb := startRedis(t)
	ctx := context.Background()
	prefix := newPrefix(t)
	const procs, pages = 4, 50
	var wg sync.WaitGroup
	for p := 0; p < procs; p++ {
		c := redisstore.NewCounters(newStore(t, rdb, prefix))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < pages; i++ {
				a := "http://a.example"
				if i%2 == 1 {
					a = "https://b.example:8443"
				}
				status := 200
				if i%10 == 0 {
					status = 404
				}
				if err := c.Fetched(ctx, a, status, 1000); err != nil {
					t.Error(err)
				}
			}
			if err := c.Skipped(ctx, "http://a.example", "robots"); err != nil {
				t.Error(err)
			}
			if err := c.Skipped(ctx, "", "interrupted"); err != nil {
				t.Error(err)
			}
			if err := c.Add(ctx, "robots:available", 1); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	tot, err := redisstore.NewCounters(newStore(t, rdb, prefix)).Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tot.Pages != procs*pages || tot.Bytes != procs*pages*1000 {
		t.Errorf("Pages, Bytes = %d, %d; want %d, %d", tot.Pages, tot.Bytes, procs*pages, procs*pages*1000)
	}
	if tot.Statuses[200] != procs*45 || tot.Statuses[404] != procs*5 {
		t.Errorf("Statuses = %v", tot.Statuses)
	}
	if tot.Skipped["robots"] != procs || tot.Skipped["interrupted"] != procs || tot.Named["robots:available"] != procs {
		t.Errorf("Skipped = %v, Named = %v", tot.Skipped, tot.Named)
	}
	a, b := tot.Authorities["http://a.example"], tot.Authorities["https://b.example:8443"]
	if a.Pages != procs*pages/2 || b.Pages != procs*pages/2 || a.Skipped["robots"] != procs || len(b.Skipped) != 0 {
		t.Errorf("per authority: a = %+v, b = %+v", a, b)
	}
	if len(tot.Authorities) != 2 {
		t.Errorf("authorities = %v", tot.Authorities)
	}
	c := redisstore.NewCounters(newStore(t, rdb, prefix))
	if c.Skipped(ctx, "x", "") == nil || c.Add(ctx, "", 1) == nil {
		t.Error("a counter without a name was accepted")
	}
}
