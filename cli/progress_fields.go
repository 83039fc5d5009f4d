package cli

import (
	"fmt"
	"sync"
	"time"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/inventory"
	"github.com/heedcrawl/heed/skiplog"
	"github.com/heedcrawl/heed/stats"
)

// recentWindow is the span the recent rate is measured over.
const recentWindow = 20 * time.Second

// rateMeter measures a count's rate over the last recentWindow from
// samples taken as the progress is drawn.
type rateMeter struct {
	mu      sync.Mutex
	samples []rateSample // oldest first, spanning at most the window
}

type rateSample struct {
	at time.Time
	n  int64
}

// add records the count n at t and returns its rate per second since the
// oldest sample of the window (0 until two samples are apart in time).
func (m *rateMeter) add(t time.Time, n int64) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.samples = append(m.samples, rateSample{t, n})
	// Keep one sample at or before the window's start, so the rate spans
	// the whole window once the command has run that long.
	cut := 0
	for cut+1 < len(m.samples) && t.Sub(m.samples[cut+1].at) >= recentWindow {
		cut++
	}
	m.samples = m.samples[cut:]
	first := m.samples[0]
	span := t.Sub(first.at)
	if span <= 0 {
		return 0
	}
	return float64(n-first.n) / span.Seconds()
}

// crawlErrors counts the requests that got no usable answer: fetch
// errors and host give-ups in the skip log, and 5xx responses.
func crawlErrors(s stats.Snapshot) int64 {
	n := s.Skipped[skiplog.FetchError] + s.Skipped[skiplog.HostUnreachable]
	for status, c := range s.Statuses {
		if status >= 500 {
			n += c
		}
	}
	return n
}

// crawlProgress returns the fields of a crawl's progress, in the order
// of the line; live, when not nil, gives the hosts.
func crawlProgress(collector *stats.Collector, live func() *crawler.Live) func(now time.Time) []progressField {
	var meter rateMeter
	return func(now time.Time) []progressField {
		s := collector.Snapshot()
		var hosts *crawler.Hosts
		if live != nil {
			if l := live(); l != nil {
				h := l.Hosts(now)
				hosts = &h
			}
		}
		return crawlFields(s, meter.add(now, s.Pages), hosts)
	}
}

// crawlFields are the fields of a snapshot, with the recent page rate
// and the hosts (nil when not known).
func crawlFields(s stats.Snapshot, recent float64, hosts *crawler.Hosts) []progressField {
	errs := crawlErrors(s)
	fields := []progressField{
		{key: "pages", value: s.Pages, prio: 0,
			full:  fmt.Sprintf("pages %d (%.1f/s now, %.1f/s avg)", s.Pages, recent, s.Rate()),
			short: fmt.Sprintf("pages %d %.1f/s", s.Pages, recent)},
		{key: "rate_recent", value: round1(recent)},
		{key: "rate", value: round1(s.Rate())},
		{key: "errors", value: errs, prio: 1, full: fmt.Sprintf("errors %d", errs), short: fmt.Sprintf("err %d", errs)},
		{key: "queued", value: s.Waiting, prio: 2, full: fmt.Sprintf("queued %d", s.Waiting), short: fmt.Sprintf("q %d", s.Waiting)},
	}
	if hosts != nil {
		fields = append(fields, hostFields(*hosts)...)
	}
	sk := s.SkippedTotal()
	elapsed := s.Elapsed.Round(time.Second).String()
	return append(fields,
		progressField{key: "in_flight", value: s.InFlight, prio: 6, full: fmt.Sprintf("in flight %d", s.InFlight), short: fmt.Sprintf("fly %d", s.InFlight)},
		progressField{key: "skipped", value: sk, prio: 5, full: fmt.Sprintf("skipped %d", sk), short: fmt.Sprintf("skip %d", sk)},
		progressField{key: "items", value: s.Items, prio: 5, full: fmt.Sprintf("items %d", s.Items)},
		progressField{key: "duplicates", value: s.Duplicates, prio: 8, full: fmt.Sprintf("duplicates %d", s.Duplicates), short: fmt.Sprintf("dup %d", s.Duplicates)},
		progressField{key: "elapsed", value: elapsed, prio: 7, full: elapsed},
	)
}

// hostFields are the hosts' fields: active, waiting and paused, and the
// ones waiting on robots.txt.
func hostFields(h crawler.Hosts) []progressField {
	robots := progressField{key: "robots_waiting", value: h.Robots, prio: 3,
		full: fmt.Sprintf("robots.txt wait %d", h.Robots), short: fmt.Sprintf("robots %d", h.Robots)}
	if !h.Paced {
		return []progressField{{key: "hosts_waiting", value: h.Waiting, prio: 4, full: fmt.Sprintf("hosts %d waiting", h.Waiting)}, robots}
	}
	return []progressField{
		{key: "hosts_active", value: h.Active, prio: 4,
			full:  fmt.Sprintf("hosts %d active %d waiting %d paused", h.Active, h.Waiting, h.Paused),
			short: fmt.Sprintf("hosts %d/%d/%d", h.Active, h.Waiting, h.Paused)},
		{key: "hosts_waiting", value: h.Waiting},
		{key: "hosts_paused", value: h.Paused},
		robots,
	}
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// inventoryProgress returns the fields of an inventory's progress:
// sitemaps read, URLs listed, URLs robots.txt disallows.
func inventoryProgress(inv *inventory.Inventory) func(now time.Time) []progressField {
	return func(time.Time) []progressField {
		p := inv.Progress()
		return []progressField{
			{key: "sitemaps", value: p.Sitemaps, prio: 1, full: fmt.Sprintf("sitemaps %d", p.Sitemaps)},
			{key: "urls", value: p.URLs, prio: 0, full: fmt.Sprintf("URLs %d", p.URLs)},
			{key: "disallowed", value: p.Disallowed, prio: 2, full: fmt.Sprintf("disallowed %d", p.Disallowed), short: fmt.Sprintf("disal %d", p.Disallowed)},
			{key: "elapsed", value: p.Elapsed.Round(time.Second).String(), prio: 3, full: p.Elapsed.Round(time.Second).String()},
		}
	}
}
