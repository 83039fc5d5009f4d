package crawler_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heedcrawl/heed/backend"
	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/internal/testweb"
)

// runKey marks the context given to Run, so a test can tell that a
// context it was handed is derived from it.
type runKey struct{}

// openRecorder is the in-memory backend, keeping the context its Open
// was given.
type openRecorder struct {
	backend.Backend
	mu  sync.Mutex
	ctx context.Context
}

func (b *openRecorder) Open(ctx context.Context, j *backend.Job) (backend.Session, error) {
	b.mu.Lock()
	b.ctx = ctx
	b.mu.Unlock()
	return b.Backend.Open(ctx, j)
}

// TestBackendOpenGetsTheRunsContext checks that a backend opens its
// session with the run's context: it carries Run's values, and it ends
// when Run's does.
func TestBackendOpenGetsTheRunsContext(t *testing.T) {
	site := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 3, PageBytes: 256, LinksPerPage: 1, Seed: 1})
	b := &openRecorder{Backend: backend.Memory{}}
	c, err := crawler.New("HeedBot", append(siteOptions(site), crawler.WithBackend(b))...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), runKey{}, "run"))
	defer cancel()
	if _, err := c.Run(ctx, site.Seeds()...); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	opened := b.ctx
	b.mu.Unlock()
	if opened == nil {
		t.Fatal("Open was not called")
	}
	if v, _ := opened.Value(runKey{}).(string); v != "run" {
		t.Fatalf("Open's context carries %q, want the run's value", v)
	}
	if opened.Err() != nil {
		t.Fatalf("Open's context ended before Run's: %v", opened.Err())
	}
	cancel()
	if !errors.Is(opened.Err(), context.Canceled) {
		t.Fatalf("Open's context after Run's was cancelled: %v, want canceled", opened.Err())
	}
}

// TestResponseContextIsTheRuns checks Response.Context: it carries the
// values of Run's context; it is not cancelled while the run works, not
// even once Run's context is cancelled (the page in hand is finished);
// and it is cancelled once the run is over, whether it ran to its end or
// was interrupted.
func TestResponseContextIsTheRuns(t *testing.T) {
	for _, interrupt := range []bool{false, true} {
		name := "to the end"
		if interrupt {
			name = "interrupted"
		}
		t.Run(name, func(t *testing.T) {
			site := startGenerated(t, testweb.Generated{Hosts: 1, PagesPerHost: 4, PageBytes: 256, LinksPerPage: 2, Seed: 3})
			c, err := crawler.New("HeedBot", siteOptions(site)...)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), runKey{}, "run"), time.Minute)
			defer cancel()
			var (
				mu       sync.Mutex
				seen     []context.Context
				problems []string
			)
			c.FollowLinks()
			c.OnResponse(func(r *crawler.Response) {
				rc := r.Context()
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, rc)
				if v, _ := rc.Value(runKey{}).(string); v != "run" {
					problems = append(problems, r.Request.URL+": the context does not carry Run's value")
				}
				if interrupt && len(seen) == 1 {
					cancel() // Run's context ends while this page is in hand
				}
				if rc.Err() != nil {
					problems = append(problems, r.Request.URL+": the context is done during the callback: "+rc.Err().Error())
				}
			})
			sum, err := c.Run(ctx, site.Seeds()...)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Interrupted != interrupt {
				t.Fatalf("interrupted %v, want %v", sum.Interrupted, interrupt)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, p := range problems {
				t.Error(p)
			}
			if len(seen) == 0 {
				t.Fatal("no response reached the callback")
			}
			for i, rc := range seen {
				if !errors.Is(rc.Err(), context.Canceled) {
					t.Fatalf("response %d: context after Run returned: %v, want canceled", i, rc.Err())
				}
			}
		})
	}
}
