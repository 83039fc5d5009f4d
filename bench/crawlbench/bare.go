package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html"
)

// bareDisallow is what every robots.txt of the generated site disallows
// (see testweb.Generated: "Disallow: /d/" under "User-agent: *"). The bare
// crawler is told it in advance, so it does no robots.txt work at all; the
// hit log and the oracle check that it fetched exactly the allowed pages.
var bareDisallow = []string{"/d/"}

// crawlBare crawls the seeds with the least a correct crawler of this site
// must do, and nothing more: net/http with keep-alives (the shared
// transport and its budget), Workers requests in flight in all and
// PerHost per host, links read with golang.org/x/net/html's tokenizer
// straight off the response body, a map of URLs for dedup, the disallowed
// paths known in advance, nothing written. It is the machine's practical
// limit for this crawl, not a competitor: no canonical URLs, no skip log,
// no politeness beyond the per-host cap, no body limit, no retries.
func crawlBare(ctx context.Context, spec childSpec, sends *sendLog) (childResult, error) {
	b := &bareCrawler{
		client:   &http.Client{Transport: newTransport(spec.PerHost, spec.Workers, sends), Timeout: requestTimeout},
		perHost:  spec.PerHost,
		allowed:  make(map[string]bool, len(spec.Domains)),
		seen:     make(map[string]struct{}),
		hosts:    make(map[string]*bareHost),
		disallow: bareDisallow,
	}
	b.cond = sync.NewCond(&b.mu)
	for _, d := range spec.Domains {
		b.allowed[d] = true
	}
	start := time.Now()
	b.mu.Lock()
	for _, s := range spec.Seeds {
		u, err := url.Parse(s)
		if err != nil {
			b.mu.Unlock()
			return childResult{}, fmt.Errorf("bare: seed %q: %w", s, err)
		}
		b.add(u)
	}
	b.mu.Unlock()
	// Wake the workers when the crawl is cancelled, so none sleeps on.
	stop := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	})
	defer stop()
	var wg sync.WaitGroup
	for range max(spec.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.work(ctx)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	return childResult{
		CrawlSeconds: elapsed.Seconds(),
		Start:        start,
		End:          start.Add(elapsed),
		Pages:        b.pages,
		Errors:       b.errs,
		Skipped:      b.skipped,
		Interrupted:  ctx.Err() != nil,
	}, nil
}

// bareCrawler is the bare crawler's whole state, under one mutex: the
// seen set, a FIFO queue per host, and a FIFO of hosts that have a URL
// queued and a free slot.
type bareCrawler struct {
	client   *http.Client
	perHost  int
	allowed  map[string]bool
	disallow []string

	mu       sync.Mutex
	cond     *sync.Cond
	seen     map[string]struct{}
	hosts    map[string]*bareHost
	ready    []*bareHost
	queued   int
	inflight int

	pages, errs, skipped int64
}

type bareHost struct {
	queue    []string
	head     int
	inflight int
	isReady  bool
}

func (h *bareHost) pending() int { return len(h.queue) - h.head }

// add queues u if it is in scope, allowed and new. Called with mu held.
func (b *bareCrawler) add(u *url.URL) {
	if (u.Scheme != "http" && u.Scheme != "https") || !b.allowed[u.Hostname()] {
		b.skipped++
		return
	}
	for _, p := range b.disallow {
		if strings.HasPrefix(u.Path, p) {
			b.skipped++
			return
		}
	}
	u.Fragment, u.RawFragment = "", ""
	s := u.String()
	if _, ok := b.seen[s]; ok {
		return
	}
	b.seen[s] = struct{}{}
	h := b.hosts[u.Host]
	if h == nil {
		h = &bareHost{}
		b.hosts[u.Host] = h
	}
	h.queue = append(h.queue, s)
	b.queued++
	b.markReady(h)
}

func (b *bareCrawler) markReady(h *bareHost) {
	if !h.isReady && h.pending() > 0 && h.inflight < b.perHost {
		h.isReady = true
		b.ready = append(b.ready, h)
		b.cond.Signal()
	}
}

// take returns the next URL to fetch and its host, or false when the crawl
// is over or cancelled. Called with mu held; it may wait.
func (b *bareCrawler) take(ctx context.Context) (string, *bareHost, bool) {
	for len(b.ready) == 0 {
		if (b.queued == 0 && b.inflight == 0) || ctx.Err() != nil {
			b.cond.Broadcast()
			return "", nil, false
		}
		b.cond.Wait()
	}
	if ctx.Err() != nil {
		return "", nil, false
	}
	h := b.ready[0]
	b.ready[0] = nil
	b.ready = b.ready[1:]
	h.isReady = false
	s := h.queue[h.head]
	h.queue[h.head] = ""
	h.head++
	if h.head == len(h.queue) {
		h.queue, h.head = h.queue[:0], 0
	}
	b.queued--
	b.inflight++
	h.inflight++
	b.markReady(h)
	return s, h, true
}

func (b *bareCrawler) work(ctx context.Context) {
	var links []*url.URL
	b.mu.Lock()
	for {
		s, h, ok := b.take(ctx)
		if !ok {
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		var err error
		links, err = b.fetch(ctx, s, links[:0])
		b.mu.Lock()
		if err != nil {
			b.errs++
		} else {
			b.pages++
		}
		for _, u := range links {
			b.add(u)
		}
		b.inflight--
		h.inflight--
		b.markReady(h)
		if b.queued == 0 && b.inflight == 0 {
			b.cond.Broadcast()
		}
	}
}

// fetch GETs s and appends the absolute URLs of its a[href] links.
func (b *bareCrawler) fetch(ctx context.Context, s string, links []*url.URL) ([]*url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s, nil)
	if err != nil {
		return links, err
	}
	req.Header.Set("User-Agent", heedAgent+"/bare")
	resp, err := b.client.Do(req)
	if err != nil {
		return links, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, err = io.Copy(io.Discard, resp.Body)
		return links, err
	}
	base := resp.Request.URL
	z := html.NewTokenizer(resp.Body)
	for {
		switch z.Next() {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return links, err
			}
			return links, nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if len(name) != 1 || name[0] != 'a' || !hasAttr {
				continue
			}
			for hasAttr {
				var key, val []byte
				key, val, hasAttr = z.TagAttr()
				if string(key) != "href" {
					continue
				}
				if ref, err := url.Parse(strings.TrimSpace(string(val))); err == nil {
					links = append(links, base.ResolveReference(ref))
				}
				break
			}
		}
	}
}
