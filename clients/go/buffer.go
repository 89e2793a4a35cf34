package idmint

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// batch is a slice of IDs in append order and the count of claims on it. taken runs past
// len(ids) once per take that finds the batch used up: an int64, which no number of such
// takes wraps round to an index already handed out. start counts the IDs appended before it,
// so that the head alone tells how many were handed out.
type batch struct {
	taken atomic.Int64
	ids   []int64
	start int64
	next  atomic.Pointer[batch]
}

// buffer holds the IDs fetched and not yet handed out: a chain of batches, each claimed by an
// atomic add on its index (the Java client's PrefetchBuffer). A take is one atomic load, one
// atomic add and one slice read; only at the end of a batch does a taker move the head on (a
// compare-and-swap) and wake the refill. One goroutine, the refill, appends; any number take.
// Every claimed index is a different slot, so no ID is handed out twice, and IDs leave in the
// order they were appended.
type buffer struct {
	head atomic.Pointer[batch]
	tail *batch // the refill's alone

	appended atomic.Int64 // IDs appended so far; written by the refill only
	waiters  atomic.Int32 // takers waiting for a batch

	mu     sync.Mutex
	signal chan struct{} // closed and replaced when a batch is appended or the buffer closes
	closed atomic.Bool

	wake func() // runs when a taker moves on from a batch or starts to wait
}

func newBuffer(wake func()) *buffer {
	b := &buffer{signal: make(chan struct{}), wake: wake}
	first := &batch{}
	b.head.Store(first)
	b.tail = first
	return b
}

// take returns the next ID. Without one buffered it waits for the refill for at most
// deadline or until ctx ends; then it returns timedOut() or ctx's error.
func (b *buffer) take(ctx context.Context, deadline time.Duration,
	timedOut func() error) (int64, error) {
	h := b.head.Load()
	if i := h.taken.Add(1) - 1; i < int64(len(h.ids)) {
		return h.ids[i], nil
	}
	return b.takeSlow(ctx, time.Now().Add(deadline), timedOut)
}

func (b *buffer) takeSlow(ctx context.Context, end time.Time,
	timedOut func() error) (int64, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		h := b.head.Load()
		if i := h.taken.Add(1) - 1; i < int64(len(h.ids)) {
			return h.ids[i], nil
		}
		if next := h.next.Load(); next != nil {
			if b.head.CompareAndSwap(h, next) {
				b.wake()
			}
			continue
		}
		if b.closed.Load() {
			return 0, ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		left := time.Until(end)
		if left <= 0 {
			return 0, timedOut()
		}
		if timer == nil {
			timer = time.NewTimer(left)
		} else {
			timer.Reset(left)
		}
		b.await(ctx, h, timer)
	}
}

// await waits until a batch follows h, the buffer closes, ctx ends or timer fires.
func (b *buffer) await(ctx context.Context, h *batch, timer *time.Timer) {
	b.waiters.Add(1)
	defer b.waiters.Add(-1)
	b.wake()
	b.mu.Lock()
	if h.next.Load() != nil || b.closed.Load() {
		b.mu.Unlock()
		return
	}
	signal := b.signal
	b.mu.Unlock()
	select {
	case <-signal:
	case <-ctx.Done():
	case <-timer.C:
	}
	// takeSlow resets the timer: drain it if it fired unseen.
	if !timer.Stop() {
		select {
		case <-timer.C:
		default:
		}
	}
}

// append adds ids (the refill only); takers see them at once. ids must not change afterwards.
func (b *buffer) append(ids []int64) {
	if len(ids) == 0 {
		return
	}
	n := &batch{ids: ids, start: b.appended.Load()}
	// Counted before takers can reach it: appended is never below what they took.
	b.appended.Add(int64(len(ids)))
	b.tail.next.Store(n)
	b.tail = n
	if b.waiters.Load() > 0 {
		b.notify()
	}
}

func (b *buffer) notify() {
	b.mu.Lock()
	close(b.signal)
	b.signal = make(chan struct{})
	b.mu.Unlock()
}

// takenTotal is the number of IDs handed out so far (approximate while takers run).
func (b *buffer) takenTotal() int64 {
	h := b.head.Load()
	t := h.taken.Load()
	if t > int64(len(h.ids)) {
		t = int64(len(h.ids))
	}
	return h.start + t
}

// buffered is the number of IDs buffered now.
func (b *buffer) buffered() int64 {
	n := b.appended.Load() - b.takenTotal()
	if n < 0 {
		return 0
	}
	return n
}

// close drops what is buffered and fails waiting and later takers with ErrClosed.
func (b *buffer) close() {
	if b.closed.Swap(true) {
		return
	}
	// An empty head with no successor sends every later take to the slow path, which sees
	// closed; a taker that loaded the old head just before may still take from it.
	b.head.Store(&batch{start: b.appended.Load()})
	b.notify()
}
