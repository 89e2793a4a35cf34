// Command driver lets the shared Java test drive the Go client: JSON-lines commands on stdin,
// one JSON reply per command on stdout, in command order, with events ("event" key) in
// between; logs on stderr. See the "driver" section of docs/clients.md.
//
//	cd clients/go && go build -o /tmp/idmint-go-driver ./internal/driver
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	idmint "idmint.io/client-go"
)

type command struct {
	Op            string   `json:"op"`
	Endpoints     []string `json:"endpoints"`
	BufferSize    *int     `json:"bufferSize"`
	DeadlineMs    *int64   `json:"deadlineMs"`
	CallTimeoutMs *int64   `json:"callTimeoutMs"`
	SegmentBatch  *int     `json:"segmentBatch"`
	MaxBatch      *int     `json:"maxBatch"`
	CAFile        *string  `json:"caFile"`
	CertFile      *string  `json:"certFile"`
	KeyFile       *string  `json:"keyFile"`
	Token         *string  `json:"token"`

	Count  *int            `json:"count"`
	Tag    string          `json:"tag"`
	Name   string          `json:"name"`
	ID     json.RawMessage `json:"id"`
	Layout string          `json:"layout"`

	Callers   int    `json:"callers"`
	PerCaller int    `json:"perCaller"`
	Gates     []int  `json:"gates"`
	Out       string `json:"out"`
	Gate      *int   `json:"gate"`
}

type object = map[string]any

// out writes one JSON object per line; replies and events come from several goroutines.
type out struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (o *out) send(v object) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(object{"ok": false, "error": "other", "message": err.Error()})
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.w.Write(b)
	o.w.WriteByte('\n')
	o.w.Flush()
}

type driver struct {
	out    *out
	client *idmint.Client
	draw   *draw
}

var (
	errBadInput  = errors.New("bad input")
	errNoClient  = fmt.Errorf("no client: send connect first: %w", idmint.ErrClosed)
	errConnected = errors.New("already connected: close first")
)

func main() {
	log.SetFlags(log.Lmicroseconds)
	log.SetPrefix("idmint-go-driver ")
	d := &driver{out: &out{w: bufio.NewWriterSize(os.Stdout, 1<<16)}}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			d.handle(line)
		}
		if err != nil {
			if err != io.EOF {
				log.Printf("reading stdin: %v", err)
			}
			break
		}
	}
	d.shutdown()
}

// shutdown at EOF: lets a draw's callers past their gates, closes the client, waits for the
// draw to report.
func (d *driver) shutdown() {
	if d.draw != nil {
		d.draw.openAll()
	}
	if d.client != nil {
		d.client.Close()
	}
	if d.draw != nil {
		<-d.draw.done
	}
}

func (d *driver) handle(line []byte) {
	var c command
	if err := json.Unmarshal(line, &c); err != nil {
		d.out.send(errorReply(fmt.Errorf("%w: not a JSON command: %v", errBadInput, err)))
		return
	}
	reply, err := d.run(&c)
	if err != nil {
		d.out.send(errorReply(err))
		return
	}
	if reply == nil {
		reply = object{}
	}
	reply["ok"] = true
	d.out.send(reply)
}

