// Package idmint is a client of idmint servers (idmint serve) over HTTP/1.1
// with keep-alive, standard library only.
//
// NextID takes an ID from a local buffer that one background goroutine keeps filled from one
// server, sized to the rate IDs are taken; when a server fails or falls silent the client
// moves to the next endpoint. IDs are unique, and increasing in the order NextID returns them,
// in one goroutine and across goroutines (one bounded exception: see Stats.OrderingResets).
// Segment values (dense per-tag sequences) are buffered per tag; serial values are asked of a
// server on every call. The behaviour is the Java client's (docs/client.md); docs/clients.md
// describes this one.
//
//	c, err := idmint.Connect(ctx, []string{"h1:8080", "h2:8080"})
//	if err != nil { … }
//	defer c.Close()
//	id, err := c.NextID(ctx)
package idmint

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Client hands out IDs, segment values and serial values from a fleet of idmint servers.
// It is safe for use by any number of goroutines; one per process is enough. Close it to stop
// its goroutine and connections.
type Client struct {
	cfg       config
	endpoints []*endpoint
	wire      *wire
	buf       *buffer
	refill    *refill
	timedOut  func() error

	ctx    context.Context // ends at Close
	cancel context.CancelFunc

	mu       sync.Mutex
	started  atomic.Bool
	closed   bool
	segments map[string]*Segment
	serials  map[string]*Serial
}

// Stats are a client's counters.
type Stats struct {
	// BufferedIDs is the number of IDs fetched and not yet handed out.
	BufferedIDs int64
	// DroppedIDs counts IDs fetched but not handed out because they were not above the last
	// one buffered (another server, or another worker of one, a little behind).
	DroppedIDs int64
	// OrderingResets counts the times the order started over from a server whose IDs stayed
	// below the last one buffered for longer than the call timeout (a clock far behind): IDs
	// stay unique, only their order goes back, once each time.
	OrderingResets int64
	// Failovers counts the times the ID refill moved to the next endpoint after a failure.
	Failovers int64
}

// Connect makes a client of the servers at endpoints, asked in this order: "host:port"
// (https when a TLS option is given, else http), "http://host:port" or "https://host:port";
// IPv6 as "[::1]:8080". It reads the TLS files and checks every value, returning an error that
// wraps ErrInvalidArgument and names the bad one; it does not dial: the first call does.
// ctx is not kept; it only bounds Connect, which does not wait on the network.
func Connect(ctx context.Context, endpoints []string, opts ...Option) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg := defaultConfig()
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if len(endpoints) == 0 {
		return nil, invalidf("at least one endpoint is needed: %q", endpoints)
	}
	eps := make([]*endpoint, 0, len(endpoints))
	for _, s := range endpoints {
		e, err := parseEndpoint(s, cfg.tls)
		if err != nil {
			return nil, err
		}
		if cfg.token != "" && !e.https && !loopback(e.host) {
			return nil, invalidf("a token would travel in plaintext to %s: use https "+
				"(WithTLS or WithCAFile) or a loopback host", s)
		}
		eps = append(eps, e)
	}
	tlsConf, err := cfg.tlsConfig()
	if err != nil {
		return nil, err
	}
	c := &Client{
		cfg:       cfg,
		endpoints: eps,
		wire:      newWire(tlsConf, cfg.token),
		segments:  make(map[string]*Segment),
		serials:   make(map[string]*Serial),
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.buf = newBuffer(c.wakeRefill)
	c.refill = &refill{
		buf:         c.buf,
		fo:          newFailover(eps, monotonic),
		wire:        c.wire,
		demand:      demand{capacity: cfg.bufferSize, windowStart: monotonic()},
		callTimeout: cfg.callTimeout,
		maxBatch:    cfg.maxBatch,
		now:         monotonic,
		ctx:         c.ctx,
		wake:        make(chan struct{}, 1),
		done:        make(chan struct{}),
	}
	c.timedOut = func() error {
		return c.refill.fo.unavailable("no endpoint gave an ID", cfg.deadline)
	}
	return c, nil
}

// NextID returns the next ID: from the buffer at once almost always, else as soon as the
// refill brings one. It waits at most the client's deadline (then *UnavailableError, listing
// each endpoint's last failure) or until ctx ends (then ctx's error), whichever is earlier;
// ctx is only looked at when it has to wait. After Close it returns ErrClosed.
func (c *Client) NextID(ctx context.Context) (int64, error) {
	return c.buf.take(ctx, c.cfg.deadline, c.timedOut)
}

