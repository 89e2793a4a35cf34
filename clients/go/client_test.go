package idmint

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// server is a scripted idmint server on 127.0.0.1: handle answers each request, given the
// request's number (from 1) for its path.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	hits  map[string]int
	times []time.Time // of the /v1/ids requests
	auth  []string
}

func newServer(t testing.TB, handle func(w http.ResponseWriter, r *http.Request, n int)) *server {
	s := &server{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		n := s.hits[r.URL.Path]
		if r.URL.Path == "/v1/ids" {
			s.times = append(s.times, time.Now())
		}
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		handle(w, r, n)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) addr() string { return strings.TrimPrefix(s.URL, "http://") }

func (s *server) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// ids answers count IDs from *next on.
func ids(w http.ResponseWriter, r *http.Request, next *atomic.Int64) {
	if r.Header.Get("Accept") != id64 {
		problem(w, 406, 0, "id64 only in this test")
		return
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("count"))
	start := next.Add(int64(n)) - int64(n)
	b := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		binary.BigEndian.PutUint64(b[8*i:], uint64(start+int64(i)))
	}
	w.Header().Set("Content-Type", id64)
	w.Write(b)
}

func problem(w http.ResponseWriter, status, retryAfter int, detail string) {
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "urn:idmint:problem:x",
		"title": http.StatusText(status), "status": status, "detail": detail})
}

func counter(from int64) *atomic.Int64 {
	var c atomic.Int64
	c.Store(from)
	return &c
}

// refusedAddr is an address where nothing listens.
func refusedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// silentAddr accepts connections and never answers; closed reports each connection the
// client closed.
func silentAddr(t *testing.T) (addr string, closed chan struct{}) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	closed = make(chan struct{}, 100)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				buf := make([]byte, 4096)
				for {
					if _, err := conn.Read(buf); err != nil {
						conn.Close()
						closed <- struct{}{}
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String(), closed
}

func connect(t *testing.T, endpoints []string, opts ...Option) *Client {
	t.Helper()
	c, err := Connect(context.Background(), endpoints, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestNextIDFromTheBuffer(t *testing.T) {
	t.Parallel()
	next := counter(100)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { ids(w, r, next) })
	c := connect(t, []string{s.URL}, WithMaxBatch(500))
	ctx := context.Background()
	for want := int64(100); want < 3100; want++ {
		id, err := c.NextID(ctx)
		if err != nil || id != want {
			t.Fatalf("%d %v, want %d", id, err, want)
		}
	}
	if s.count("/v1/ids") < 6 {
		t.Errorf("%d requests of at most 500", s.count("/v1/ids"))
	}
	st := c.Stats()
	if st.DroppedIDs != 0 || st.Failovers != 0 || st.OrderingResets != 0 {
		t.Errorf("%+v", st)
	}
}

func TestConcurrentCallersGetUniqueIncreasingIDs(t *testing.T) {
	t.Parallel()
	next := counter(1)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { ids(w, r, next) })
	c := connect(t, []string{s.URL})
	const callers, per = 4, 50000
	got := make([][]int64, callers)
	var wg sync.WaitGroup
	for k := 0; k < callers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			got[k] = make([]int64, per)
			for i := range got[k] {
				id, err := c.NextID(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				got[k][i] = id
			}
		}(k)
	}
	wg.Wait()
	seen := make(map[int64]bool, callers*per)
	for _, ids := range got {
		for i, id := range ids {
			if seen[id] || i > 0 && id <= ids[i-1] {
				t.Fatalf("%d repeated or out of order", id)
			}
			seen[id] = true
		}
	}
}

func TestFailoverOn503HonoursRetryAfter(t *testing.T) {
	t.Parallel()
	next := counter(1_000_000)
	a := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			problem(w, 503, 1, "not ready: no lease")
			return
		}
		ids(w, r, next)
	})
	b := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		problem(w, 503, 0, "lease lost")
	})
	c := connect(t, []string{a.addr(), b.addr()}, WithDeadline(3*time.Second))
	start := time.Now()
	id, err := c.NextID(context.Background())
	if err != nil || id != 1_000_000 {
		t.Fatalf("%d %v", id, err)
	}
	a.mu.Lock()
	gap := a.times[1].Sub(a.times[0])
	a.mu.Unlock()
	if gap < time.Second || time.Since(start) > 2*time.Second {
		t.Errorf("asked again after %v, Retry-After: 1", gap)
	}
	// b, without Retry-After: at 0, 250 and 750 ms (backoff 250, 500, 1000 ms).
	if n := b.count("/v1/ids"); n < 2 || n > 4 {
		t.Errorf("b asked %d times", n)
	}
	if st := c.Stats(); st.Failovers < 2 {
		t.Errorf("%+v", st)
	}
}