func (d *driver) run(c *command) (object, error) {
	switch c.Op {
	case "connect":
		return nil, d.connect(c)
	case "next":
		cl, n, err := d.clientAndCount(c)
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, n)
		for i := 0; i < n; i++ {
			id, err := cl.NextID(context.Background())
			if err != nil {
				return nil, err
			}
			ids = append(ids, strconv.FormatInt(id, 10))
		}
		return object{"ids": ids}, nil
	case "segment":
		cl, n, err := d.clientAndCount(c)
		if err != nil {
			return nil, err
		}
		seg := cl.Segment(c.Tag)
		values := make([]string, 0, n)
		for i := 0; i < n; i++ {
			v, err := seg.Next(context.Background())
			if err != nil {
				return nil, err
			}
			values = append(values, strconv.FormatInt(v, 10))
		}
		return object{"values": values}, nil
	case "serial":
		cl, n, err := d.clientAndCount(c)
		if err != nil {
			return nil, err
		}
		values, err := cl.Serial(c.Name).NextN(context.Background(), n)
		if err != nil {
			return nil, err
		}
		return object{"values": values}, nil
	case "decode":
		return decode(c)
	case "stats":
		if d.client == nil {
			return nil, errNoClient
		}
		return statsObject(d.client.Stats()), nil
	case "draw":
		if d.client == nil {
			return nil, errNoClient
		}
		if d.draw != nil {
			select {
			case <-d.draw.done:
			default:
				return nil, fmt.Errorf("%w: a draw is running", errBadInput)
			}
		}
		if c.Callers < 1 || c.PerCaller < 0 || c.Out == "" {
			return nil, fmt.Errorf("%w: draw needs callers >= 1, perCaller >= 0 and out",
				errBadInput)
		}
		d.draw = newDraw(d.client, d.out, c.Callers, c.PerCaller, c.Gates, c.Out)
		go d.draw.run()
		return nil, nil
	case "open":
		if d.draw == nil || c.Gate == nil || *c.Gate < 0 || *c.Gate >= len(d.draw.gates) {
			return nil, fmt.Errorf("%w: open needs a gate of the running draw", errBadInput)
		}
		d.draw.open(*c.Gate)
		return nil, nil
	case "close":
		if d.client != nil {
			err := d.client.Close()
			d.client = nil
			return nil, err
		}
		return nil, nil
	}
	return nil, fmt.Errorf("%w: unknown op %q", errBadInput, c.Op)
}

func (d *driver) clientAndCount(c *command) (*idmint.Client, int, error) {
	if d.client == nil {
		return nil, 0, errNoClient
	}
	n := 1
	if c.Count != nil {
		n = *c.Count
	}
	if n < 0 {
		return nil, 0, fmt.Errorf("%w: count %d", errBadInput, n)
	}
	return d.client, n, nil
}

func (d *driver) connect(c *command) error {
	if d.client != nil {
		return fmt.Errorf("%w: %v", errBadInput, errConnected)
	}
	var opts []idmint.Option
	if c.BufferSize != nil {
		opts = append(opts, idmint.WithBufferSize(*c.BufferSize))
	}
	if c.DeadlineMs != nil {
		opts = append(opts, idmint.WithDeadline(time.Duration(*c.DeadlineMs)*time.Millisecond))
	}
	if c.CallTimeoutMs != nil {
		opts = append(opts,
			idmint.WithCallTimeout(time.Duration(*c.CallTimeoutMs)*time.Millisecond))
	}
	if c.SegmentBatch != nil {
		opts = append(opts, idmint.WithSegmentBatch(*c.SegmentBatch))
	}
	if c.MaxBatch != nil {
		opts = append(opts, idmint.WithMaxBatch(*c.MaxBatch))
	}
	if c.CAFile != nil {
		opts = append(opts, idmint.WithCAFile(*c.CAFile))
	}
	if c.CertFile != nil || c.KeyFile != nil {
		opts = append(opts, idmint.WithClientCertificate(deref(c.CertFile), deref(c.KeyFile)))
	}
	if c.Token != nil {
		opts = append(opts, idmint.WithToken(*c.Token))
	}
	cl, err := idmint.Connect(context.Background(), c.Endpoints, opts...)
	if err != nil {
		return err
	}
	d.client = cl
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func decode(c *command) (object, error) {
	text := strings.Trim(strings.TrimSpace(string(c.ID)), `"`)
	var id int64
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		id = n
	} else if u, err := strconv.ParseUint(text, 10, 64); err == nil {
		id = int64(u) // an ID of an unsigned (64-bit) layout
	} else {
		return nil, fmt.Errorf("%w: id %q is not a decimal ID", idmint.ErrInvalidArgument, text)
	}
	layout, err := idmint.ParseLayout(c.Layout)
	if err != nil {
		return nil, err
	}
	p, err := layout.Decode(id)
	if err != nil {
		return nil, err
	}
	return object{"timestampMs": p.TimestampMs, "datacenter": p.Datacenter,
		"worker": p.Worker, "shard": p.Shard, "sequence": p.Sequence}, nil
}

