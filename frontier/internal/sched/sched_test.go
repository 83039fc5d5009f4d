package sched

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// auth is a minimal frontier authority: a count of queued requests whose
// head key the test sets.
type auth struct {
	Slot
	queued int
}

func (a *auth) Queued() int { return a.queued }

type gateMap map[string]time.Time

func (g gateMap) ReadyAt(name string) time.Time { return g[name] }

var errExhausted = errors.New("exhausted")

func newTest(gate Gate, leases int, depthFirst bool, now time.Time) (*Scheduler[*auth], *sync.Mutex) {
	mu := new(sync.Mutex)
	s := New[*auth](Params{
		Lock:         mu,
		Gate:         gate,
		Leases:       leases,
		DepthFirst:   depthFirst,
		Now:          func() time.Time { return now },
		AfterFunc:    func(time.Duration, func()) func() bool { return func() bool { return true } },
		Usable:       func() error { return nil },
		Exhausted:    func() bool { return false },
		ErrExhausted: errExhausted,
	})
	return s, mu
}

func add(s *Scheduler[*auth], name string, priority, depth, queued int) *auth {
	a := &auth{Slot: Slot{Name: name}, queued: queued}
	a.SetHead(priority, depth)
	s.Join(a)
	s.Add(a)
	return a
}

// serve takes and serves authorities until none is ready, and returns
// their names in order.
func serve(s *Scheduler[*auth]) []string {
	var got []string
	for i := 0; i < 100; i++ {
		a, ok := s.Take()
		if !ok {
			break
		}
		a.queued--
		s.Served(a)
		got = append(got, a.Name)
	}
	return got
}

func TestReadyOrder(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, tc := range []struct {
		name       string
		depthFirst bool
		want       []string
	}{
		{"breadth-first", false, []string{"high", "shallow", "tie1", "tie2", "deep"}},
		{"depth-first", true, []string{"high", "deep", "tie1", "tie2", "shallow"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTest(nil, 1, tc.depthFirst, now)
			add(s, "shallow", 0, 0, 1)
			add(s, "deep", 0, 3, 1)
			add(s, "high", 5, 9, 1)
			add(s, "tie1", 0, 2, 1)
			add(s, "tie2", 0, 2, 1) // joined later: served after tie1
			got := serve(s)
			if len(got) != len(tc.want) {
				t.Fatalf("served %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("served %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// Equal authorities are served in turn; one lease each keeps a served
// authority out until its lease ends.
func TestRoundRobinAndLeases(t *testing.T) {
	now := time.Unix(1000, 0)
	s, _ := newTest(nil, 1, false, now)
	a := add(s, "a", 0, 0, 3)
	b := add(s, "b", 0, 0, 2)
	if got := serve(s); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("served %v, want [a b]", got)
	}
	if s.Release(a) {
		t.Fatal("an authority with requests queued reported idle")
	}
	if got := serve(s); len(got) != 1 || got[0] != "a" {
		t.Fatalf("served %v, want [a] while b's one lease is out", got)
	}
	s.Release(a)
	s.Release(b)
	if got := serve(s); len(got) != 2 || got[0] != "b" || got[1] != "a" {
		t.Fatalf("served %v, want [b a]: b was served longest ago", got)
	}
	s.Release(b)
	if !s.Release(a) {
		t.Error("an authority with nothing queued or leased is not idle")
	}
}

// The Gate is asked at the top of the ready heap; an authority told to
// wait goes to the waiting heap, and comes back when its time comes.
func TestGateAndHold(t *testing.T) {
	now := time.Unix(1000, 0)
	gate := gateMap{"slow": now.Add(time.Minute)}
	s, _ := newTest(gate, 1, false, now)
	add(s, "slow", 9, 0, 1)
	add(s, "fast", 0, 0, 1)
	if got := serve(s); len(got) != 1 || got[0] != "fast" {
		t.Fatalf("served %v, want [fast] while slow waits for the gate", got)
	}
	if ready, waiting, _ := s.Len(); ready != 0 || waiting != 1 {
		t.Fatalf("%d ready, %d waiting; want 0, 1", ready, waiting)
	}
	if at, ok := s.NextReady(); !ok || !at.Equal(now.Add(time.Minute)) {
		t.Fatalf("NextReady = %v, %v", at, ok)
	}

	// A Retry holds an authority; a later Retry with an earlier time does
	// not shorten the hold.
	s2, _ := newTest(nil, 2, false, now)
	a := add(s2, "a", 0, 0, 2)
	if got := serve(s2); len(got) != 2 {
		t.Fatalf("served %v with two leases", got)
	}
	a.queued++
	s2.Requeue(a, now.Add(time.Hour))
	a.queued++
	s2.Requeue(a, now)
	if a.Leased != 0 || !a.Hold.Equal(now.Add(time.Hour)) {
		t.Fatalf("after two Requeues: %d leased, hold %v", a.Leased, a.Hold)
	}
	if _, ok := s2.Take(); ok {
		t.Fatal("a held authority was taken")
	}
}

// Next returns the error of Usable, of the context, of take, and
// ErrExhausted, each with the lock released.
func TestNextOutcomes(t *testing.T) {
	now := time.Unix(1000, 0)
	s, mu := newTest(nil, 1, false, now)
	closed := errors.New("closed")
	s.p.Usable = func() error { return closed }
	mu.Lock()
	if err := s.Next(context.Background(), nil); err != closed {
		t.Errorf("Next when unusable = %v", err)
	}
	s.p.Usable = func() error { return nil }

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mu.Lock()
	if err := s.Next(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Next with a cancelled context = %v", err)
	}

	broken := errors.New("broken")
	mu.Lock()
	if err := s.Next(context.Background(), func() (bool, error) { return false, broken }); err != broken {
		t.Errorf("Next when take fails = %v", err)
	}

	mu.Lock()
	if err := s.Next(context.Background(), func() (bool, error) { return true, nil }); err != nil {
		t.Errorf("Next when take succeeds = %v", err)
	}

	s.p.Exhausted = func() bool { return true }
	mu.Lock()
	if err := s.Next(context.Background(), func() (bool, error) { return false, nil }); err != errExhausted {
		t.Errorf("Next when exhausted = %v", err)
	}
	if !mu.TryLock() {
		t.Fatal("Next returned with the lock held")
	}
	mu.Unlock()
}
