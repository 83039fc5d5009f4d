package redispacer

import (
	"context"

	"github.com/heedcrawl/heed/redisstore"
)

// renewBatch bounds the slots renewed by one script call.
const renewBatch = 500

// renewLoop renews this Pacer's slots every third of the slot timeout
// until ctx ends, so that a slot outlives a slow request but not its
// process.
func (p *Pacer) renewLoop(ctx context.Context) {
	defer p.bg.Done()
	redisstore.RenewEvery(ctx, p.cfg.slotTimeout/3, p.Renew, func(err error) {
		p.cfg.Log().Warn("redispacer: slot renewal failed", "error", err.Error())
	})
}

// Renew extends every slot this Pacer holds (starts booked and not yet
// released) to a full slot timeout from now. The Pacer calls it in the
// background every third of the slot timeout. A slot found gone, because
// Redis was out of reach for longer than the timeout, is logged: its
// authority may meanwhile have had a start beyond its concurrency.
func (p *Pacer) Renew(ctx context.Context) error {
	var keys, tokens []string
	var auths []string
	p.mu.Lock()
	for a, q := range p.slots {
		for _, tok := range q {
			keys = append(keys, p.prefix+"s:"+a)
			tokens = append(tokens, tok)
			auths = append(auths, a)
		}
	}
	p.mu.Unlock()
	for start := 0; start < len(keys); start += renewBatch {
		end := min(start+renewBatch, len(keys))
		args := []any{redisstore.Micros(p.cfg.slotTimeout)}
		for _, tok := range tokens[start:end] {
			args = append(args, tok)
		}
		cmd, err := p.s.Run(ctx, "renew slots", renewScript, keys[start:end], args...)
		var renewed []int64
		if err == nil {
			renewed, err = cmd.Int64Slice()
		}
		if err != nil {
			return err
		}
		for i, n := range renewed {
			if n == 0 {
				p.cfg.Log().Warn("redispacer: a slot expired while its request was in flight",
					"authority", auths[start+i], "slot_timeout", p.cfg.slotTimeout)
			}
		}
	}
	return nil
}

// Held returns the number of starts this Pacer booked and has not
// released.
func (p *Pacer) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, q := range p.slots {
		n += len(q)
	}
	return n
}
