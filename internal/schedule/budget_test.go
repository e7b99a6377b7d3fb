package schedule

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The due heap gives budgets in the order of their nextAt through any mix
// of pushes, pops, changed times and removals, and each budget knows its
// index in it.
func TestDueHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Unix(0, 0)
	var h dueHeap
	in := map[*Budget]bool{}
	check := func(step int) {
		for i, e := range h {
			b := e.b
			if !e.at.Equal(b.nextAt) {
				t.Fatalf("step %d: entry %d holds %v, its budget %v", step, i, e.at, b.nextAt)
			}
			if b.index != i {
				t.Fatalf("step %d: budget at %d says index %d", step, i, b.index)
			}
			if p := (i - 1) / 2; i > 0 && b.nextAt.Before(h[p].b.nextAt) {
				t.Fatalf("step %d: %d is due before its parent %d", step, i, p)
			}
		}
		if len(h) != len(in) {
			t.Fatalf("step %d: %d in the heap, want %d", step, len(h), len(in))
		}
	}
	for step := range 20000 {
		at := start.Add(time.Duration(rng.IntN(50)) * time.Second) // ties are common
		switch op := rng.IntN(4); {
		case op == 0 || len(h) == 0:
			b := &Budget{nextAt: at, index: -1}
			h.push(b)
			in[b] = true
		case op == 1:
			first := h.first()
			for b := range in {
				if b.nextAt.Before(first.nextAt) {
					t.Fatalf("step %d: popped %v while %v waits", step, first.nextAt, b.nextAt)
				}
			}
			if b := h.pop(); b != first || b.index != -1 {
				t.Fatalf("step %d: pop gave another budget, or one still indexed", step)
			}
			delete(in, first)
		case op == 2:
			b := h[rng.IntN(len(h))].b
			b.nextAt = at
			h.fix(b.index)
		default:
			b := h[rng.IntN(len(h))].b
			if got := h.remove(b.index); got != b || b.index != -1 {
				t.Fatalf("step %d: remove gave another budget, or one still indexed", step)
			}
			delete(in, b)
		}
		check(step)
	}
}
