package redisfrontier

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/redisstore"
)

// maxBatch bounds the requests one script call pushes, so that a page
// with thousands of links does not hold Redis for long.
const maxBatch = 256

// PushBatch pushes reqs as Push pushes each, in order, in as few round
// trips to Redis as it can: one script call for the requests the check
// (see [WithCheck]) passes, or all of them when there is no admission
// function; the requests that go to the admission function first cost one
// more call to claim them (every 256 requests). A URL repeated within the
// batch is a Duplicate after its first. It returns each request's result
// and error, as Push would.
//
// If Redis cannot be reached, the requests not yet queued are Rejected
// with an error wrapping [redisstore.ErrUnavailable], and the caller still
// owns them.
func (f *Frontier) PushBatch(ctx context.Context, reqs []*frontier.Request) ([]frontier.PushResult, []error) {
	res, errs, _, _ := f.pushAll(ctx, reqs, nil)
	return res, errs
}

// pushAll pushes reqs in chunks of maxBatch; the last chunk's script call
// also ends the lease end describes, when end is not nil, and pushAll
// returns that part's reply, or the error that kept it from being made.
func (f *Frontier) pushAll(ctx context.Context, reqs []*frontier.Request, end *leaseEnd) ([]frontier.PushResult, []error, []any, error) {
	res := make([]frontier.PushResult, len(reqs))
	errs := make([]error, len(reqs))
	var reply []any
	var failed error
	for start := 0; start == 0 || start < len(reqs); start += maxBatch {
		stop := min(start+maxBatch, len(reqs))
		var last *leaseEnd
		if stop == len(reqs) && failed == nil {
			// The lease ends only once every link is queued.
			last = end
		}
		r, err := f.pushChunk(ctx, reqs[start:stop], res[start:stop], errs[start:stop], last)
		if err != nil && failed == nil {
			failed = err
		}
		if last != nil && err == nil {
			reply = r
		}
	}
	if end != nil && reply == nil && failed == nil {
		failed = errors.New("redisfrontier: the lease was not ended")
	}
	return res, errs, reply, failed
}

// leaseEnd is the lease a push script call ends after queueing its
// requests (Complete): its id, its token and how long Redis remembers
// that it ended.
type leaseEnd struct {
	id, token string
	ttl       int64
	inc       *redisstore.Increments // applied with the lease end, unless it ended before
}

// batchItem is one request of a batch on its way to the push script.
type batchItem struct {
	i       int // index in the chunk
	fp      frontier.Fingerprint
	verdict string // "a" admitted, "r" rejected (marked seen and counted)
}