func TestFailoverOnRefusedConnection(t *testing.T) {
	t.Parallel()
	next := counter(7)
	b := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { ids(w, r, next) })
	c := connect(t, []string{refusedAddr(t), b.URL})
	start := time.Now()
	if id, err := c.NextID(context.Background()); err != nil || id != 7 {
		t.Fatalf("%d %v", id, err)
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Errorf("took %v", el)
	}
	if st := c.Stats(); st.Failovers != 1 {
		t.Errorf("%+v", st)
	}
}

func TestFailoverOnSilenceWithinCallTimeout(t *testing.T) {
	t.Parallel()
	silent, closed := silentAddr(t)
	next := counter(42)
	b := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { ids(w, r, next) })
	c := connect(t, []string{silent, b.addr()}, WithCallTimeout(200*time.Millisecond))
	start := time.Now()
	if id, err := c.NextID(context.Background()); err != nil || id != 42 {
		t.Fatalf("%d %v", id, err)
	}
	if el := time.Since(start); el < 200*time.Millisecond || el > 900*time.Millisecond {
		t.Errorf("failed over after %v", el)
	}
	select {
	case <-closed: // the silent connection is given up, not kept for reuse
	case <-time.After(time.Second):
		t.Error("the silent server's connection stayed open")
	}
}

func TestDeadlineErrorListsEveryEndpointsFailure(t *testing.T) {
	t.Parallel()
	a := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		problem(w, 503, 2, "not ready: no lease")
	})
	silent, _ := silentAddr(t)
	refused := refusedAddr(t)
	c := connect(t, []string{a.addr(), silent, refused},
		WithDeadline(700*time.Millisecond), WithCallTimeout(200*time.Millisecond))
	start := time.Now()
	_, err := c.NextID(context.Background())
	el := time.Since(start)
	var ue *UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("%T %v", err, err)
	}
	if el < 700*time.Millisecond || el > 1500*time.Millisecond {
		t.Errorf("gave up after %v", el)
	}
	want := map[string]string{
		a.addr(): "503: not ready: no lease (retry after 2 s)",
		silent:   "timeout: no answer within 200 ms",
		refused:  "connection refused",
	}
	for ep, f := range want {
		if ue.Failures[ep] != f {
			t.Errorf("%s: %q, want %q", ep, ue.Failures[ep], f)
		}
		if !strings.Contains(err.Error(), ep+": "+f) {
			t.Errorf("%q lacks %s", err, ep)
		}
	}
	if !strings.HasPrefix(err.Error(), "idmint: no endpoint gave an ID within 700 ms") {
		t.Error(err)
	}
}

func TestTokenIsSentAsBearer(t *testing.T) {
	t.Parallel()
	next := counter(1)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			problem(w, 401, 0, "missing or wrong token")
			return
		}
		switch {
		case r.URL.Path == "/v1/ids":
			ids(w, r, next)
		case strings.HasPrefix(r.URL.Path, "/api/v1/segments/"):
			fmt.Fprint(w, `{"tag":"order","ids":["1","2"]}`)
		default:
			fmt.Fprint(w, `{"serial":"invoice","values":["INV-1"]}`)
		}
	})
	c := connect(t, []string{s.URL}, WithToken("s3cret"))
	ctx := context.Background()
	if _, err := c.NextID(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Segment("order").Next(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Serial("invoice").Next(ctx); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.auth {
		if a != "Bearer s3cret" {
			t.Errorf("Authorization %q", a)
		}
	}
}

func TestUnknownTagOrSerialIsInvalidArgumentNamingTagAndServer(t *testing.T) {
	t.Parallel()
	a := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		problem(w, 404, 0, "does not exist")
	})
	b := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		t.Error("no failover on 404")
	})
	c := connect(t, []string{a.addr(), b.addr()})
	_, err := c.Segment("no/pe").Next(context.Background())
	wantInvalid(t, err, "unknown segment tag 'no/pe' at "+a.addr()+": does not exist")
	if a.count("/api/v1/segments/no/pe/ids") != 1 {
		t.Errorf("the tag is path-escaped: %v", a.hits)
	}
	_, err = c.Serial("invoice").NextN(context.Background(), 3)
	wantInvalid(t, err, "unknown serial 'invoice' at "+a.addr())
	_, err = c.Serial("invoice").NextN(context.Background(), 0)
	wantInvalid(t, err, "count of serial values must be at least 1: 0")
	_, err = c.Segment(" ").Next(context.Background())
	wantInvalid(t, err, "segment tag must not be blank")
}

