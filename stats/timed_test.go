package stats_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/middleware"
	"github.com/heedcrawl/heed/stats"
)

// TestTimedCountsEveryRequestButTheCancelled: the stage counts each
// answer by its status class and each failure as "error", and leaves out
// a request the crawl cancelled.
func TestTimedCountsEveryRequestButTheCancelled(t *testing.T) {
	st := stats.New(time.Now)
	answers := []struct {
		status int
		err    error
	}{{200, nil}, {200, nil}, {404, nil}, {503, nil}, {0, errors.New("connection refused")}, {0, context.Canceled}}
	i := 0
	timed := st.Timed(middleware.FetcherFunc(func(_ context.Context, req *frontier.Request) (*middleware.Response, error) {
		a := answers[i]
		i++
		if a.err != nil {
			return nil, a.err
		}
		return &middleware.Response{Request: req, Status: a.status}, nil
	}))
	for range answers {
		timed.Fetch(context.Background(), &frontier.Request{URL: "http://a.example/"})
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	answers = append(answers, struct {
		status int
		err    error
	}{0, errors.New("stopped")})
	timed.Fetch(cancelled, &frontier.Request{URL: "http://a.example/"})

	got := map[string]int64{}
	for class, h := range st.Snapshot().Durations {
		got[class] = h.Count
	}
	want := map[string]int64{"2xx": 2, "4xx": 1, "5xx": 1, "error": 1}
	if len(got) != len(want) {
		t.Errorf("counted %v, want %v", got, want)
	}
	for class, n := range want {
		if got[class] != n {
			t.Errorf("%s: %d requests counted, want %d (all: %v)", class, got[class], n, got)
		}
	}
}