// pushChunk pushes at most maxBatch requests and, when end is not nil,
// ends that lease in the same script call, after them; it returns the
// lease part of the script's reply, or the error that failed the call
// (which every request not answered yet then has too).
func (f *Frontier) pushChunk(ctx context.Context, reqs []*frontier.Request, res []frontier.PushResult, errs []error, end *leaseEnd) ([]any, error) {
	var callErr error
	fail := func(err error) {
		callErr = err
		for i := range reqs {
			if errs[i] == nil && res[i] != frontier.Duplicate {
				res[i], errs[i] = frontier.Rejected, err
			}
		}
	}
	if f.isClosed() {
		fail(frontier.ErrClosed)
		return nil, callErr
	}
	var items, toAdmit []batchItem
	invalid, dups := 0, 0
	inBatch := make(map[frontier.Fingerprint]bool, len(reqs))
	for i, req := range reqs {
		if req == nil {
			res[i], errs[i] = frontier.Rejected, errors.New("frontier: Push of a nil request")
			continue
		}
		canon, err := frontier.Canonicalize(req.URL)
		if err != nil {
			res[i], errs[i] = frontier.Rejected, err
			invalid++
			continue
		}
		req.URL = canon
		it := batchItem{i: i, fp: req.Fingerprint(), verdict: "a"}
		if inBatch[it.fp] {
			res[i] = frontier.Duplicate
			dups++
			continue
		}
		inBatch[it.fp] = true
		if f.check != nil {
			cerr := f.check(req)
			if cerr == nil {
				items = append(items, it) // passed: straight to the push script
				continue
			}
			if f.cfg.Admit == nil {
				it.verdict, errs[i] = "r", cerr
				items = append(items, it)
				continue
			}
		}
		if f.cfg.Admit != nil {
			toAdmit = append(toAdmit, it)
		} else {
			items = append(items, it)
		}
	}
	token := ""
	if len(toAdmit) > 0 {
		token = f.newToken()
		args := []any{token, redisstore.Micros(f.leaseTTL)}
		for _, it := range toAdmit {
			args = append(args, string(it.fp[:]))
		}
		r, err := f.run(ctx, "push", claimBatchScript, args...)
		if err != nil {
			fail(err)
			return nil, callErr
		}
		claims, _ := r.([]any)
		for k, it := range toAdmit {
			if intAt(claims, k) == 0 {
				res[it.i] = frontier.Duplicate // counted by the claim
				continue
			}
			if err := f.cfg.Admit(reqs[it.i]); err != nil {
				it.verdict, errs[it.i] = "r", err
			}
			items = append(items, it)
		}
		if f.isClosed() {
			f.s.Client().ZRem(context.WithoutCancel(ctx), f.keys[0]+"admit", token)
			for i := range errs {
				errs[i] = nil
			}
			fail(frontier.ErrClosed)
			return nil, callErr
		}
	}
	if len(items) == 0 && invalid == 0 && dups == 0 && token == "" && end == nil {
		return nil, nil
	}
	script := pushBatchScript
	args := []any{f.cfg.LeasesPerAuthority, f.order, token, dups, invalid}
	if end != nil {
		script = completeScript
		args = append(args, end.id, end.token, end.ttl, end.inc.Len())
		args = append(args, end.inc.Args()...)
	}
	var sent []batchItem
	for _, it := range items {
		req := reqs[it.i]
		body, err := requestJSON(req)
		if err != nil {
			res[it.i], errs[it.i] = frontier.Rejected, err
			continue
		}
		sent = append(sent, it)
		args = append(args, string(it.fp[:]), authorityOf(req.URL), sortKey(req, f.cfg.Order), body, it.verdict)
	}
	r, err := f.run(ctx, "push", script, args...)
	out, _ := r.([]any)
	var reply []any
	if err == nil && end != nil {
		// The complete script answers {lease part, push part}.
		reply, _ = at(out, 0).([]any)
		out, _ = at(out, 1).([]any)
		if len(reply) == 0 {
			err = fmt.Errorf("redisfrontier: complete script answered %v", r)
		}
	}
	if err == nil && len(out) != len(sent) {
		err = fmt.Errorf("redisfrontier: push script answered %v for %d requests", r, len(sent))
	}
	if err != nil {
		for _, it := range sent {
			errs[it.i] = nil
		}
		fail(err)
		return nil, callErr
	}
	added := false
	for k, it := range sent {
		switch code := intAt(out, k); {
		case code == 0:
			res[it.i], errs[it.i] = frontier.Duplicate, nil
		case code < 0:
			res[it.i] = frontier.Rejected // with the check's or the admission's error
		default:
			res[it.i], errs[it.i] = frontier.Added, nil
			reqs[it.i].Seq = uint64(code)
			added = true
		}
	}
	if added {
		f.wake.one()
	}
	return reply, nil
}

// at returns r[i], or nil.
func at(r []any, i int) any {
	if i >= len(r) {
		return nil
	}
	return r[i]
}

