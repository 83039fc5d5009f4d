package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"

	"github.com/heedcrawl/heed/crawler"
	"github.com/heedcrawl/heed/fleet"
)

// fleetFlags are the settings of a crawl shared by several heed processes
// through Redis (heed crawl --redis).
type fleetFlags struct {
	fleetTarget // fleet.go
	lease       time.Duration
	// done, set by setupFleet, refuses a crawl that has finished before
	// any output is opened (fleet.go).
	done func(ctx context.Context, w io.Writer) error
}

// finished says, and stops the crawl, when the shared crawl has finished;
// nil without --redis or while it has not.
func (ff *fleetFlags) finished(ctx context.Context, w io.Writer) error {
	if ff.done == nil {
		return nil
	}
	return ff.done(ctx, w)
}

func (ff *fleetFlags) register(cmd *cobra.Command) {
	ff.fleetTarget.register(cmd)
	cmd.Flags().DurationVar(&ff.lease, "lease-timeout", fleet.DefaultLeaseTimeout, "with --redis: how long the requests of a process that died stay out before another process takes them")
}

// defaultCrawlID names a shared crawl after its agent and seeds.
func defaultCrawlID(agent string, seeds, sitemaps []string) string {
	all := append(append([]string{agent}, slices.Sorted(slices.Values(seeds))...), slices.Sorted(slices.Values(sitemaps))...)
	sum := sha256.Sum256([]byte(strings.Join(all, "\n")))
	return agent + "-" + hex.EncodeToString(sum[:6])
}

// checkFleet refuses --redis settings that cannot work and names the
// process's own skip log, before anything is opened.
func (f *crawlFlags) checkFleet() error {
	ff := &f.fleet
	if ff.url == "" {
		if ff.crawlID != "" {
			return usageError("--crawl-id needs --redis")
		}
		return nil
	}
	if f.state != "" {
		return usageError("--redis with --state: a shared crawl keeps its state in Redis")
	}
	if ff.lease <= 0 {
		return usageError("--lease-timeout must be positive")
	}
	if _, err := redis.ParseURL(ff.url); err != nil {
		return usageError("--redis %s: %v", ff.url, err)
	}
	if !f.skiplogSet {
		host, _ := os.Hostname()
		if host == "" {
			host = "host"
		}
		f.skiplog = fmt.Sprintf("skipped-%s-%d.jsonl", host, os.Getpid())
	}
	return nil
}

// setupFleet adds the options of --redis (checked by checkFleet). It
// returns the function that closes the Redis client after the run.
func (f *crawlFlags) setupFleet(program string, seeds []string, opts *[]crawler.Option, stderr io.Writer) (func(), error) {
	ff := &f.fleet
	if ff.url == "" {
		return func() {}, nil
	}
	opt, err := redis.ParseURL(ff.url)
	if err != nil {
		return nil, usageError("--redis %s: %v", ff.url, err)
	}
	id := ff.crawlID
	if id == "" {
		id = defaultCrawlID(f.agent, seeds, f.sm.urls)
	}
	// go-redis logs every failed dial by itself; heed says once when Redis
	// goes away and once when it is back, and go-redis's lines are kept
	// for --verbose.
	quiet := slog.New(slog.DiscardHandler)
	if f.verbose {
		quiet = slog.New(slog.NewTextHandler(stderr, nil))
	}
	redis.SetLogger(redisLog{quiet})
	rdb := redis.NewClient(opt)
	// A Redis outage, what the process does meanwhile and when Redis is
	// back are worth saying even without --verbose; so are warnings.
	ropts := []fleet.Option{fleet.WithLeaseTimeout(ff.lease)}
	if !f.verbose {
		ropts = append(ropts, fleet.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))))
		*opts = append(*opts, crawler.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	}
	b, err := fleet.New(rdb, id, ropts...)
	if err != nil {
		rdb.Close()
		return nil, usageError("%v", err)
	}
	ff.done = func(ctx context.Context, w io.Writer) error { return finishedFleet(ctx, program, b, id, ff.url, w) }
	*opts = append(*opts, crawler.WithBackend(b))
	fmt.Fprintf(stderr, "%s: crawl %s shared through %s (redis); this process's skip log: %s\n", program, id, redactURL(ff.url), f.skiplog)
	return func() { rdb.Close() }, nil
}

// redactURL hides a password in a Redis URL.
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		return scheme + "://***@" + rest[at+1:]
	}
	return u
}

// redisLog sends go-redis's own log lines to a slog.Logger.
type redisLog struct{ l *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.l.InfoContext(ctx, "redis client: "+fmt.Sprintf(format, v...))
}
