package redispacer_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/politeness/redispacer"
)

// A server's request to slow down is said when it pauses the authority,
// as the in-process pacer says it: a 429 or 503 that finds a longer pause
// already in force changes nothing and says nothing, whichever process
// released it.
func TestSlowDownSaidWhenItPauses(t *testing.T) {
	ctx := context.Background()
	steps := []struct {
		fb   politeness.Feedback
		said bool
	}{
		{politeness.Feedback{Status: 429, RetryAfter: "60"}, true},
		{politeness.Feedback{Status: 503, RetryAfter: "5"}, false},  // inside the 60 s pause
		{politeness.Feedback{Status: 503}, false},                   // backoff 1 s, inside it too
		{politeness.Feedback{Status: 429, RetryAfter: "120"}, true}, // longer: the pause grows
	}
	count := func(buf *bytes.Buffer, mu *sync.Mutex) int {
		mu.Lock()
		defer mu.Unlock()
		return strings.Count(buf.String(), "server asked to slow down")
	}
	newLog := func() (*slog.Logger, *bytes.Buffer, *sync.Mutex) {
		var buf bytes.Buffer
		var mu sync.Mutex
		return slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return buf.Write(b)
		}), nil)), &buf, &mu
	}

	e := newEnv(t)
	fleetLog, fleetBuf, fleetMu := newLog()
	opts := []redispacer.Option{redispacer.WithFloor(0), redispacer.WithBackoff(time.Second, 4*time.Second),
		redispacer.WithMaxPause(10 * time.Minute), redispacer.WithLogger(fleetLog)}
	procs := []*redispacer.Pacer{e.pacer(opts...), e.pacer(opts...)}

	aloneLog, aloneBuf, aloneMu := newLog()
	alone, err := politeness.New(politeness.WithFloor(0), politeness.WithBackoff(time.Second, 4*time.Second),
		politeness.WithMaxPause(10*time.Minute), politeness.WithLogger(aloneLog))
	if err != nil {
		t.Fatal(err)
	}

	want := 0
	for i, s := range steps {
		procs[i%2].Release(ctx, site, s.fb)
		alone.Release(ctx, site, s.fb)
		if s.said {
			want++
		}
		if got := count(fleetBuf, fleetMu); got != want {
			t.Errorf("step %d (%+v): the fleet's pacer said slow-down %d times; want %d", i+1, s.fb, got, want)
		}
		if got := count(aloneBuf, aloneMu); got != want {
			t.Errorf("step %d (%+v): the in-process pacer said slow-down %d times; want %d", i+1, s.fb, got, want)
		}
	}
}
