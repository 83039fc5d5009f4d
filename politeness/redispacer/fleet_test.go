package redispacer_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/redisfrontier"
	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/politeness/redispacer"
	"github.com/heedcrawl/heed/redisstore"
	"github.com/redis/go-redis/v9"
)

const (
	envChild  = "HEED_REDISPACER_CHILD"
	envAddr   = "HEED_REDISPACER_ADDR"
	envPrefix = "HEED_REDISPACER_PREFIX"
	envWide   = "HEED_REDISPACER_WIDE" // "1": WithConcurrency(8), 8 leases per authority, 8 workers
)

// fleetInterval is the floor every process of the fleet test paces by.
const fleetInterval = 100 * time.Millisecond

// TestChildProcess is the body of a child process of TestFleetPacing; it
// does nothing in a normal run.
func TestChildProcess(t *testing.T) {
	if os.Getenv(envChild) == "" {
		t.Skip("run only as a child process of TestFleetPacing")
	}
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv(envAddr)})
	s, err := redisstore.NewStore(rdb, os.Getenv(envPrefix))
	if err != nil {
		childFail("store: %v", err)
	}
	workers, wide := 3, os.Getenv(envWide) == "1"
	popts := []redispacer.Option{redispacer.WithFloor(fleetInterval)}
	fopts := []frontier.Option{}
	if wide {
		workers = 8
		popts = append(popts, redispacer.WithConcurrency(8))
		fopts = append(fopts, frontier.WithLeasesPerAuthority(8))
	}
	p, err := redispacer.New(s, popts...)
	if err != nil {
		childFail("pacer: %v", err)
	}
	f, err := redisfrontier.NewFrontier(ctx, s, redisfrontier.WithFrontierOptions(append(fopts, frontier.WithGate(p))...))
	if err != nil {
		childFail("frontier: %v", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if err := fleetStep(ctx, f, p, &mu); err != nil {
					if !errors.Is(err, frontier.ErrExhausted) {
						childFail("worker: %v", err)
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	os.Exit(0)
}

// fleetStep is one turn of a crawl worker: take a request, book a start
// (or put the request back until the pacer's time), fetch, release, done.
func fleetStep(ctx context.Context, f *redisfrontier.Frontier, p *redispacer.Pacer, out *sync.Mutex) error {
	r, err := f.Next(ctx)
	if err != nil {
		return err
	}
	a := r.Authority()
	ok, at, err := p.TryAcquire(context.Background(), a)
	if err != nil {
		return err
	}
	if !ok {
		if at.IsZero() {
			at = time.Now().Add(10 * time.Millisecond)
		}
		out.Lock()
		fmt.Println("DEFERRED", r.URL)
		out.Unlock()
		return f.Retry(ctx, r, at)
	}
	resp, err := http.Get(r.URL)
	fb := politeness.Feedback{Err: err}
	if err == nil {
		resp.Body.Close()
		fb = politeness.Feedback{Status: resp.StatusCode}
	}
	p.Release(context.Background(), a, fb)
	out.Lock()
	fmt.Println("FETCHED", r.URL)
	out.Unlock()
	return f.Done(ctx, r)
}

func childFail(format string, args ...any) {
	fmt.Printf("ERROR "+format+"\n", args...)
	os.Exit(1)
}

// host is a loopback server that records when each request arrived and
// how many it was answering at once.
type host struct {
	*httptest.Server
	mu          sync.Mutex
	arrivals    []time.Time
	hits        map[string]int
	inFlight    int
	maxInFlight int
}

// newHost starts a host whose responses take latency.
func newHost(t *testing.T, latency time.Duration) *host {
	s := &host{hits: make(map[string]int)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.arrivals = append(s.arrivals, time.Now())
		s.hits[r.URL.Path]++
		s.inFlight++
		s.maxInFlight = max(s.maxInFlight, s.inFlight)
		s.mu.Unlock()
		time.Sleep(latency)
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

// Three processes, three workers each, crawl three authorities through one
// frontier and one pacer in Redis. Every URL is fetched exactly once, and
// at each server no two requests arrive closer than the interval, whichever
// processes sent them.
func TestFleetPacing(t *testing.T) {
	runFleet(t, false, 5*time.Millisecond)
}

// With WithConcurrency(8), eight leases per authority and eight workers in
// each of three processes, and responses slower than the interval, an
// authority with an interval still has one request in flight fleet-wide:
// no server ever answers two at once, and arrivals stay an interval apart.
func TestFleetOneInFlightWhenSpaced(t *testing.T) {
	runFleet(t, true, fleetInterval+50*time.Millisecond)
}

func runFleet(t *testing.T, wide bool, latency time.Duration) {
	ctx := context.Background()
	e := newEnv(t)
	const perSite = 20
	hosts := []*host{newHost(t, latency), newHost(t, latency), newHost(t, latency)}
	s := e.store()
	p, err := redispacer.New(s, redispacer.WithFloor(fleetInterval))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	f, err := redisfrontier.NewFrontier(ctx, s, redisfrontier.WithFrontierOptions(frontier.WithGate(p)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := 0; i < perSite; i++ {
		for _, st := range hosts {
			if res, err := f.Push(ctx, &frontier.Request{URL: fmt.Sprintf("%s/p/%d", st.URL, i)}); res != frontier.Added {
				t.Fatalf("Push: %v %v", res, err)
			}
		}
	}

	var kids []*exec.Cmd
	lines := make(chan string, 1024)
	var readers sync.WaitGroup
	for i := 0; i < 3; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), envChild+"=1", envAddr+"="+e.srv.Addr, envPrefix+"="+e.prefix)
		if wide {
			cmd.Env = append(cmd.Env, envWide+"=1")
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		kids = append(kids, cmd)
		readers.Add(1)
		go func() {
			defer readers.Done()
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
	}
	finished := make(chan struct{})
	go func() {
		readers.Wait()
		for _, k := range kids {
			if err := k.Wait(); err != nil {
				t.Errorf("child: %v", err)
			}
		}
		close(finished)
	}()
	fetched, deferred := 0, 0
	timeout := time.After(2 * time.Minute)
	for done := false; !done; {
		select {
		case l := <-lines:
			switch {
			case strings.HasPrefix(l, "ERROR"):
				t.Errorf("child: %s", l)
			case strings.HasPrefix(l, "FETCHED"):
				fetched++
			case strings.HasPrefix(l, "DEFERRED"):
				deferred++
			}
		case <-finished:
			done = true
		case <-timeout:
			t.Fatal("the fleet did not finish within 2 minutes")
		}
	}
	for len(lines) > 0 {
		if l := <-lines; strings.HasPrefix(l, "FETCHED") {
			fetched++
		}
	}

	for si, st := range hosts {
		st.mu.Lock()
		for i := 0; i < perSite; i++ {
			if n := st.hits[fmt.Sprintf("/p/%d", i)]; n != 1 {
				t.Errorf("host %d page %d fetched %d times; want 1", si, i, n)
			}
		}
		arr := slices.Clone(st.arrivals)
		most := st.maxInFlight
		st.mu.Unlock()
		if most != 1 {
			t.Errorf("host %d answered up to %d requests at once; want 1", si, most)
		}
		slices.SortFunc(arr, func(a, b time.Time) int { return a.Compare(b) })
		minGap := time.Duration(1 << 62)
		for i := 1; i < len(arr); i++ {
			gap := arr[i].Sub(arr[i-1])
			minGap = min(minGap, gap)
			// Redis keeps microseconds: a gap may look a microsecond
			// short of the interval, never more.
			if gap < fleetInterval-time.Millisecond {
				t.Errorf("host %d: requests %d and %d arrived %v apart; the interval is %v", si, i-1, i, gap, fleetInterval)
			}
		}
		t.Logf("host %d: %d arrivals, smallest gap %v", si, len(arr), minGap)
	}
	if fetched != 3*perSite {
		t.Errorf("children reported %d fetches; want %d", fetched, 3*perSite)
	}
	t.Logf("%d fetches, %d deferrals by TryAcquire", fetched, deferred)
}
