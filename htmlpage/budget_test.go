package htmlpage

import "testing"

// TestBudget checks what a Budget takes and gives back: nothing for a
// small page or a nil budget, n for a large one, at most the total for a
// huge one, and each release once however often it is called; a page
// waiting for its share gets it when another gives its own back.
func TestBudget(t *testing.T) {
	var none *Budget
	none.Acquire(1 << 30)()
	b := NewBudget(10_000)
	b.Acquire(SmallParse - 1)
	if b.free != 10_000 {
		t.Fatalf("a small page took %d", 10_000-b.free)
	}
	release := b.Acquire(6_000)
	if b.free != 4_000 {
		t.Fatalf("free %d after taking 6000, want 4000", b.free)
	}
	got := make(chan func())
	go func() { got <- b.Acquire(1 << 20) }() // capped at the total: waits for all of it
	release()
	release() // a second call gives nothing back
	huge := <-got
	if b.free != 0 {
		t.Fatalf("free %d while the huge page holds the budget, want 0", b.free)
	}
	huge()
	if b.free != 10_000 {
		t.Fatalf("free %d at rest, want 10000", b.free)
	}
}