// wakeRefill starts the refill on the first call (a client used only for segments and
// serials fetches no IDs) and wakes it to look at the buffer again.
func (c *Client) wakeRefill() {
	if !c.started.Load() {
		c.mu.Lock()
		if !c.started.Load() && !c.closed {
			c.started.Store(true)
			go c.refill.run()
		}
		c.mu.Unlock()
	}
	select {
	case c.refill.wake <- struct{}{}:
	default:
	}
}

// Stats returns the client's counters now.
func (c *Client) Stats() Stats {
	return Stats{
		BufferedIDs:    c.buf.buffered(),
		DroppedIDs:     c.refill.dropped.Load(),
		OrderingResets: c.refill.resets.Load(),
		Failovers:      c.refill.fo.moves(),
	}
}

// Close stops the refill, cancels requests in flight and closes the connections. Callers
// waiting at that moment, and every later call, get ErrClosed. Close is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	started := c.started.Load()
	c.mu.Unlock()
	c.cancel()
	if started {
		<-c.refill.done
	}
	c.buf.close()
	c.wire.close()
	return nil
}

func (c *Client) isClosed() bool { return c.ctx.Err() != nil }

// call asks the endpoints in order, failing over as the ID refill does, until do succeeds on
// one or the deadline end passes. A 404 or 400 is the caller's mistake, not an endpoint's:
// returned at once as an invalid-argument error naming what and the server.
func (c *Client) call(ctx context.Context, end time.Time, fo *failover, what, none string,
	do func(ctx context.Context, ep *endpoint, timeout time.Duration) error) error {
	// Requests end when ctx does or when the client is closed.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.ctx.Done():
			cancel()
		case <-rctx.Done():
		}
	}()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if c.isClosed() {
			return ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		left := time.Until(end)
		if left <= 0 {
			return fo.unavailable(none, c.cfg.deadline)
		}
		i := fo.pick()
		if i < 0 {
			wait := fo.untilNext()
			if wait > left {
				wait = left
			}
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			select {
			case <-timer.C:
			case <-rctx.Done():
				timer.Stop()
			}
			continue
		}
		timeout := c.cfg.callTimeout
		if left < timeout {
			timeout = left
		}
		ep := fo.all[i]
		err := do(rctx, ep, timeout)
		if err == nil {
			fo.succeeded(i)
			return nil
		}
		if c.isClosed() {
			return ErrClosed
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var se *statusError
		if errors.As(err, &se) && se.status == 404 {
			return invalidf("unknown %s at %s: %s", what, ep.given, se.detail)
		}
		if errors.As(err, &se) && se.status == 400 {
			return invalidf("%s refused by %s: %s", what, ep.given, se.detail)
		}
		text, retryAfter := describe(err, timeout)
		fo.failed(i, text, retryAfter)
	}
}

// Segment returns the values of segment tag (a dense per-tag sequence, docs/segments.md),
// with a buffer of its own; one per tag, made on first use.
func (c *Client) Segment(tag string) *Segment {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.segments[tag]
	if s == nil {
		s = &Segment{c: c, tag: tag, lock: make(chan struct{}, 1),
			fo: newFailover(c.endpoints, monotonic)}
		c.segments[tag] = s
	}
	return s
}

// Segment hands out the values of one segment tag, from Client.Segment. Values increase
// within what one server hands out; across a failover they are unique but may go back, since
// each server draws its own ranges of the tag. Safe for use by any number of goroutines.
type Segment struct {
	c    *Client
	tag  string
	fo   *failover
	lock chan struct{} // held by one caller at a time; a channel, so waiting honours deadlines
	ids  []int64
	next int
}

// Tag is the tag this hands out values of.
func (s *Segment) Tag() string { return s.tag }

