package durable

import (
	"context"
	"errors"
	"strings"

	"github.com/heedcrawl/heed/frontier"
	"github.com/heedcrawl/heed/frontier/internal/sched"
)

// Push canonicalises req.URL and sets it to the canonical form, drops the
// request as a Duplicate if its fingerprint is in the seen set, asks the
// admission function, and queues it with the next Seq. It returns Added
// only once the request, its fingerprint and its Seq are on stable storage
// (fsync'd): a process killed after that loses none of them. Concurrent
// Push calls share their fsyncs, but each waits for one; a caller with many
// URLs at hand (the links of a page) should use PushBatch.
//
// An invalid URL is Rejected with its *URLError (counted, not marked
// seen). After Close it returns Rejected and ErrClosed. The context is not
// used: a commit once started is not abandoned.
//
// Push takes ownership of an Added request: the caller must not change it
// until Next hands it out.
func (f *Frontier) Push(ctx context.Context, req *frontier.Request) (frontier.PushResult, error) {
	res, errs := f.PushBatch(ctx, []*frontier.Request{req})
	return res[0], errs[0]
}

// PushBatch pushes every request of reqs as Push does, and commits all
// those it adds in one write with one fsync: for the links of one page it
// costs little more than a single Push. res[i] and errs[i] are what Push
// would have returned for reqs[i]; a URL that appears twice in reqs is a
// Duplicate the second time. If the write fails, every request that would
// have been Added is Rejected with the store's error, and the frontier
// stops working.
func (f *Frontier) PushBatch(_ context.Context, reqs []*frontier.Request) (res []frontier.PushResult, errs []error) {
	res = make([]frontier.PushResult, len(reqs))
	errs = make([]error, len(reqs))
	fps := make([]frontier.Fingerprint, len(reqs))
	var cand []int // requests with a valid URL, then those not seen
	invalid := 0
	for i, r := range reqs {
		res[i] = frontier.Rejected
		if r == nil {
			errs[i] = errors.New("frontier: Push of a nil request")
			continue
		}
		canon, err := frontier.Canonicalize(r.URL)
		if err != nil {
			errs[i] = err
			invalid++
			continue
		}
		r.URL = canon
		fps[i] = r.Fingerprint()
		cand = append(cand, i)
	}

	f.mu.Lock()
	if err := f.usable(); err != nil {
		f.mu.Unlock()
		for i, r := range reqs {
			if r != nil {
				errs[i] = err
			}
		}
		return res, errs
	}
	f.ctr.rejects += uint64(invalid)
	fresh := cand[:0]
	for _, i := range cand {
		fp := fps[i]
		dup := false
		if _, ok := f.pending[fp]; ok {
			dup = true
		} else if seen, err := has(f.db, seenKey(fp)); err != nil {
			err = f.fail(err)
			f.unpend(fps, fresh)
			f.mu.Unlock()
			for j, r := range reqs {
				if r != nil && errs[j] == nil {
					res[j], errs[j] = frontier.Rejected, err
				}
			}
			return res, errs
		} else {
			dup = seen
		}
		if dup {
			f.ctr.dups++
			res[i] = frontier.Duplicate
			continue
		}
		// Marking the URL pending before asking the admission function
		// makes a concurrent Push of it a Duplicate while it is asked.
		f.pending[fp] = struct{}{}
		res[i] = frontier.Added
		fresh = append(fresh, i)
	}
	if len(fresh) == 0 {
		f.mu.Unlock()
		return res, errs
	}

	if f.cfg.Admit != nil {
		f.admitting += len(fresh)
		f.mu.Unlock()
		for _, i := range fresh {
			if err := f.cfg.Admit(reqs[i]); err != nil {
				res[i], errs[i] = frontier.Rejected, err
			}
		}
		f.mu.Lock()
		f.admitting -= len(fresh)
		if err := f.usable(); err != nil {
			f.unpend(fps, fresh)
			rejectAdded(fresh, res, errs, err)
			if f.exhausted() {
				f.sched.Broadcast()
			}
			f.mu.Unlock()
			return res, errs
		}
	}
	return f.commitPush(reqs, fps, fresh, res, errs) // unlocks f.mu
}

// commitPush writes the admitted and refused requests of fresh (all marked
// pending) in one batch, queues the admitted ones in memory, and waits for
// the fsync. f.mu is held; commitPush unlocks it.
func (f *Frontier) commitPush(reqs []*frontier.Request, fps []frontier.Fingerprint, fresh []int, res []frontier.PushResult, errs []error) ([]frontier.PushResult, []error) {
	type added struct {
		a *authority
		e entry
	}
	var (
		b        = f.db.NewBatch()
		ctr      = f.ctr
		adds     []added
		newAuths = map[string]*authority{}
		newList  []*authority // in order of first push, for round-robin turns
		grow     = map[*authority]int{}
	)
	for _, i := range fresh {
		b.Set(seenKey(fps[i]), nil, nil)
		ctr.seen++
		if res[i] != frontier.Added {
			ctr.rejects++
			continue
		}
		r := reqs[i]
		name := authorityPrefix(r.URL)
		a := f.auths[name]
		if a == nil {
			a = newAuths[name]
		}
		if a == nil {
			// Clone: name points into the first URL, which may be long.
			a = &authority{Slot: sched.Slot{Name: strings.Clone(name)}, id: ctr.nextAuth}
			ctr.nextAuth++
			newAuths[a.Name] = a
			newList = append(newList, a)
		}
		ctr.seq++
		r.Seq = ctr.seq
		key := pushedKey(a.id, f.cfg.Order, r)
		b.Set(key, encodeRequest(nil, r), nil)
		adds = append(adds, added{a, entry{key: key, req: r}})
		grow[a]++
	}
	for a, n := range grow {
		rec := a.record()
		rec.queued += n
		b.Set(authorityKey(a.id), rec.encode(), nil)
	}
	saved := f.ctr
	f.ctr = ctr
	b.Set([]byte{prefixCounters}, ctr.encode(), nil)
	f.unpend(fps, fresh) // from here the seen set on disk answers
	if err := f.applySynced(b); err != nil {
		f.ctr = saved
		f.mu.Unlock()
		rejectAdded(fresh, res, errs, err)
		return res, errs
	}
	for _, a := range newList {
		f.sched.Join(a)
		f.auths[a.Name] = a
	}
	limit := f.readAhead()
	for _, ad := range adds {
		a := ad.a
		a.noteKey(ad.e, limit)
		a.queued++
		f.queued++
		f.sched.Add(a) // the new request may be the new head
	}
	f.sched.Wake() // every waiter, if every push was refused
	if err := f.waitSynced(b); err != nil {
		rejectAdded(fresh, res, errs, err)
	}
	return res, errs
}

// rejectAdded turns the Added results among res[i], for i in idx, into
// Rejected with err: their write failed.
func rejectAdded(idx []int, res []frontier.PushResult, errs []error, err error) {
	for _, i := range idx {
		if res[i] == frontier.Added {
			res[i], errs[i] = frontier.Rejected, err
		}
	}
}

// unpend forgets the pending fingerprints of reqs[i] for i in idx.
func (f *Frontier) unpend(fps []frontier.Fingerprint, idx []int) {
	for _, i := range idx {
		delete(f.pending, fps[i])
	}
}
