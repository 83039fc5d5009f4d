package politeness

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// visit is one request as the server saw it.
type visit struct{ arrived, left time.Time }

// pacedServer records, per authority (the path), when each request arrived
// and left the handler, and the most requests it had in flight at once.
type pacedServer struct {
	slow        time.Duration // added to every response time
	mu          sync.Mutex
	visits      map[string][]visit
	inFlight    map[string]int
	maxInFlight map[string]int
}

func (s *pacedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	a := r.URL.Path
	s.mu.Lock()
	s.inFlight[a]++
	s.maxInFlight[a] = max(s.maxInFlight[a], s.inFlight[a])
	n := len(s.visits[a])
	s.mu.Unlock()

	time.Sleep(s.slow + time.Duration(n%4)*time.Millisecond) // uneven response times
	switch n % 11 {
	case 5:
		w.WriteHeader(http.StatusServiceUnavailable) // backoff
	case 9:
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
	}
	io.WriteString(w, "ok")

	// Recorded before the handler returns, so before the client can
	// release: the response is buffered until then.
	left := time.Now()
	s.mu.Lock()
	s.inFlight[a]--
	s.visits[a] = append(s.visits[a], visit{arrived, left})
	s.mu.Unlock()
}

// TestConcurrentPacingAtTheServer runs many workers over many authorities
// with a real clock and checks, at the server, that requests to one
// authority never arrive more at once than allowed and, with an interval,
// arrive at least an interval apart and at least an interval after the
// previous one left. With an interval, WithConcurrency(8) must still mean
// one at a time: responses slower than the interval would otherwise let a
// second request start, and on a machine short of CPU let two arrive
// together.
func TestConcurrentPacingAtTheServer(t *testing.T) {
	tests := []struct {
		name        string
		interval    time.Duration
		concurrency int
		slow        time.Duration // added to every response time
		want        int           // the most requests in flight to one authority
	}{
		{"interval, concurrency 1", 15 * time.Millisecond, 1, 0, 1},
		{"interval, concurrency 8", 15 * time.Millisecond, 8, 45 * time.Millisecond, 1},
		{"no interval, concurrency 2", 0, 2, 20 * time.Millisecond, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testConcurrentPacing(t, tt.interval, tt.concurrency, tt.slow, tt.want)
		})
	}
}

func testConcurrentPacing(t *testing.T, interval time.Duration, concurrency int, slow time.Duration, want int) {
	const (
		authorities = 8
		workers     = 16
		waiters     = 2                      // workers using Wait rather than TryAcquire
		target      = 12                     // requests per authority before workers stop
		giveUp      = 20 * time.Second       // bound on a machine that stalls
		waitTimeout = 150 * time.Millisecond // bound on one Wait
	)
	srv := &pacedServer{slow: slow, visits: map[string][]visit{}, inFlight: map[string]int{}, maxInFlight: map[string]int{}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()

	p, err := New(WithFloor(interval), WithConcurrency(concurrency), WithBackoff(5*time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, authorities)
	for i := range names {
		names[i] = "/a" + strconv.Itoa(i)
	}
	fetch := func(a string) {
		fb := Feedback{}
		resp, err := client.Get(ts.URL + a)
		if err != nil {
			fb.Err = err
		} else {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			fb.Status, fb.RetryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
		}
		p.Release(context.Background(), a, fb)
	}

	began := time.Now()
	deadline := began.Add(giveUp)
	var stop atomic.Bool // set once every authority has had target requests
	running := func() bool {
		if stop.Load() || time.Now().After(deadline) {
			return false
		}
		srv.mu.Lock()
		defer srv.mu.Unlock()
		for _, a := range names {
			if len(srv.visits[a]) < target {
				return true
			}
		}
		stop.Store(true)
		return false
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 10000 && running(); n++ {
				if w < waiters {
					a := names[(w+n)%authorities]
					ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
					err := p.Wait(ctx, a)
					cancel()
					if err == nil {
						fetch(a)
					}
					continue
				}
				acquired := false
				for i := range authorities {
					a := names[(w+n+i)%authorities]
					if ok, _, err := p.TryAcquire(context.Background(), a); err != nil {
						t.Errorf("TryAcquire: %v", err)
						return
					} else if ok {
						fetch(a)
						acquired = true
						break
					}
				}
				if !acquired {
					time.Sleep(time.Millisecond) // nothing ready: a real worker would block in the frontier
				}
			}
		}()
	}
	// Readers hammering the introspection at the same time.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for running() {
			for _, a := range names {
				_ = p.ReadyAt(a)
				_ = p.State(a)
			}
			_ = p.Snapshot()
			time.Sleep(100 * time.Microsecond)
		}
	}()
	wg.Wait()

	srv.mu.Lock()
	defer srv.mu.Unlock()
	total, busiest := 0, 0
	for _, a := range names {
		vs := srv.visits[a]
		total += len(vs)
		if len(vs) < target {
			t.Errorf("%s: only %d requests in %v; the test proves little", a, len(vs), time.Since(began))
		}
		m := srv.maxInFlight[a]
		if m > want {
			t.Errorf("%s: %d requests in flight at once; limit %d", a, m, want)
		}
		busiest = max(busiest, m)
		if interval == 0 {
			continue // nothing to space
		}
		slices.SortFunc(vs, func(x, y visit) int { return x.arrived.Compare(y.arrived) })
		for i := 1; i < len(vs); i++ {
			if gap := vs[i].arrived.Sub(vs[i-1].arrived); gap < interval {
				t.Errorf("%s: requests %d and %d arrived %v apart; interval %v", a, i-1, i, gap, interval)
			}
			if gap := vs[i].arrived.Sub(vs[i-1].left); gap < interval {
				t.Errorf("%s: request %d arrived %v after request %d left; interval %v", a, i, gap, i-1, interval)
			}
		}
	}
	if s := p.Snapshot(); len(s) != authorities {
		t.Errorf("Snapshot has %d authorities; want %d", len(s), authorities)
	} else {
		for a, st := range s {
			if st.InFlight != 0 {
				t.Errorf("%s: %d still in flight after every worker ended", a, st.InFlight)
			}
		}
	}
	if busiest != want {
		t.Errorf("at most %d requests in flight to one authority; the limit %d was never reached", busiest, want)
	}
	t.Logf("%d requests to %d authorities in %v, at most %d in flight to one", total, authorities, time.Since(began).Round(time.Millisecond), busiest)
}
