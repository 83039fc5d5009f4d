package htmlpage

import "sync"

// SmallParse is the estimated element count under which a page does not
// take from a Budget: pages of a few thousand elements never wait.
const SmallParse = 4_000

// Budget bounds the elements of the trees in use at once. A nil Budget
// bounds nothing.
type Budget struct {
	mu    sync.Mutex
	cond  *sync.Cond
	free  int
	total int
}

// NewBudget returns a budget of total elements.
func NewBudget(total int) *Budget {
	b := &Budget{free: total, total: total}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// Acquire takes n elements of the budget, waiting while they are not
// free, and returns the function that gives them back (once, however
// often it is called). A small n, or no budget, takes nothing. n is
// capped at the total, so one huge page waits for an empty budget, not
// forever.
func (b *Budget) Acquire(n int) (release func()) {
	if b == nil || n < SmallParse {
		return func() {}
	}
	n = min(n, b.total)
	b.mu.Lock()
	for b.free < n {
		b.cond.Wait()
	}
	b.free -= n
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.free += n
			b.mu.Unlock()
			b.cond.Broadcast()
		})
	}
}
