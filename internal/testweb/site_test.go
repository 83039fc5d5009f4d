package testweb

import (
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestHitsRecorded(t *testing.T) {
	s := startScenario(t)
	c := noFollow(s)
	m := s.Host(HostMain)
	get(t, c, m.RobotsURL)
	get(t, c, m.URL("/search?z=1&q=x"))
	get(t, c, s.Host(HostDelay).URL("/"))
	hits := s.Hits()
	if len(hits) != 3 {
		t.Fatalf("%d hits", len(hits))
	}
	want := []struct{ host, path string }{{HostMain, "/robots.txt"}, {HostMain, "/search?z=1&q=x"}, {HostDelay, "/"}}
	for i, h := range hits {
		if h.Host != want[i].host || h.Path != want[i].path || h.Status != 200 || h.Method != "GET" ||
			h.UserAgent != "HeedBot/0.1 (testweb self-test)" || h.Time.IsZero() || h.Done.Before(h.Time) {
			t.Errorf("hit %d: %+v", i, h)
		}
		if i > 0 && h.Time.Before(hits[i-1].Time) {
			t.Errorf("hit %d arrived before hit %d", i, i-1)
		}
	}
	if got := s.HitsFor(m.Authority); len(got) != 2 {
		t.Errorf("HitsFor(main): %d", len(got))
	}
	if got := s.HitsFor(m.Authority + "/"); len(got) != 2 {
		t.Errorf("HitsFor(main URL): %d", len(got))
	}
	if s.DroppedHits() != 0 {
		t.Errorf("dropped %d", s.DroppedHits())
	}
}

func TestHitsUnderConcurrencyAndLimit(t *testing.T) {
	s := startScenario(t, WithHitLimit(50))
	c := noFollow(s)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				resp, err := c.Get(s.Host(HostMain).URL(fmt.Sprintf("/blog/post-%d", (i+j)%5+1)))
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	if n, d := len(s.Hits()), s.DroppedHits(); n != 50 || d != 30 {
		t.Fatalf("%d hits recorded, %d dropped; want 50 and 30", n, d)
	}
}

func TestLatencyAndClock(t *testing.T) {
	var mu sync.Mutex
	fake := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		fake = fake.Add(time.Second)
		return fake
	}
	s := startScenario(t, WithLatency(40*time.Millisecond), WithClock(clock))
	start := time.Now()
	get(t, noFollow(s), s.Host(HostMain).URL("/"))
	if el := time.Since(start); el < 40*time.Millisecond {
		t.Errorf("answered after %v, before the latency", el)
	}
	h := s.Hits()[0]
	if h.Time.Year() != 2030 || h.Done.Sub(h.Time) != time.Second {
		t.Errorf("hit times %v .. %v, want the fake clock", h.Time, h.Done)
	}
}

// TestCloseReleasesEverything starts and closes the scenario twice in one
// process, with a request asleep in the slow host at Close, and checks
// that no goroutine is left behind.
func TestCloseReleasesEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	for round := range 2 {
		s, err := StartScenario(WithTimeout(time.Hour))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		c := noFollow(s)
		get(t, c, s.Host(HostMain).URL("/"))
		get(t, c, s.Host(HostPortsTLS).URL("/"))
		sleeping := make(chan error, 1)
		go func() {
			resp, err := c.Get(s.Host(HostSlow).RobotsURL)
			if err == nil {
				resp.Body.Close()
			}
			sleeping <- err
		}()
		if err := waitFor(5*time.Second, func() bool { return len(s.HitsFor(s.Host(HostSlow).Authority)) == 1 }); err != nil {
			t.Fatal("the slow request never arrived")
		}
		closed := make(chan struct{})
		go func() { s.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatal("Close hung on a sleeping handler")
		}
		<-sleeping
		s.Close() // twice is fine
		if hit := s.HitsFor(s.Host(HostSlow).Authority)[0]; hit.Served != "abandoned" {
			t.Errorf("slow hit after Close: %+v", hit)
		}
		c.CloseIdleConnections()
		if resp, err := http.Get(s.Host(HostMain).BaseURL); err == nil {
			resp.Body.Close()
			t.Error("a closed site still answers")
		}
	}
	if err := waitFor(5*time.Second, func() bool { return runtime.NumGoroutine() <= before }); err != nil {
		buf := make([]byte, 1<<16)
		n := runtime.Stack(buf, true)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:n])
	}
}
