package frontier

import (
	"context"
	"runtime"
	"strconv"
	"testing"
)

// TestSeenSet checks the compact seen set against a map across several
// growths: every added fingerprint is found, every other one is not, and
// adding twice reports the second as not new.
func TestSeenSet(t *testing.T) {
	var s seenSet
	const n = 20_000 // the table grows from 1,024 slots to 32,768
	if s.has(NewFingerprint("", "https://a.example/")) {
		t.Fatal("empty set has a fingerprint")
	}
	want := make(map[Fingerprint]bool)
	for i := range n {
		f := NewFingerprint("", "https://a.example/p/"+strconv.Itoa(i))
		if !s.add(f) {
			t.Fatalf("add %d: not new", i)
		}
		want[f] = true
		if s.add(f) {
			t.Fatalf("add %d twice: new", i)
		}
	}
	if s.len() != n || len(want) != n {
		t.Fatalf("len %d, want %d", s.len(), n)
	}
	for f := range want {
		if !s.has(f) {
			t.Fatalf("%s lost", f)
		}
	}
	for i := range n {
		f := NewFingerprint("", "https://b.example/p/"+strconv.Itoa(i))
		if s.has(f) {
			t.Fatalf("%s found but never added", f)
		}
	}
}

// TestSeenSetZeroKey checks that a fingerprint whose folded key is zero,
// the table's empty mark, is still kept.
func TestSeenSetZeroKey(t *testing.T) {
	var s seenSet
	var f Fingerprint // key: 0 ^ mix(0) = 0
	if seenKey(f) != 1 {
		t.Fatalf("seenKey(zero) = %d, want 1", seenKey(f))
	}
	if !s.add(f) || s.add(f) || !s.has(f) || s.len() != 1 {
		t.Fatal("the zero fingerprint is not kept once")
	}
}

// BenchmarkSeenSet measures adding a fingerprint to the Memory's seen set
// and looking one up, as Push does for every link.
func BenchmarkSeenSet(b *testing.B) {
	fps := make([]Fingerprint, 1<<16)
	for i := range fps {
		fps[i] = NewFingerprint("", "https://a.example/p/"+strconv.Itoa(i))
	}
	b.ReportAllocs()
	var s seenSet
	for i := 0; b.Loop(); i++ {
		f := fps[i&(len(fps)-1)]
		if !s.has(f) {
			s.add(f)
		}
	}
}

// TestMemorySeenCompact checks what a done URL costs the Memory: its slot
// in the seen set, at most 24 bytes a URL with the table's free slots
// (a map of whole fingerprints took about 38).
func TestMemorySeenCompact(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes 300,000 URLs")
	}
	const n = 300_000
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := NewMemory()
	for i := range n {
		if res, err := m.Push(ctx, &Request{URL: "https://host" + strconv.Itoa(i%100) + ".example/p/" + strconv.Itoa(i)}); res != Added {
			t.Fatalf("push %d: %v %v", i, res, err)
		}
		r, err := m.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Done(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if st := m.Stats(); st.Seen != n || st.Queued != 0 || st.Leased != 0 {
		t.Fatalf("Stats %+v", st)
	}
	perURL := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
	runtime.KeepAlive(m)
	if perURL > 24 {
		t.Errorf("a done URL costs %.1f bytes of heap, want at most 24", perURL)
	}
}
