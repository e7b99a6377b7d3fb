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
			if b := h.remove(0); b != first || b.index != -1 {
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

// Of the budgets due, one whose address has answered goes before one
// waiting for its first request, however long that one has been due: the
// started budget's rest is what a delay would lengthen (R1.2). A fresh
// budget is taken when no started one is due, and the earliest of both
// still sets the dispatcher's timer.
func TestStartedBudgetsGoFirst(t *testing.T) {
	start := time.Unix(0, 0)
	var q dueQueue
	fresh := &Budget{nextAt: start, index: -1}
	started := &Budget{nextAt: start.Add(3 * time.Second), lastEnd: start, index: -1}
	q.push(fresh)
	q.push(started)
	if b, _ := q.first(); b != fresh {
		t.Fatalf("first: the fresh budget, due earliest, should set the timer")
	}
	if b, ok := q.dueAt(start.Add(time.Second)); !ok || b != fresh {
		t.Fatalf("at 1 s only the fresh budget is due: got %v %v", b, ok)
	}
	if b, ok := q.dueAt(start.Add(4 * time.Second)); !ok || b != started {
		t.Fatalf("at 4 s both are due: the started one goes first, got the fresh one")
	}
	q.remove(started)
	if b, ok := q.dueAt(start.Add(4 * time.Second)); !ok || b != fresh || q.len() != 1 {
		t.Fatalf("with the started one taken, the fresh one is next")
	}
	q.clear()
	if _, ok := q.first(); ok || fresh.index != -1 {
		t.Fatalf("clear left a budget in the queue")
	}
}