func TestIDsIncreaseAcrossFailoverToALowerServer(t *testing.T) {
	t.Parallel()
	high := counter(1_000_000)
	a := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n > 2 {
			problem(w, 503, 5, "lease lost")
			return
		}
		ids(w, r, high)
	})
	low := counter(998_500) // a little behind: its first IDs are dropped
	b := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { ids(w, r, low) })
	c := connect(t, []string{a.addr(), b.addr()}, WithMaxBatch(1000))
	last := int64(0)
	for i := 0; i < 6000; i++ {
		id, err := c.NextID(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if id <= last {
			t.Fatalf("%d after %d", id, last)
		}
		last = id
	}
	st := c.Stats()
	if st.DroppedIDs < 3500 || st.OrderingResets != 0 || st.Failovers != 1 {
		t.Errorf("%+v", st)
	}
}

func TestOrderStartsOverFromAServerFarBehind(t *testing.T) {
	t.Parallel()
	high := counter(1 << 40)
	a := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n > 1 {
			problem(w, 503, 5, "lease lost")
			return
		}
		ids(w, r, high)
	})
	low := counter(1)
	b := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		time.Sleep(5 * time.Millisecond)
		ids(w, r, low)
	})
	c := connect(t, []string{a.addr(), b.addr()}, WithMaxBatch(1000),
		WithCallTimeout(150*time.Millisecond))
	var got []int64
	for i := 0; i < 3000; i++ {
		id, err := c.NextID(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, id)
	}
	if got[999] != 1<<40+999 || got[1000] >= 1<<40 {
		t.Fatalf("%d then %d", got[999], got[1000])
	}
	for i := 1001; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("%d after %d", got[i], got[i-1])
		}
	}
	if st := c.Stats(); st.OrderingResets != 1 || st.DroppedIDs == 0 {
		t.Errorf("%+v", st)
	}
}

func TestSegmentsAreBufferedAndSerialsAreNot(t *testing.T) {
	t.Parallel()
	var seg atomic.Int64
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		count, _ := strconv.Atoi(r.URL.Query().Get("count"))
		var vals []string
		if strings.HasPrefix(r.URL.Path, "/api/v1/segments/") {
			for i := 0; i < count; i++ {
				vals = append(vals, strconv.FormatInt(seg.Add(1), 10))
			}
			json.NewEncoder(w).Encode(map[string]any{"tag": "order", "ids": vals})
			return
		}
		for i := 0; i < count; i++ {
			vals = append(vals, fmt.Sprintf("INV-%d-%d", n, i))
		}
		json.NewEncoder(w).Encode(map[string]any{"serial": "invoice", "values": vals})
	})
	c := connect(t, []string{s.URL}, WithSegmentBatch(100))
	ctx := context.Background()
	for want := int64(1); want <= 250; want++ {
		if v, err := c.Segment("order").Next(ctx); err != nil || v != want {
			t.Fatalf("%d %v", v, err)
		}
	}
	if n := s.count("/api/v1/segments/order/ids"); n != 3 {
		t.Errorf("%d segment requests for 250 values by 100", n)
	}
	for i := 1; i <= 2; i++ {
		v, err := c.Serial("invoice").Next(ctx)
		if err != nil || v != fmt.Sprintf("INV-%d-0", i) {
			t.Fatal(v, err)
		}
	}
	vs, err := c.Serial("invoice").NextN(ctx, 3)
	if err != nil || len(vs) != 3 || vs[2] != "INV-3-2" {
		t.Fatal(vs, err)
	}
	if s.count("/v1/ids") != 0 {
		t.Error("a client used for segments and serials fetches no IDs")
	}
}