// Next returns the tag's next value, from the buffer or, when it is empty, from a server (a
// request for the client's segment batch). It waits at most the client's deadline, counted
// from the call (also while other goroutines fill the buffer), or until ctx ends.
// A server that does not know the tag gives an error wrapping ErrInvalidArgument naming the
// tag and the server (no failover); no answer within the deadline an *UnavailableError.
func (s *Segment) Next(ctx context.Context) (int64, error) {
	if strings.TrimSpace(s.tag) == "" {
		return 0, invalidf("segment tag must not be blank: %q", s.tag)
	}
	end := time.Now().Add(s.c.cfg.deadline)
	none := fmt.Sprintf("no ID of segment tag '%s'", s.tag)
	select {
	case s.lock <- struct{}{}:
	default:
		t := time.NewTimer(time.Until(end))
		select {
		case s.lock <- struct{}{}:
			t.Stop()
		case <-t.C:
			return 0, s.fo.unavailable(none, s.c.cfg.deadline)
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		case <-s.c.ctx.Done():
			t.Stop()
			return 0, ErrClosed
		}
	}
	defer func() { <-s.lock }()
	if s.c.isClosed() {
		return 0, ErrClosed
	}
	if s.next == len(s.ids) {
		if err := s.fill(ctx, end, none); err != nil {
			return 0, err
		}
	}
	id := s.ids[s.next]
	s.next++
	return id, nil
}

func (s *Segment) fill(ctx context.Context, end time.Time, none string) error {
	path := "/api/v1/segments/" + url.PathEscape(s.tag) + "/ids?count=" +
		strconv.Itoa(s.c.cfg.segmentBatch)
	var ids []int64
	err := s.c.call(ctx, end, s.fo, fmt.Sprintf("segment tag '%s'", s.tag), none,
		func(ctx context.Context, ep *endpoint, timeout time.Duration) error {
			var answer struct {
				IDs []json64 `json:"ids"`
			}
			if err := s.c.wire.getJSON(ctx, ep, path, timeout, &answer); err != nil {
				return err
			}
			if len(answer.IDs) == 0 {
				return errors.New("answered " + none)
			}
			ids = make([]int64, len(answer.IDs))
			for i, v := range answer.IDs {
				ids[i] = int64(v)
			}
			return nil
		})
	if err != nil {
		return err
	}
	s.ids, s.next = ids, 0
	return nil
}

// json64 reads an ID given as a decimal string (or a number).
type json64 int64

func (v *json64) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("not an ID: %s", b)
	}
	*v = json64(n)
	return nil
}

// Serial returns the values of serial name (docs/serials.md), such as INV-20261128-000042.
// Every call asks a server, with the client's failover: serial values are never buffered,
// since a buffered value could outlive its period.
func (c *Client) Serial(name string) *Serial {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.serials[name]
	if s == nil {
		s = &Serial{c: c, name: name, fo: newFailover(c.endpoints, monotonic)}
		c.serials[name] = s
	}
	return s
}

// Serial hands out the values of one serial, from Client.Serial. Safe for use by any number
// of goroutines.
type Serial struct {
	c    *Client
	name string
	fo   *failover
}

// Name is the serial this hands out values of.
func (s *Serial) Name() string { return s.name }

// Next returns the serial's next value; see NextN.
func (s *Serial) Next(ctx context.Context) (string, error) {
	v, err := s.NextN(ctx, 1)
	if err != nil {
		return "", err
	}
	return v[0], nil
}

// NextN returns the serial's next n values, in the order one server took them, in one
// request. A server that does not define the serial, or refuses n (1 to its max-count), gives
// an error wrapping ErrInvalidArgument naming it and the server; no answer within the
// client's deadline (or before ctx ends) an *UnavailableError (ctx's error).
func (s *Serial) NextN(ctx context.Context, n int) ([]string, error) {
	if strings.TrimSpace(s.name) == "" {
		return nil, invalidf("serial name must not be blank: %q", s.name)
	}
	if n < 1 {
		return nil, invalidf("count of serial values must be at least 1: %d", n)
	}
	end := time.Now().Add(s.c.cfg.deadline)
	none := fmt.Sprintf("no value of serial '%s'", s.name)
	path := "/api/v1/serials/" + url.PathEscape(s.name) + "?count=" + strconv.Itoa(n)
	var values []string
	err := s.c.call(ctx, end, s.fo, fmt.Sprintf("serial '%s'", s.name), none,
		func(ctx context.Context, ep *endpoint, timeout time.Duration) error {
			var answer struct {
				Values []string `json:"values"`
			}
			if err := s.c.wire.getJSON(ctx, ep, path, timeout, &answer); err != nil {
				return err
			}
			if len(answer.Values) == 0 {
				return errors.New("answered " + none)
			}
			values = answer.Values
			return nil
		})
	if err != nil {
		return nil, err
	}
	return values, nil
}
