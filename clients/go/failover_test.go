package idmint

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeClock struct{ t time.Duration }

func (c *fakeClock) now() time.Duration { return c.t }

func testEndpoints(t *testing.T, given ...string) []*endpoint {
	t.Helper()
	var out []*endpoint
	for _, g := range given {
		e, err := parseEndpoint(g, false)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func TestBackoffDoublesFrom250msTo8s(t *testing.T) {
	want := []time.Duration{250, 250, 500, 1000, 2000, 4000, 8000, 8000, 8000}
	for n, w := range want {
		if got := backoff(n); got != w*time.Millisecond {
			t.Errorf("backoff(%d) = %v, want %v ms", n, got, w)
		}
	}
	if backoff(1000) != maxBackoff {
		t.Error("no cap")
	}
}

func TestFailoverHonoursRetryAfterAndBackoff(t *testing.T) {
	clock := &fakeClock{}
	f := newFailover(testEndpoints(t, "a:1", "b:1", "c:1", "d:1"), clock.now)
	if f.pick() != 0 {
		t.Fatal("starts on the first")
	}
	f.failed(0, "503: not ready: no lease", 2*time.Second)
	if f.pick() != 1 {
		t.Fatal("fails over to the next")
	}
	f.failed(1, "connection refused", 0)
	f.failed(2, "timeout: no answer within 1000 ms", 0) // not current: no failover counted
	if i := f.pick(); i != 3 {
		t.Fatalf("picked %d", i)
	}
	f.failed(3, "503: lease lost", 0)
	if f.pick() != -1 {
		t.Fatal("every endpoint waits")
	}
	if d := f.untilNext(); d != 250*time.Millisecond {
		t.Fatalf("until next %v", d)
	}
	clock.t = 250 * time.Millisecond
	if i := f.pick(); i != 1 {
		t.Fatalf("b's backoff is over, a waits out its Retry-After: picked %d", i)
	}
	f.failed(1, "connection refused", 0) // second in a row: 500 ms
	clock.t = 700 * time.Millisecond
	if i := f.pick(); i != 2 {
		t.Fatalf("picked %d", i)
	}
	clock.t = 751 * time.Millisecond
	if i := f.pick(); i != 2 {
		t.Fatalf("stays on the current one: picked %d", i)
	}
	f.succeeded(2)
	f.failed(2, "connection reset", 0) // one answer cleared its backoff: 250 ms again
	clock.t = 1000 * time.Millisecond
	if i := f.pick(); i != 3 {
		t.Fatalf("picked %d", i)
	}
	f.failed(3, "503: lease lost", 0)
	clock.t = 1999 * time.Millisecond
	if i := f.pick(); i != 1 {
		t.Fatalf("picked %d", i)
	}
	f.failed(1, "connection refused", 0) // third in a row: 1 s
	if i := f.pick(); i != 2 {
		t.Fatalf("c's backoff is over: picked %d", i)
	}
	f.failed(2, "connection reset", 0) // second in a row: 500 ms
	f.failed(3, "503: lease lost", 0)
	if i := f.pick(); i != -1 {
		t.Fatalf("picked %d", i)
	}
	clock.t = 2 * time.Second
	if i := f.pick(); i != 0 {
		t.Fatalf("a's Retry-After is over: picked %d", i)
	}
	if f.moves() != 10 {
		t.Errorf("failovers %d", f.moves())
	}
	e := f.unavailable("no endpoint gave an ID", 5*time.Second)
	want := map[string]string{
		"a:1": "503: not ready: no lease (retry after 2 s)",
		"b:1": "connection refused",
		"c:1": "connection reset",
		"d:1": "503: lease lost",
	}
	for k, v := range want {
		if e.Failures[k] != v {
			t.Errorf("%s: %q, want %q", k, e.Failures[k], v)
		}
	}
	if !strings.Contains(e.Error(), "no endpoint gave an ID within 5000 ms; last failure of "+
		"each endpoint: a:1: 503: not ready: no lease (retry after 2 s), b:1: connection refused") {
		t.Error(e.Error())
	}
	fresh := newFailover(testEndpoints(t, "a:1"), clock.now)
	if fresh.unavailable("x", time.Second).Failures["a:1"] != "none" {
		t.Error("an endpoint that has not failed is 'none'")
	}
}

func newTestRefill(clock *fakeClock, callTimeout time.Duration) *refill {
	return &refill{buf: newBuffer(func() {}), callTimeout: callTimeout, now: clock.now}
}

func drain(t *testing.T, b *buffer) []int64 {
	t.Helper()
	var out []int64
	for b.buffered() > 0 {
		id, err := b.take(context.Background(), time.Millisecond, func() error {
			return errors.New("timeout")
		})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

func TestRefillDropsLowerIDsAndResetsTheOrderOnce(t *testing.T) {
	clock := &fakeClock{}
	r := newTestRefill(clock, time.Second)
	r.accept([]int64{5, 6, 7})
	r.accept([]int64{6, 7, 8, 9}) // another server a little behind: 6 and 7 dropped
	if got := drain(t, r.buf); len(got) != 5 || got[0] != 5 || got[4] != 9 {
		t.Fatalf("got %v", got)
	}
	if r.dropped.Load() != 2 {
		t.Fatalf("dropped %d", r.dropped.Load())
	}
	// A server far behind: everything dropped, until it has been so for > callTimeout.
	r.accept([]int64{1, 2})
	clock.t = 600 * time.Millisecond
	r.accept([]int64{3})
	clock.t = 1000 * time.Millisecond
	r.accept([]int64{4})
	if r.buf.buffered() != 0 || r.resets.Load() != 0 || r.dropped.Load() != 6 {
		t.Fatalf("buffered %d resets %d dropped %d", r.buf.buffered(), r.resets.Load(),
			r.dropped.Load())
	}
	clock.t = 1001 * time.Millisecond
	r.accept([]int64{10, 11}) // above the last one: kept, the streak ends
	r.accept([]int64{0})
	clock.t = 2001 * time.Millisecond
	r.accept([]int64{1})
	if r.resets.Load() != 0 {
		t.Fatal("a streak starts over after a kept ID")
	}
	clock.t = 2002 * time.Millisecond
	r.accept([]int64{2, 3})
	if r.resets.Load() != 1 || r.dropped.Load() != 8 {
		t.Fatalf("resets %d dropped %d", r.resets.Load(), r.dropped.Load())
	}
	r.accept([]int64{3, 4})
	if got := drain(t, r.buf); len(got) != 5 || got[0] != 10 || got[1] != 11 || got[2] != 2 ||
		got[3] != 3 || got[4] != 4 {
		t.Fatalf("got %v", got)
	}
}

func TestDemandTargetsAbout100msOfTheRate(t *testing.T) {
	d := demand{capacity: 65536}
	if d.target() != 1000 {
		t.Fatalf("idle target %d", d.target())
	}
	d.observe(100, 5*time.Millisecond) // shorter than a window: not counted
	if d.rate != 0 {
		t.Fatal("window too short")
	}
	d.observe(100_000, 10*time.Millisecond) // 10 M/s: 1 M wanted, capped
	if d.target() != 65536 {
		t.Fatalf("target %d", d.target())
	}
	d.observe(100_000+2_000, 20*time.Millisecond) // down gently: 0.7 × 10 M + 0.3 × 200 k
	if d.target() != 65536 || int(d.rate) != 7_060_000 {
		t.Fatalf("rate %f", d.rate)
	}
	small := demand{capacity: 1000}
	small.observe(1e9, time.Second)
	if small.target() != 1000 {
		t.Fatal(small.target())
	}
	mid := demand{capacity: 1 << 20}
	mid.observe(50_000, time.Second) // 50 k/s: 5000 buffered
	if mid.target() != 5000 {
		t.Fatal(mid.target())
	}
}

func TestBufferHandsOutEachIDOnceInOrder(t *testing.T) {
	b := newBuffer(func() {})
	const takers, per = 4, 20000
	var wg sync.WaitGroup
	got := make([][]int64, takers)
	for k := 0; k < takers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				id, err := b.take(context.Background(), 5*time.Second, func() error {
					return errors.New("timeout")
				})
				if err != nil {
					t.Error(err)
					return
				}
				got[k] = append(got[k], id)
			}
		}(k)
	}
	next := int64(1)
	for next <= takers*per {
		n := int64(1 + next%700)
		if next+n > takers*per+1 {
			n = takers*per + 1 - next
		}
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = next + int64(i)
		}
		next += n
		b.append(ids)
	}
	wg.Wait()
	seen := make(map[int64]bool)
	for _, ids := range got {
		for i, id := range ids {
			if seen[id] || (i > 0 && id <= ids[i-1]) {
				t.Fatalf("%d twice or out of order", id)
			}
			seen[id] = true
		}
	}
	if len(seen) != takers*per || b.buffered() != 0 || b.takenTotal() != takers*per {
		t.Fatalf("%d seen, %d buffered, %d taken", len(seen), b.buffered(), b.takenTotal())
	}
}

func TestBufferWaitsThenTimesOutOrCloses(t *testing.T) {
	b := newBuffer(func() {})
	timeout := errors.New("timeout")
	start := time.Now()
	if _, err := b.take(context.Background(), 50*time.Millisecond,
		func() error { return timeout }); err != timeout {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 50*time.Millisecond || el > time.Second {
		t.Fatalf("waited %v", el)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := b.take(ctx, time.Minute, func() error { return timeout }); err !=
		context.DeadlineExceeded {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := b.take(context.Background(), time.Minute, func() error { return timeout })
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	b.append([]int64{7})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	go func() {
		_, err := b.take(context.Background(), time.Minute, func() error { return timeout })
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	b.close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatal(err)
	}
}