func statsObject(s idmint.Stats) object {
	return object{"bufferedIds": s.BufferedIDs, "droppedIds": s.DroppedIDs,
		"orderingResets": s.OrderingResets, "failovers": s.Failovers}
}

// kind is the driver's name for an error.
func kind(err error) string {
	var ue *idmint.UnavailableError
	switch {
	case errors.As(err, &ue):
		return "unavailable"
	case errors.Is(err, idmint.ErrInvalidArgument), errors.Is(err, errBadInput):
		return "invalid-argument"
	case errors.Is(err, idmint.ErrClosed):
		return "closed"
	}
	return "other"
}

func errorReply(err error) object {
	r := object{"ok": false, "error": kind(err), "message": err.Error()}
	var ue *idmint.UnavailableError
	if errors.As(err, &ue) {
		r["failures"] = ue.Failures
	}
	return r
}

// draw runs callers that each call NextID perCaller times, waiting at the gates.
type draw struct {
	client    *idmint.Client
	out       *out
	callers   int
	perCaller int
	gates     []int
	dir       string

	opened  []chan struct{}
	once    []sync.Once
	arrived []atomic.Int32
	done    chan struct{}
}

func newDraw(cl *idmint.Client, o *out, callers, perCaller int, gates []int, dir string) *draw {
	d := &draw{client: cl, out: o, callers: callers, perCaller: perCaller, gates: gates,
		dir: dir, opened: make([]chan struct{}, len(gates)), once: make([]sync.Once, len(gates)),
		arrived: make([]atomic.Int32, len(gates)), done: make(chan struct{})}
	for i := range d.opened {
		d.opened[i] = make(chan struct{})
	}
	return d
}

func (d *draw) open(i int) {
	d.once[i].Do(func() { close(d.opened[i]) })
}

func (d *draw) openAll() {
	for i := range d.gates {
		d.open(i)
	}
}

// arrive counts a caller at gate i (waiting there, or stopped before it); the last one to
// arrive announces the gate.
func (d *draw) arrive(i int) {
	if int(d.arrived[i].Add(1)) == d.callers {
		d.out.send(object{"event": "gate", "gate": i})
	}
}

func (d *draw) run() {
	defer close(d.done)
	ids := make([][]int64, d.callers)
	errs := make([]string, d.callers)
	var wg sync.WaitGroup
	for k := 0; k < d.callers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			ids[k], errs[k] = d.caller()
		}(k)
	}
	wg.Wait()
	counts := make([]int, d.callers)
	texts := []string{}
	for k := range ids {
		counts[k] = len(ids[k])
		if errs[k] != "" {
			texts = append(texts, errs[k])
		}
		if err := writeIDs(filepath.Join(d.dir, fmt.Sprintf("caller-%d.bin", k)), ids[k]); err != nil {
			texts = append(texts, "other: "+err.Error())
		}
	}
	d.out.send(object{"event": "drawn", "counts": counts, "errors": texts,
		"stats": statsObject(d.client.Stats())})
}

// caller takes perCaller IDs into a preallocated slice, stopping at the gates and at its
// first error; it returns the IDs taken and the error's text ("" for none).
func (d *draw) caller() ([]int64, string) {
	ids := make([]int64, d.perCaller)
	ctx := context.Background()
	k, gate := 0, 0
	text := ""
	for {
		for gate < len(d.gates) && d.gates[gate] <= k {
			d.arrive(gate)
			<-d.opened[gate]
			gate++
		}
		if k == d.perCaller {
			break
		}
		id, err := d.client.NextID(ctx)
		if err != nil {
			text = kind(err) + ": " + err.Error()
			break
		}
		ids[k] = id
		k++
	}
	// A caller that stopped early is not waited for at the gates it never reached.
	for ; gate < len(d.gates); gate++ {
		d.arrive(gate)
	}
	return ids[:k], text
}

func writeIDs(path string, ids []int64) error {
	b := make([]byte, 8*len(ids))
	for i, id := range ids {
		binary.BigEndian.PutUint64(b[8*i:], uint64(id))
	}
	return os.WriteFile(path, b, 0o644)
}
