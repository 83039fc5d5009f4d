package redispacer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/politeness/redispacer"
)

// TestGiveUpLikePoliteness: requests in a row without any answer give an
// authority up for the whole crawl, whichever processes sent them, at the
// same request as politeness.Pacer gives it up in one process and with the
// same evidence; an answer of any status resets the count and heed
// stopping does not count. A given-up authority is ready at once (its URLs
// are recorded promptly), Wait returns the give-up too, and other
// authorities are not touched.
func TestGiveUpLikePoliteness(t *testing.T) {
	ctx := context.Background()
	timeout := errors.New("Client.Timeout exceeded while awaiting headers")
	tests := []struct {
		name     string
		outcomes []politeness.Feedback
		gone     bool
	}{
		{"three silent", []politeness.Feedback{{Err: timeout}, {Err: timeout}, {Err: timeout}}, true},
		{"two silent", []politeness.Feedback{{Err: timeout}, {Err: timeout}}, false},
		{"an answer in between", []politeness.Feedback{{Err: timeout}, {Err: timeout}, {Status: 500}, {Err: timeout}, {Err: timeout}}, false},
		{"stopping is not silence", []politeness.Feedback{{Err: timeout}, {Err: context.Canceled}, {Err: timeout}}, false},
		{"silent after answers", []politeness.Feedback{{Status: 200}, {Err: timeout}, {Err: timeout}, {Err: timeout}}, true},
	}
	const other = "https://other.example"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			opts := []redispacer.Option{redispacer.WithFloor(0), redispacer.WithBackoff(0, 0),
				redispacer.WithPacing(politeness.WithGiveUp(3))}
			procs := []*redispacer.Pacer{e.pacer(opts...), e.pacer(opts...)}
			mem, err := politeness.New(politeness.WithFloor(0), politeness.WithBackoff(0, 0), politeness.WithGiveUp(3))
			if err != nil {
				t.Fatal(err)
			}
			for i, fb := range tt.outcomes {
				p := procs[i%2] // the processes take turns
				mustAcquire(t, p, "request")
				if ok, _, err := mem.TryAcquire(ctx, site); !ok || err != nil {
					t.Fatalf("politeness, request %d: %v, %v", i, ok, err)
				}
				e.clk.advance(time.Second)
				p.Release(ctx, site, fb)
				mem.Release(ctx, site, fb)
			}
			var memGone *politeness.UnreachableError
			_, _, memErr := mem.TryAcquire(ctx, site)
			if got := errors.As(memErr, &memGone); got != tt.gone {
				t.Fatalf("politeness: given up = %v (%v), want %v", got, memErr, tt.gone)
			}
			for i, p := range procs {
				ok, _, err := p.TryAcquire(ctx, site)
				var gone *politeness.UnreachableError
				if got := errors.As(err, &gone); got != tt.gone || (ok && tt.gone) {
					t.Fatalf("process %d: given up = %v (ok %v, %v), want %v", i, got, ok, err, tt.gone)
				}
				if ok {
					p.Release(ctx, site, politeness.Feedback{})
				}
				if !tt.gone {
					continue
				}
				if gone.Failures != memGone.Failures || gone.LastErr != memGone.LastErr || gone.Authority != site || !gone.Last.After(gone.Since) {
					t.Errorf("process %d: evidence %+v; politeness has %+v", i, gone, memGone)
				}
				if at := p.ReadyAt(site); !at.IsZero() {
					t.Errorf("process %d: a given-up authority is ready at %v, want at once", i, at)
				}
				if err := p.Wait(ctx, site); !errors.As(err, &gone) {
					t.Errorf("process %d: Wait = %v, want the UnreachableError", i, err)
				}
				if ok, _, err := p.TryAcquire(ctx, other); !ok || err != nil {
					t.Errorf("process %d, another authority: ok=%v err=%v", i, ok, err)
				}
				p.Release(ctx, other, politeness.Feedback{Status: 200})
			}
			if tt.gone {
				// The frontier reads the stored ready time: at once.
				ready, err := e.rdb.HGet(ctx, procs[0].ReadyKeyPrefix()+site, "ready").Int64()
				if err != nil || ready != 0 {
					t.Errorf("stored ready time %d, %v; want 0", ready, err)
				}
				// A process that joins later sees the give-up too.
				late := e.pacer(opts...)
				if _, _, err := late.TryAcquire(ctx, site); !errors.As(err, new(*politeness.UnreachableError)) {
					t.Errorf("a later process: TryAcquire = %v, want the UnreachableError", err)
				}
			}
		})
	}
}

// TestGiveUpZeroNeverGivesUp: a give-up count of 0 never gives up, as in
// politeness.
func TestGiveUpZeroNeverGivesUp(t *testing.T) {
	e := newEnv(t)
	p := e.pacer(redispacer.WithFloor(0), redispacer.WithBackoff(0, 0), redispacer.WithPacing(politeness.WithGiveUp(0)))
	for i := 0; i < 20; i++ {
		mustAcquire(t, p, "request")
		p.Release(context.Background(), site, politeness.Feedback{Err: errors.New("connection refused")})
	}
}
