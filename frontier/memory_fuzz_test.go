package frontier

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// modelAuthority is the reference model of one authority's queue.
type modelAuthority struct {
	front  []*Request // retried, last is the head
	queue  []*Request // sorted by the order
	leased int
}

func (a *modelAuthority) head() *Request {
	if n := len(a.front); n > 0 {
		return a.front[n-1]
	}
	return a.queue[0]
}

func (a *modelAuthority) queued() int { return len(a.front) + len(a.queue) }

// FuzzMemoryOps runs a random sequence of Push, Next, Done, Retry and Drain
// against Memory and a plain reference model, and checks that every request
// Next hands out is its authority's head, comes from an authority with a
// free lease whose head has the best priority and depth of all such
// authorities, and that the counts agree.
func FuzzMemoryOps(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 0, 3, 0, 2, 2, 3, 4, 2, 5})
	f.Add([]byte{1, 0, 7, 0, 9, 1, 3, 2, 2, 2, 4, 2, 3, 3, 3})
	f.Add([]byte{6, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		order := Order(ops[0] & 1)
		leases := int(ops[0]>>1)%3 + 1
		m := NewMemory(WithOrder(order), WithLeasesPerAuthority(leases))
		defer m.Close()
		ctx := context.Background()

		auths := map[string]*modelAuthority{}
		seen := map[string]bool{}
		var leased []*Request
		queued, dups := 0, 0
		model := func(name string) *modelAuthority {
			if auths[name] == nil {
				auths[name] = &modelAuthority{}
			}
			return auths[name]
		}
		// before reports whether x's head beats y's across authorities.
		before := func(x, y *Request) bool {
			if x.Priority != y.Priority {
				return x.Priority > y.Priority
			}
			if order == DepthFirst {
				return x.Depth > y.Depth
			}
			return x.Depth < y.Depth
		}

		for i := 1; i+1 < len(ops) && i < 400; i += 2 {
			op, arg := ops[i]%6, ops[i+1]
			switch op {
			case 0, 1: // Push
				host := fmt.Sprintf("http://h%d.example", arg%5)
				u := fmt.Sprintf("%s/%d", host, int(arg/5%8)+int(op)*8)
				r := &Request{URL: u, Depth: int(arg % 3), Priority: int(arg>>6) % 2}
				res, err := m.Push(ctx, r)
				if err != nil {
					t.Fatalf("Push(%s): %v", u, err)
				}
				if seen[u] {
					if res != Duplicate {
						t.Fatalf("Push(%s) = %v; want duplicate", u, res)
					}
					dups++
					continue
				}
				if res != Added {
					t.Fatalf("Push(%s) = %v; want added", u, res)
				}
				seen[u] = true
				a := model(host)
				a.queue = append(a.queue, r)
				slices.SortStableFunc(a.queue, func(x, y *Request) int {
					if order.Less(x, y) {
						return -1
					}
					return 1
				})
				queued++
			case 2: // Next
				var best *Request
				for _, a := range auths {
					if a.queued() > 0 && a.leased < leases && (best == nil || before(a.head(), best)) {
						best = a.head()
					}
				}
				if best == nil {
					if queued == 0 && len(leased) == 0 {
						if _, err := m.Next(ctx); !errors.Is(err, ErrExhausted) {
							t.Fatalf("Next: %v; want ErrExhausted", err)
						}
					}
					continue // Next would block
				}
				r, err := m.Next(ctx)
				if err != nil {
					t.Fatalf("Next: %v", err)
				}
				a := auths[r.Authority()]
				// Next builds the request afresh from its compact form: the
				// same request is the same Seq and URL.
				if a == nil || a.queued() == 0 || a.head().Seq != r.Seq || a.head().URL != r.URL ||
					a.head().Depth != r.Depth || a.head().Priority != r.Priority {
					t.Fatalf("Next = %s (seq %d), not its authority's head", r.URL, r.Seq)
				}
				if a.leased >= leases {
					t.Fatalf("Next = %s from an authority with %d leases out", r.URL, a.leased)
				}
				if before(best, r) {
					t.Fatalf("Next = %s (p%d d%d); %s (p%d d%d) was ready and better", r.URL, r.Priority, r.Depth, best.URL, best.Priority, best.Depth)
				}
				if len(a.front) > 0 {
					a.front = a.front[:len(a.front)-1]
				} else {
					a.queue = a.queue[1:]
				}
				a.leased++
				queued--
				leased = append(leased, r)
			case 3, 4: // Done or Retry
				if len(leased) == 0 {
					if err := m.Done(ctx, &Request{URL: "http://h0.example/0", Seq: 1 << 40}); !errors.Is(err, ErrNotLeased) {
						t.Fatalf("Done of an unleased request: %v", err)
					}
					continue
				}
				j := int(arg) % len(leased)
				r := leased[j]
				leased = slices.Delete(leased, j, j+1)
				a := auths[r.Authority()]
				a.leased--
				if op == 3 {
					if err := m.Done(ctx, r); err != nil {
						t.Fatalf("Done(%s): %v", r.URL, err)
					}
					continue
				}
				if err := m.Retry(ctx, r, time.Time{}); err != nil {
					t.Fatalf("Retry(%s): %v", r.URL, err)
				}
				a.front = append(a.front, r)
				queued++
			case 5: // Drain, rarely
				if arg < 240 {
					continue
				}
				n := 0
				if err := m.Drain(ctx, func(*Request) { n++ }); err != nil || n != queued {
					t.Fatalf("Drain passed %d requests, %v; want %d", n, err, queued)
				}
				for _, a := range auths {
					a.front, a.queue = nil, nil
				}
				queued = 0
			}
			st := m.Stats()
			if st.Queued != queued || st.Leased != len(leased) || st.Seen != len(seen) || st.Duplicates != dups {
				t.Fatalf("Stats = %+v; model: %d queued, %d leased, %d seen, %d duplicates", st, queued, len(leased), len(seen), dups)
			}
		}
	})
}
