package idmint

import (
	"context"
	"sync/atomic"
	"time"
)

const (
	// horizon is the time the buffer should cover at the rate callers take IDs.
	horizon = 100 * time.Millisecond
	// minTarget is one request's worth: the buffer never aims lower.
	minTarget = 1000
	// window is the shortest time the take rate is measured over.
	window = 10 * time.Millisecond
	// idleWait is how long the refill sleeps when nothing wakes it.
	idleWait = 50 * time.Millisecond
)

// demand is how many IDs the buffer should hold (docs/client.md, "Buffer and memory"):
// about 100 ms of the rate callers take them, at least one request's worth and at most the
// buffer size. The rate is measured over windows of at least 10 ms, up at once and down
// gently, so that a burst raises the target within a few windows and an idle client lets it
// fall back (few buffered IDs, whose timestamps age while they wait).
type demand struct {
	capacity     int
	windowStart  time.Duration
	takenAtStart int64
	rate         float64 // IDs per second, smoothed
}

func (d *demand) observe(taken int64, now time.Duration) {
	elapsed := now - d.windowStart
	if elapsed < window {
		return
	}
	measured := float64(taken-d.takenAtStart) * 1e9 / float64(elapsed)
	if measured >= d.rate {
		d.rate = measured
	} else {
		d.rate = 0.7*d.rate + 0.3*measured
	}
	d.windowStart = now
	d.takenAtStart = taken
}

func (d *demand) target() int {
	want := d.rate * horizon.Seconds()
	floor := minTarget
	if d.capacity < floor {
		floor = d.capacity
	}
	if want > float64(d.capacity) {
		want = float64(d.capacity)
	}
	if want < float64(floor) {
		return floor
	}
	return int(want)
}

// refill is the goroutine that keeps the buffer filled from the current endpoint: one
// request of up to maxBatch IDs at a time over the endpoint's keep-alive connection, only
// while the buffer holds fewer IDs than demand asks for. A request that fails or gets no
// complete answer within the call timeout (its connection is then closed) moves it to the
// next endpoint.
//
// Order: an ID is appended only when above the last one appended, so the buffer, and every
// caller, sees IDs increasing across requests and servers. A server whose IDs stay below for
// longer than the call timeout (a clock far behind) would starve the client: then the order
// starts over from its IDs, counted in resets.
type refill struct {
	buf         *buffer
	fo          *failover
	wire        *wire
	demand      demand
	callTimeout time.Duration
	maxBatch    int
	now         func() time.Duration

	ctx  context.Context // ends at Close, cancelling a request in flight
	wake chan struct{}   // capacity 1: a taker wants a look at the buffer
	done chan struct{}   // closed when run returns

	body []byte // the last answer's bytes, reused

	// order, the refill goroutine's alone
	any           bool
	last          uint64
	dropping      bool
	droppingSince time.Duration

	dropped atomic.Int64
	resets  atomic.Int64
}

func (r *refill) run() {
	defer close(r.done)
	idle := time.NewTimer(time.Hour)
	idle.Stop()
	for r.ctx.Err() == nil {
		r.demand.observe(r.buf.takenTotal(), r.now())
		buffered := int(r.buf.buffered())
		target := r.demand.target()
		if buffered >= target {
			r.sleep(idle, idleWait)
			continue
		}
		i := r.fo.pick()
		if i < 0 {
			wait := r.fo.untilNext()
			if wait > idleWait {
				wait = idleWait
			}
			r.sleep(idle, wait)
			continue
		}
		n := target - buffered
		if least := minTarget; n < least {
			n = least
		}
		if n > r.maxBatch {
			n = r.maxBatch
		}
		ids, body, err := r.wire.fetchIDs(r.ctx, r.fo.all[i], n, r.callTimeout, r.body)
		r.body = body
		if err != nil {
			if r.ctx.Err() != nil {
				return
			}
			text, retryAfter := describe(err, r.callTimeout)
			r.fo.failed(i, text, retryAfter)
			continue
		}
		r.fo.succeeded(i)
		r.accept(ids)
	}
}

// sleep waits for d, a wake-up or the end of the client.
func (r *refill) sleep(t *time.Timer, d time.Duration) {
	if d <= 0 {
		return
	}
	t.Reset(d)
	select {
	case <-t.C:
		return
	case <-r.wake:
	case <-r.ctx.Done():
	}
	if !t.Stop() {
		<-t.C
	}
}

// accept appends the IDs of batch above the last one appended (compared unsigned, as the
// Java client does) and drops the others; see the type's comment for the ordering reset.
// It reuses batch's storage.
func (r *refill) accept(batch []int64) {
	k := 0
	for _, id := range batch {
		if !r.any || uint64(id) > r.last {
			batch[k] = id
			k++
			r.last = uint64(id)
			r.any = true
		}
	}
	n := len(batch)
	if k < n {
		r.dropped.Add(int64(n - k))
		now := r.now()
		switch {
		case k > 0:
			r.dropping = false
		case !r.dropping:
			r.dropping = true
			r.droppingSince = now
		case now-r.droppingSince > r.callTimeout:
			// Nothing was kept, so batch is intact: start the order over from it.
			r.resets.Add(1)
			r.dropping = false
			r.any = false
			r.dropped.Add(int64(-n))
			r.accept(batch)
			return
		}
	} else {
		r.dropping = false
	}
	r.buf.append(batch[:k:k])
}