// claimBatchScript starts the admission of requests: it counts each one
// seen before as a duplicate, and records an admission token that keeps the
// crawl from looking exhausted while the admission function runs.
// ARGV: 2 token, 3 token lifetime (µs), 4... fingerprints.
// Returns one 0 (duplicate) or 1 (go on) per fingerprint.
var claimBatchScript = redis.NewScript(luaPrelude + `
local now = clock()
local out, any = {}, false
for i = 4, #ARGV do
  if redis.call('SISMEMBER', F .. 'seen', ARGV[i]) == 1 then
    redis.call('HINCRBY', N, 'dups', 1)
    out[#out + 1] = 0
  else
    out[#out + 1] = 1
    any = true
  end
end
if any then redis.call('ZADD', ADMIT, now + tonumber(ARGV[3]), ARGV[2]) end
return out
`)

// pushBatchLua queues new requests unless their fingerprints were seen,
// as pushScript does for one, taking them from ARGV[first...].
// ARGV: 2 leases per authority, 3 order ("b" or "d"), 4 admission token or
// "", 5 duplicates and 6 invalid URLs found in Go (counted), then from
// first, five per request: fingerprint, authority, sort key, JSON, "a"
// (admitted) or "r" (rejected: counted and marked seen).
// Returns per request: 0 duplicate, -1 rejected, or its Seq.
const pushBatchLua = `
local function pushBatch(now, first)
  local limit, tok = tonumber(ARGV[2]), ARGV[4]
  if tok ~= '' then redis.call('ZREM', ADMIT, tok) end
  if tonumber(ARGV[5]) > 0 then redis.call('HINCRBY', N, 'dups', tonumber(ARGV[5])) end
  if tonumber(ARGV[6]) > 0 then redis.call('HINCRBY', N, 'rejects', tonumber(ARGV[6])) end
  local out, ready = {}, false
  for i = first, #ARGV, 5 do
    local a = ARGV[i + 1]
    if redis.call('SADD', F .. 'seen', ARGV[i]) == 0 then
      redis.call('HINCRBY', N, 'dups', 1)
      out[#out + 1] = 0
    elseif ARGV[i + 4] == 'r' then
      redis.call('HINCRBY', N, 'rejects', 1)
      out[#out + 1] = -1
    else
      local seq = redis.call('INCR', F .. 'seq')
      local order = hex(seq)
      if ARGV[3] == 'd' then order = hex(9007199254740991 - seq) end
      local ak = F .. 'a:' .. a
      if redis.call('HEXISTS', ak, 'turn') == 0 then
        redis.call('HSET', ak, 'turn', hex(redis.call('HINCRBY', N, 'turn', 1)))
      end
      addq(a, ARGV[i + 2] .. order .. hex(seq) .. ARGV[i + 3], 0)
      if place(a, now, limit) > 0 then ready = true end
      out[#out + 1] = seq
    end
  end
  if ready then wake('r') end
  if tok ~= '' and exhausted(now) then wake('x') end
  return out
end
`

// pushBatchScript queues requests (pushBatchLua, from ARGV[7]).
var pushBatchScript = redis.NewScript(luaPrelude + pushBatchLua + `
return pushBatch(clock(), 7)
`)

// completeScript queues a page's links and then ends the page's lease,
// in one atomic step: the links are queued before the lease ends, so the
// crawl never looks exhausted in between. It also applies the page's
// counter updates (redisstore.Increments), unless the lease had ended
// before (a repeat of the call whose reply was lost: they were applied
// then). ARGV as pushBatchScript's up to 6, then 7 lease id, 8 token, 9
// how long to remember that the token ended (ms), 10 the number m of
// increment arguments, the increments from 11, then the requests from
// 11+m.
// Returns {doneScript's reply, pushBatchScript's}.
var completeScript = redis.NewScript(luaPrelude + pushBatchLua + doneLua + redisstore.IncrementsLua + `
local now = clock()
local first = 11 + tonumber(ARGV[10])
if not ended(ARGV[8]) then applyIncrements(11, tonumber(ARGV[10])) end
local pushed = pushBatch(now, first)
return {done(now, tonumber(ARGV[2]), ARGV[7], ARGV[8], ARGV[9]), pushed}
`)
