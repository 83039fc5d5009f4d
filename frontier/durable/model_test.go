package durable_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/durable"
	"github.com/heedcrawl/heed/frontier/frontiertest"
)

// TestMatchesMemory runs random sequences of Push, PushBatch, Next, Done,
// Retry and Drain on a durable frontier and on frontier.Memory side by
// side: every result, every request handed out (URL and Seq) and the Stats
// must be the same. Queues longer than the read-ahead and pushes that land
// before, inside and after it are the point.
func TestMatchesMemory(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { runModel(t, seed) })
	}
}

func runModel(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, seed*7919))
	order := frontier.Order(rng.IntN(2))
	leases := 1 + rng.IntN(2)
	opts := []frontier.Option{frontier.WithOrder(order), frontier.WithLeasesPerAuthority(leases)}
	mem := frontier.NewMemory(opts...)
	defer mem.Close()
	dur, err := durable.Open(filepath.Join(t.TempDir(), "state"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer dur.Close()
	ctx := context.Background()
	hosts := 1 + rng.IntN(5)
	newReq := func() *frontier.Request {
		return &frontier.Request{
			URL:      fmt.Sprintf("http://h%d.example/%d", rng.IntN(hosts), rng.IntN(400)),
			Priority: rng.IntN(3) - 1,
			Depth:    rng.IntN(4),
		}
	}
	clone := func(r *frontier.Request) *frontier.Request { c := *r; return &c }
	type pair struct{ m, d *frontier.Request }
	var out []pair // leased on both
	leasedBy := map[string]int{}

	for step := 0; step < 1500; step++ {
		switch op := rng.IntN(20); {
		case op < 6:
			r := newReq()
			mr, merr := mem.Push(ctx, clone(r))
			dr, derr := dur.Push(ctx, clone(r))
			if mr != dr || (merr == nil) != (derr == nil) {
				t.Fatalf("step %d: Push(%s) = %v %v on memory, %v %v durable", step, r.URL, mr, merr, dr, derr)
			}
		case op < 9:
			var batch []*frontier.Request
			for i := rng.IntN(30); i >= 0; i-- {
				batch = append(batch, newReq())
			}
			var dreqs []*frontier.Request
			for _, r := range batch {
				dreqs = append(dreqs, clone(r))
			}
			dres, _ := dur.PushBatch(ctx, dreqs)
			for i, r := range batch {
				mr, _ := mem.Push(ctx, r)
				if mr != dres[i] {
					t.Fatalf("step %d: batch Push(%s) = %v on memory, %v durable", step, r.URL, mr, dres[i])
				}
			}
		case op < 15:
			st := mem.Stats()
			ready := false
			for name := range st.ByAuthority {
				if leasedBy[name] < leases {
					ready = true
				}
			}
			if !ready && (st.Queued > 0 || st.Leased > 0) {
				continue // Next would block on both
			}
			mr, merr := nextWithin(mem, time.Second)
			dr, derr := nextWithin(dur, time.Second)
			if !errors.Is(derr, merr) && !(merr == nil && derr == nil) {
				t.Fatalf("step %d: Next errors %v on memory, %v durable", step, merr, derr)
			}
			if merr != nil {
				continue
			}
			if mr.URL != dr.URL || mr.Seq != dr.Seq || mr.Attempt != dr.Attempt {
				t.Fatalf("step %d: Next = %s seq %d on memory, %s seq %d durable (%v, %d leases)", step, mr.URL, mr.Seq, dr.URL, dr.Seq, order, leases)
			}
			out = append(out, pair{mr, dr})
			leasedBy[mr.Authority()]++
		case op < 19:
			if len(out) == 0 {
				continue
			}
			i := rng.IntN(len(out))
			p := out[i]
			out = append(out[:i], out[i+1:]...)
			leasedBy[p.m.Authority()]--
			if op < 17 {
				if err := mem.Done(ctx, p.m); err != nil {
					t.Fatal(err)
				}
				if err := dur.Done(ctx, p.d); err != nil {
					t.Fatalf("step %d: Done: %v", step, err)
				}
			} else {
				p.m.Attempt++
				p.d.Attempt++
				if err := mem.Retry(ctx, p.m, time.Time{}); err != nil {
					t.Fatal(err)
				}
				if err := dur.Retry(ctx, p.d, time.Time{}); err != nil {
					t.Fatalf("step %d: Retry: %v", step, err)
				}
			}
		default:
			if rng.IntN(10) != 0 {
				continue
			}
			var mg, dg []string
			mem.Drain(ctx, func(r *frontier.Request) { mg = append(mg, r.URL) })
			if err := dur.Drain(ctx, func(r *frontier.Request) { dg = append(dg, r.URL) }); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(mg, dg) {
				t.Fatalf("step %d: Drain passed %q on memory, %q durable", step, mg, dg)
			}
		}
		if ms, ds := mem.Stats(), dur.Stats(); !reflect.DeepEqual(ms, ds) {
			t.Fatalf("step %d: Stats = %+v on memory, %+v durable", step, ms, ds)
		}
	}
}

func nextWithin(f frontier.Frontier, d time.Duration) (*frontier.Request, error) {
	return frontiertest.NextWithin(f, d)
}
