package politeness

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestGiveUpAfterSilentRequests: requests in a row without any answer
// give an authority up (for good, and alone); an answer of any status, even
// an error status, resets the count, and heed stopping does not count.
func TestGiveUpAfterSilentRequests(t *testing.T) {
	ctx := context.Background()
	timeout := errors.New("Client.Timeout exceeded while awaiting headers")
	tests := []struct {
		name     string
		outcomes []Feedback
		gone     bool
	}{
		{"three silent", []Feedback{{Err: timeout}, {Err: timeout}, {Err: timeout}}, true},
		{"two silent", []Feedback{{Err: timeout}, {Err: timeout}}, false},
		{"an answer in between", []Feedback{{Err: timeout}, {Err: timeout}, {Status: 500}, {Err: timeout}, {Err: timeout}}, false},
		{"stopping is not silence", []Feedback{{Err: timeout}, {Err: context.Canceled}, {Err: timeout}}, false},
		{"silent after answers", []Feedback{{Status: 200}, {Err: timeout}, {Err: timeout}, {Err: timeout}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newFakeClock()
			p, err := New(WithClock(clk), WithFloor(0), WithBackoff(0, 0), WithGiveUp(3))
			if err != nil {
				t.Fatal(err)
			}
			for i, fb := range tt.outcomes {
				ok, _, err := p.TryAcquire(ctx, hostA)
				if !ok || err != nil {
					t.Fatalf("request %d: ok=%v err=%v", i, ok, err)
				}
				clk.Advance(time.Second)
				p.Release(ctx, hostA, fb)
			}
			_, _, err = p.TryAcquire(ctx, hostA)
			var gone *UnreachableError
			if got := errors.As(err, &gone); got != tt.gone {
				t.Fatalf("given up = %v (err %v), want %v", got, err, tt.gone)
			}
			if tt.gone {
				if gone.Failures != 3 || gone.LastErr != timeout.Error() || gone.Authority != hostA || !gone.Last.After(gone.Since) {
					t.Errorf("evidence %+v", gone)
				}
				if at := p.ReadyAt(hostA); !at.IsZero() {
					t.Errorf("a given-up authority is ready at %v, want at once (its URLs are recorded promptly)", at)
				}
				if err := p.Wait(ctx, hostA); !errors.As(err, &gone) {
					t.Errorf("Wait = %v, want the UnreachableError", err)
				}
			}
			if ok, _, err := p.TryAcquire(ctx, hostB); !ok || err != nil {
				t.Errorf("another authority: ok=%v err=%v", ok, err)
			}
		})
	}
}

func TestGiveUpZeroNeverGivesUp(t *testing.T) {
	ctx := context.Background()
	clk := newFakeClock()
	p, err := New(WithClock(clk), WithFloor(0), WithBackoff(0, 0), WithGiveUp(0))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		ok, _, err := p.TryAcquire(ctx, hostA)
		if !ok || err != nil {
			t.Fatalf("request %d: ok=%v err=%v", i, ok, err)
		}
		p.Release(ctx, hostA, Feedback{Err: fmt.Errorf("timeout %d", i)})
	}
	if _, err := New(WithGiveUp(-1)); err == nil {
		t.Error("a negative give-up count was accepted")
	}
}
