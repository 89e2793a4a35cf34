package idmint

import (
	"fmt"
	"sync"
	"time"
)

// Backoff of a failed endpoint that gave no Retry-After: 250 ms, doubling with each failure
// in a row, up to 8 s.
const (
	firstBackoff = 250 * time.Millisecond
	maxBackoff   = 8 * time.Second
)

var clockStart = time.Now()

// monotonic is the time since the package started, on the monotonic clock.
func monotonic() time.Duration { return time.Since(clockStart) }

// health is one endpoint's failures as one user of the endpoints saw them.
type health struct {
	failures   int           // since its last success; the backoff doubles with each
	avoidUntil time.Duration // not to be asked before this (monotonic)
	last       string        // its last failure, "none" before one
}

// failover picks which endpoint to ask now, for one user of them (the ID refill, one
// segment tag, one serial call), as the Java client's Endpoints: it stays on one endpoint
// while it answers and moves to the next in order when it fails. A failed endpoint is not
// asked again before its Retry-After (whole seconds) or, without one, its backoff; one
// success clears the backoff.
type failover struct {
	mu        sync.Mutex
	all       []*endpoint
	health    []health
	now       func() time.Duration
	current   int
	failovers int64
}

func newFailover(all []*endpoint, now func() time.Duration) *failover {
	f := &failover{all: all, health: make([]health, len(all)), now: now}
	t := now()
	for i := range f.health {
		f.health[i] = health{avoidUntil: t, last: "none"}
	}
	return f
}

// pick is the index of the endpoint to ask now: the current one unless it is being avoided,
// else the next in order that is not; -1 when every endpoint is being avoided.
func (f *failover) pick() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	for k := range f.all {
		i := (f.current + k) % len(f.all)
		if now >= f.health[i].avoidUntil {
			f.current = i
			return i
		}
	}
	return -1
}

// untilNext is the time until some endpoint may be asked again (0 when one may be now).
func (f *failover) untilNext() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	least := time.Duration(1<<63 - 1)
	for _, h := range f.health {
		wait := h.avoidUntil - now
		if wait < 0 {
			wait = 0
		}
		if wait < least {
			least = wait
		}
	}
	return least
}

// succeeded records an answer from endpoint i: its backoff starts over.
func (f *failover) succeeded(i int) {
	f.mu.Lock()
	f.health[i].failures = 0
	f.mu.Unlock()
}

// failed records a failure of endpoint i, described by text: it is avoided for retryAfter
// when positive (a server's Retry-After), else for its backoff, and the next endpoint
// becomes the current one.
func (f *failover) failed(i int, text string, retryAfter time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := &f.health[i]
	h.failures++
	wait := retryAfter
	if wait <= 0 {
		wait = backoff(h.failures)
	}
	h.avoidUntil = f.now() + wait
	h.last = text
	if retryAfter > 0 {
		h.last = fmt.Sprintf("%s (retry after %d s)", text, retryAfter/time.Second)
	}
	if f.current == i && len(f.all) > 1 {
		f.current = (i + 1) % len(f.all)
		f.failovers++
	}
}

// backoff is the wait after failuresInRow failures in a row (1 or more): 250 ms, doubling
// with each further failure, up to 8 s.
func backoff(failuresInRow int) time.Duration {
	if failuresInRow < 1 {
		failuresInRow = 1
	}
	if failuresInRow > 7 {
		failuresInRow = 7
	}
	d := firstBackoff << (failuresInRow - 1)
	if d > maxBackoff {
		d = maxBackoff
	}
	return d
}

// moves is how many times a failure moved this user to the next endpoint.
func (f *failover) moves() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failovers
}

// unavailable is the error for a caller that did not get what within deadline.
func (f *failover) unavailable(what string, deadline time.Duration) *UnavailableError {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := &UnavailableError{What: what, Deadline: deadline, Failures: make(map[string]string),
		Endpoints: make([]string, len(f.all))}
	for i, ep := range f.all {
		e.Endpoints[i] = ep.given
		e.Failures[ep.given] = f.health[i].last
	}
	return e
}
