package redisfrontier

import (
	"context"
	"github.com/heedcrawl/heed/redisstore"
	"strconv"
)

// renewBatch bounds the leases renewed by one script call.
const renewBatch = 500

// renewLoop renews this Frontier's leases every third of the lease timeout
// until ctx ends, so that a lease outlives a slow request but not its
// process.
func (f *Frontier) renewLoop(ctx context.Context) {
	defer f.bg.Done()
	redisstore.RenewEvery(ctx, f.leaseTTL/3, f.Renew, func(err error) {
		f.s.Logger().Warn("redisfrontier: lease renewal failed", "error", err.Error())
	})
}

// Renew extends every lease this Frontier holds to a full lease timeout
// from now. The Frontier calls it in the background every third of the
// lease timeout; calling it directly is for tests and for a caller about to
// block for a while. A lease found expired and given back to the queue is
// marked lost, so that its Done or Retry returns [ErrLeaseLost], and
// logged.
func (f *Frontier) Renew(ctx context.Context) error {
	f.mu.Lock()
	args := make([]any, 0, 2*len(f.leases))
	for seq, l := range f.leases {
		if !l.lost {
			args = append(args, seqID(seq), l.token)
		}
	}
	f.mu.Unlock()
	for len(args) > 0 {
		n := min(len(args), 2*renewBatch)
		batch := args[:n]
		args = args[n:]
		res, err := f.run(ctx, "renew", renewScript, append([]any{redisstore.Micros(f.leaseTTL)}, batch...)...)
		if err != nil {
			return err
		}
		lost, _ := res.([]any)
		if len(lost) == 0 {
			continue
		}
		f.mu.Lock()
		for _, v := range lost {
			id, _ := v.(string)
			seq, err := strconv.ParseUint(id, 16, 64)
			if err != nil {
				continue
			}
			// The token tells this lease from a later one of the same
			// request taken since the batch was built.
			if l := f.leases[seq]; l != nil && !l.lost && sentToken(batch, id) == l.token {
				l.lost = true
				f.s.Logger().Warn("redisfrontier: lease expired and was given back to the queue; the URL may be fetched twice",
					"url", l.url, "seq", seq)
			}
		}
		f.mu.Unlock()
	}
	return nil
}

// sentToken returns the token sent with lease id in a renewal batch.
func sentToken(batch []any, id string) string {
	for i := 0; i+1 < len(batch); i += 2 {
		if batch[i] == id {
			t, _ := batch[i+1].(string)
			return t
		}
	}
	return ""
}

// Held returns the number of leases this Frontier holds (handed out by its
// Next and not yet Done or Retried), lost ones included.
func (f *Frontier) Held() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.leases)
}
