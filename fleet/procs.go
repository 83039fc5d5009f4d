package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/redisstore"
)

// DefaultHeartbeat is how often a process of a shared crawl says, in
// Redis, that it is alive (WithHeartbeat). A process whose last heartbeat
// is older than three of its intervals is not live.
const DefaultHeartbeat = 2 * time.Second

// missedBeats is how many heartbeats a process may miss before it is no
// longer counted live.
const missedBeats = 3

// The crawl's keys this file keeps (after Prefix(crawlID)).
const (
	procsKey    = "procs"    // hash: process id -> its Process, as JSON
	beatsKey    = "beats"    // sorted set: process id, scored by when it stops being live (µs of the store's clock)
	finishedKey = "finished" // string: the crawl's Finished, as JSON, set once
)

// WithHeartbeat sets how often the process records in Redis that it is
// alive (default DefaultHeartbeat): `heed status --redis` lists the live
// processes and their last heartbeat, and `heed fleet clear` refuses
// while a process is live. A process that misses three heartbeats (it
// died, or lost Redis) is no longer live.
func WithHeartbeat(d time.Duration) Option {
	return func(c *config) { c.heartbeat = d }
}

// Process is one process of a shared crawl as its heartbeats describe it.
type Process struct {
	// ID names the process: host, pid and start time.
	ID   string `json:"id"`
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// Started is when it joined the crawl; Beat its last heartbeat (the
	// Redis server's clock).
	Started time.Time `json:"started"`
	Beat    time.Time `json:"beat"`
	// Every is its heartbeat interval.
	Every time.Duration `json:"every_ns"`
	// Live says its last heartbeat is recent (set by ReadStatus).
	Live bool `json:"live"`
}

// Finished is what a shared crawl records when it ends with nothing
// queued or in flight in any process: when, by which process, and its
// crawl-wide counts then. A crawl that has it is refused (FinishedError)
// until Clear deletes its keys.
type Finished struct {
	At      time.Time `json:"at"`
	By      string    `json:"by"`
	Pages   int64     `json:"pages"`
	Bytes   int64     `json:"bytes"`
	Skipped int64     `json:"skipped"`
}

// FinishedError is the error of Open (and of crawler.Run) for a process
// that would join a crawl which has finished: its seeds would all be
// duplicates and it would fetch nothing. Clear deletes the crawl's keys
// to start it over.
type FinishedError struct {
	CrawlID  string
	Finished Finished
}

// Error says when the crawl finished, with what counts, and how to start
// it over.
func (e *FinishedError) Error() string {
	f := e.Finished
	return fmt.Sprintf("crawl %s finished at %s (%d pages, %d skipped): nothing is left to do; clearing its keys (fleet.Clear, heed fleet clear) starts it over",
		e.CrawlID, f.At.UTC().Format(time.RFC3339), f.Pages, f.Skipped)
}

// heartbeat is a process's entry in the crawl's list of processes.
type heartbeat struct {
	store *redisstore.Store
	every time.Duration
	proc  Process
}

func newHeartbeat(store *redisstore.Store, every time.Duration) *heartbeat {
	host, _ := os.Hostname()
	if host == "" {
		host = "host"
	}
	now := time.Now()
	return &heartbeat{store: store, every: every, proc: Process{
		ID:   host + ":" + strconv.Itoa(os.Getpid()) + ":" + strconv.FormatInt(now.UnixNano(), 36),
		Host: host, PID: os.Getpid(), Started: now, Every: every,
	}}
}

// beat records that the process is alive, by the store's clock.
func (h *heartbeat) beat(ctx context.Context) error {
	now, err := h.store.Now(ctx)
	if err != nil {
		return err
	}
	p := h.proc
	p.Beat = now
	v, err := json.Marshal(p)
	if err != nil {
		return err
	}
	until := now.Add(missedBeats * h.every).UnixMicro()
	return h.store.Do(ctx, "heartbeat", func(ctx context.Context) error {
		_, err := h.store.Client().TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.HSet(ctx, h.store.Key(procsKey), h.proc.ID, v)
			p.ZAdd(ctx, h.store.Key(beatsKey), redis.Z{Score: float64(until), Member: h.proc.ID})
			return nil
		})
		return err
	})
}

// run beats every interval until ctx ends.
func (h *heartbeat) run(ctx context.Context, fl *fleet) {
	defer fl.bg.Done()
	t := time.NewTicker(h.every)
	defer t.Stop()
	for {
		bctx, cancel := context.WithTimeout(ctx, h.every)
		if err := h.beat(bctx); err != nil && ctx.Err() == nil && !errors.Is(err, redisstore.ErrUnavailable) && !errors.Is(err, context.DeadlineExceeded) {
			fl.log.Warn("fleet heartbeat not recorded", "error", err.Error())
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// leave removes the process from the crawl's list of processes, trying
// until ctx ends: a process that stops is not live.
func (h *heartbeat) leave(ctx context.Context) error {
	return h.store.Do(ctx, "leave", func(ctx context.Context) error {
		_, err := h.store.Client().TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.HDel(ctx, h.store.Key(procsKey), h.proc.ID)
			p.ZRem(ctx, h.store.Key(beatsKey), h.proc.ID)
			return nil
		})
		return err
	})
}

// markFinished records the crawl as finished, unless a process did
// already: the first record stands.
func markFinished(ctx context.Context, store *redisstore.Store, f Finished) error {
	v, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return store.Do(ctx, "mark finished", func(ctx context.Context) error {
		return store.Client().SetNX(ctx, store.Key(finishedKey), v, 0).Err()
	})
}

// readFinished reads the crawl's Finished record; nil if it has none.
func readFinished(ctx context.Context, store *redisstore.Store) (*Finished, error) {
	var b []byte
	err := store.Do(ctx, "read finished", func(ctx context.Context) error {
		var err error
		b, err = store.Client().Get(ctx, store.Key(finishedKey)).Bytes()
		return err
	})
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f := new(Finished)
	if err := json.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("fleet: the crawl's finished record %s is damaged: %w", store.Key(finishedKey), err)
	}
	return f, nil
}

// readProcesses reads the crawl's processes, live or not, by the store's
// clock, in the order they joined.
func readProcesses(ctx context.Context, store *redisstore.Store) ([]Process, time.Time, error) {
	now, err := store.Now(ctx)
	if err != nil {
		return nil, time.Time{}, err
	}
	var info map[string]string
	var beats []redis.Z
	err = store.Do(ctx, "read processes", func(ctx context.Context) error {
		var err error
		if info, err = store.Client().HGetAll(ctx, store.Key(procsKey)).Result(); err != nil {
			return err
		}
		beats, err = store.Client().ZRangeWithScores(ctx, store.Key(beatsKey), 0, -1).Result()
		return err
	})
	if err != nil {
		return nil, now, err
	}
	until := make(map[string]int64, len(beats))
	for _, z := range beats {
		id, _ := z.Member.(string)
		until[id] = int64(z.Score)
	}
	procs := make([]Process, 0, len(info))
	for id, v := range info {
		var p Process
		if json.Unmarshal([]byte(v), &p) != nil {
			p = Process{ID: id} // a damaged entry is listed, not live
		}
		p.ID = id
		p.Live = until[id] > now.UnixMicro()
		procs = append(procs, p)
	}
	sortProcesses(procs)
	return procs, now, nil
}
