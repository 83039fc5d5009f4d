package redisstore

import (
	"context"
	"time"
)

// RenewEvery calls renew every period until ctx ends: the loop that keeps
// a process's leases (the frontier's) and slots (the pacer's) alive while
// the process works, so that they outlive a slow request but not their
// process. A renewal still retrying when the next one is due is of no
// more use than the next one, so each call gets period at most. An error
// is handed to failed unless ctx has ended.
func RenewEvery(ctx context.Context, period time.Duration, renew func(context.Context) error, failed func(error)) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, period)
		if err := renew(rctx); err != nil && ctx.Err() == nil {
			failed(err)
		}
		cancel()
	}
}
