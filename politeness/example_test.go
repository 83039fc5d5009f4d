package politeness_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/heedcrawl/heed/politeness"
)

// stepClock is a manual clock, so that the example runs without sleeping:
// time moves only when the example moves it (After, used only by Wait,
// jumps it forward). It is not safe for concurrent use.
type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time { return c.now }

func (c *stepClock) After(d time.Duration) <-chan time.Time {
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// The life of one authority: a Crawl-delay from robots.txt, a start, a
// release anchoring the next start, a 429 with Retry-After, and an
// authority excluded for asking too long a Crawl-delay.
func Example() {
	ctx := context.Background()
	start := time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)
	clock := &stepClock{now: start}
	since := func(t time.Time) time.Duration { return t.Sub(start) }

	// Floor 1 s and one request at a time per authority, the defaults.
	p, err := politeness.New(politeness.WithClock(clock))
	if err != nil {
		log.Fatal(err)
	}
	const site = "https://example.com"

	// heed's robots stage read "Crawl-delay: 2.5" in site's robots.txt.
	if err := p.SetCrawlDelay(ctx, site, 2500*time.Millisecond); err != nil {
		log.Fatal(err)
	}

	ok, _, _ := p.TryAcquire(ctx, site)
	fmt.Println("first request starts:", ok)
	clock.now = clock.now.Add(300 * time.Millisecond) // the response takes 300 ms
	p.Release(ctx, site, politeness.Feedback{Status: 200})

	// The next start is 2.5 s after the response, not after the start.
	ok, retryAt, _ := p.TryAcquire(ctx, site)
	fmt.Println("second request starts at once:", ok, "; retry at", since(retryAt))
	fmt.Println("ReadyAt:", since(p.ReadyAt(site)))

	clock.now = retryAt
	ok, _, _ = p.TryAcquire(ctx, site)
	fmt.Println("second request starts at", since(clock.now), ok)
	p.Release(ctx, site, politeness.Feedback{Status: 429, RetryAfter: "120"})
	fmt.Println("after 429 with Retry-After: 120, ReadyAt:", since(p.ReadyAt(site)))

	// One paused authority holds up no other.
	ok, _, _ = p.TryAcquire(ctx, "https://other.example")
	fmt.Println("another authority starts meanwhile:", ok)

	// A Crawl-delay above the cap (30 s) excludes its authority.
	const slow = "https://slow.example"
	_ = p.SetCrawlDelay(ctx, slow, time.Minute)
	_, _, err = p.TryAcquire(ctx, slow)
	var tooLong *politeness.DelayTooLongError
	fmt.Println("excluded:", errors.As(err, &tooLong), "-", err)

	// Output:
	// first request starts: true
	// second request starts at once: false ; retry at 2.8s
	// ReadyAt: 2.8s
	// second request starts at 2.8s true
	// after 429 with Retry-After: 120, ReadyAt: 2m2.8s
	// another authority starts meanwhile: true
	// excluded: true - politeness: crawl-delay 1m0s of https://slow.example exceeds the cap of 30s
}
