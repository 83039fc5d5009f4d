package redispacer

import (
	"context"
	"errors"

	"github.com/heedcrawl/heed/politeness"
	"github.com/heedcrawl/heed/redisstore"
)

// silence classifies a release for the give-up count as
// politeness.Pacer does: an answer of any status ("a") resets the count,
// a request that got no answer at all ("s", with its error) adds one, and
// heed stopping (context.Canceled) or nothing sent ("") leaves it.
func silence(fb politeness.Feedback) (kind, lastErr string) {
	switch {
	case fb.Status != 0:
		return "a", ""
	case fb.Err != nil && !errors.Is(fb.Err, context.Canceled):
		return "s", fb.Err.Error()
	}
	return "", ""
}

// goneErr returns the give-up this Pacer has seen for authority, or nil.
func (p *Pacer) goneErr(authority string) *politeness.UnreachableError {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gone[authority]
}

// givenUp makes the evidence of a give-up from tryScript's reply r ({-2,
// failures, first ended, last ended, now}) and the last error, kept in
// Redis, and remembers it. If the error cannot be read, the give-up stands
// with what the reply says.
func (p *Pacer) givenUp(ctx context.Context, authority string, r []int64) *politeness.UnreachableError {
	gone := &politeness.UnreachableError{
		Authority: authority,
		Failures:  int(r[1]),
		Since:     redisstore.LocalTime(r[2], r[4]),
		Last:      redisstore.LocalTime(r[3], r[4]),
		LastErr:   "unknown",
	}
	err := p.s.Do(ctx, "give-up evidence", func(ctx context.Context) error {
		v, err := p.s.Client().HGet(ctx, p.keys(authority)[0], "le").Result()
		if err == nil {
			gone.LastErr = v
		}
		return err
	})
	if err != nil {
		p.cfg.Log().Warn("redispacer: the last error of a given-up authority could not be read", "authority", authority, "error", err.Error())
		return gone
	}
	p.mu.Lock()
	if old := p.gone[authority]; old != nil {
		gone = old
	} else {
		p.gone[authority] = gone
	}
	p.mu.Unlock()
	return gone
}