func TestSegmentFailsOverAndMeetsItsDeadline(t *testing.T) {
	t.Parallel()
	a := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		problem(w, 503, 0, "segment store down")
	})
	b := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n > 1 {
			problem(w, 429, 1, "over the rate limit")
			return
		}
		fmt.Fprint(w, `{"tag":"order","ids":["5000"]}`)
	})
	c := connect(t, []string{a.addr(), b.addr()}, WithSegmentBatch(1),
		WithDeadline(400*time.Millisecond))
	ctx := context.Background()
	if v, err := c.Segment("order").Next(ctx); err != nil || v != 5000 {
		t.Fatal(v, err)
	}
	start := time.Now()
	_, err := c.Segment("order").Next(ctx)
	var ue *UnavailableError
	if !errors.As(err, &ue) || time.Since(start) > time.Second {
		t.Fatal(err)
	}
	if ue.Failures[b.addr()] != "429: over the rate limit (retry after 1 s)" ||
		ue.Failures[a.addr()] != "503: segment store down" ||
		!strings.Contains(err.Error(), "no ID of segment tag 'order' within 400 ms") {
		t.Error(err)
	}
}

func TestCloseFailsWaitingAndLaterCallers(t *testing.T) {
	t.Parallel()
	silent, _ := silentAddr(t)
	c := connect(t, []string{silent})
	done := make(chan error, 2)
	go func() { _, err := c.NextID(context.Background()); done <- err }()
	go func() { _, err := c.Segment("order").Next(context.Background()); done <- err }()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := <-done; !errors.Is(err, ErrClosed) {
			t.Errorf("waiting caller: %v", err)
		}
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Errorf("close took %v", el)
	}
	if _, err := c.NextID(context.Background()); !errors.Is(err, ErrClosed) {
		t.Error(err)
	}
	if _, err := c.Serial("x").Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Error(err)
	}
	if err := c.Close(); err != nil {
		t.Error("close twice", err)
	}
}

func TestContextEndsTheWaitEarlier(t *testing.T) {
	t.Parallel()
	silent, _ := silentAddr(t)
	c := connect(t, []string{silent})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.NextID(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	if _, err := c.Serial("s").Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Errorf("waited %v", el)
	}
}

func TestMalformedAnswersAreFailures(t *testing.T) {
	t.Parallel()
	a := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", id64)
		w.Write([]byte{1, 2, 3}) // not whole IDs
	})
	b := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>"))
	})
	c := connect(t, []string{a.addr(), b.addr()}, WithDeadline(300*time.Millisecond))
	_, err := c.NextID(context.Background())
	var ue *UnavailableError
	if !errors.As(err, &ue) ||
		ue.Failures[a.addr()] != "malformed answer: 3 bytes, not a whole number of IDs" ||
		!strings.HasPrefix(ue.Failures[b.addr()], "malformed answer: content type") {
		t.Fatal(err)
	}
}

func TestTLSWithACAFile(t *testing.T) {
	t.Parallel()
	next := counter(9)
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter,
		r *http.Request) {
		ids(w, r, next)
	}))
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes below
	s.StartTLS()
	t.Cleanup(s.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	hostPort := strings.TrimPrefix(s.URL, "https://")
	c := connect(t, []string{hostPort}, WithCAFile(ca), WithToken("t"))
	if id, err := c.NextID(context.Background()); err != nil || id != 9 {
		t.Fatal(id, err)
	}
	// Without the CA, the system's authorities refuse the server's certificate.
	untrusting := connect(t, []string{hostPort}, WithTLS(), WithDeadline(300*time.Millisecond))
	_, err := untrusting.NextID(context.Background())
	var ue *UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(ue.Failures[hostPort], "certificate") {
		t.Fatal(err)
	}
	// Plaintext to a TLS server fails too.
	plain := connect(t, []string{"http://" + hostPort}, WithDeadline(300*time.Millisecond))
	if _, err := plain.NextID(context.Background()); !errors.As(err, &ue) {
		t.Fatal(err)
	}
}
