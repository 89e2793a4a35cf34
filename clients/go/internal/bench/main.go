// Command bench measures the Go client against a running idmint server (start it with
// `idmint serve --workers 2`) and prints one line of JSON:
//
//	cd clients/go && go run ./internal/bench http://127.0.0.1:18080
//
// In one run: (a) NextID from one goroutine, IDs/s over 3 s after a 1 s warm-up, twice; (b)
// the raw loop, the same requests (GET /v1/ids?count=10000, id64) fetched one after another
// over one keep-alive connection and decoded, IDs/s, measured the same way, interleaved with
// (a); (c) p50/p99/p99.9 of single buffered takes, each timed on its own with the runtime's
// monotonic clock while the buffer is warm, with the clock's own cost reported alongside
// (clock_p50_us, clock_p99_us: two clock reads with nothing between).
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"
	_ "unsafe" // go:linkname

	idmint "idmint.io/client-go"
)

//go:linkname nanotime runtime.nanotime
func nanotime() int64

const (
	warmUp  = 1 * time.Second
	measure = 3 * time.Second
	batch   = 10000
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: bench http://127.0.0.1:PORT")
		os.Exit(2)
	}
	endpoint := strings.TrimSuffix(os.Args[1], "/")
	ctx := context.Background()
	c, err := idmint.Connect(ctx, []string{endpoint})
	if err != nil {
		fail(err)
	}
	defer c.Close()

	var clientSum, rawSum float64
	for round := 0; round < 2; round++ {
		r := raw(endpoint)
		rawSum += r
		cl := client(ctx, c)
		clientSum += cl
		fmt.Fprintf(os.Stderr, "round %d: raw %.0f IDs/s, client %.0f IDs/s\n", round, r, cl)
	}
	clientRate, rawRate := clientSum/2, rawSum/2
	takes, clock := takeLatency(ctx, c)
	st := c.Stats()
	fmt.Fprintf(os.Stderr, "stats: %+v\n", st)
	line, _ := json.Marshal(result{
		Lang:     "go",
		Client:   round0(clientRate),
		Raw:      round0(rawRate),
		Ratio:    round3(clientRate / rawRate),
		TakeP50:  round3(takes[0]),
		TakeP99:  round3(takes[1]),
		TakeP999: round3(takes[2]),
		ClockP50: round3(clock[0]),
		ClockP99: round3(clock[1]),
	})
	fmt.Println(string(line))
}

type result struct {
	Lang     string  `json:"lang"`
	Client   float64 `json:"client_ids_per_s"`
	Raw      float64 `json:"raw_ids_per_s"`
	Ratio    float64 `json:"ratio"`
	TakeP50  float64 `json:"take_p50_us"`
	TakeP99  float64 `json:"take_p99_us"`
	TakeP999 float64 `json:"take_p999_us"`
	ClockP50 float64 `json:"clock_p50_us"`
	ClockP99 float64 `json:"clock_p99_us"`
}

// client is NextID's rate from one goroutine, after a warm-up.
func client(ctx context.Context, c *idmint.Client) float64 {
	run := func(d time.Duration) float64 {
		start := time.Now()
		n := 0
		var last int64
		for {
			for i := 0; i < 4096; i++ {
				id, err := c.NextID(ctx)
				if err != nil {
					fail(err)
				}
				if id <= last {
					fail(fmt.Errorf("ID %d after %d", id, last))
				}
				last = id
			}
			n += 4096
			if el := time.Since(start); el >= d {
				return float64(n) / el.Seconds()
			}
		}
	}
	run(warmUp)
	return run(measure)
}

// raw is the rate of the client's requests made one after another over one keep-alive
// connection, each answer decoded.
func raw(endpoint string) float64 {
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 1, DisableCompression: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	url := endpoint + fmt.Sprintf("/v1/ids?count=%d", batch)
	body := make([]byte, 8*batch)
	ids := make([]int64, batch)
	var sink int64
	fetch := func() int {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Accept", "application/vnd.idmint.id64")
		resp, err := hc.Do(req)
		if err != nil {
			fail(err)
		}
		if resp.StatusCode != 200 {
			fail(fmt.Errorf("raw: status %d", resp.StatusCode))
		}
		n := int(resp.ContentLength)
		if _, err := io.ReadFull(resp.Body, body[:n]); err != nil {
			fail(err)
		}
		resp.Body.Close()
		for i := 0; i < n/8; i++ {
			ids[i] = int64(binary.BigEndian.Uint64(body[8*i:]))
		}
		sink += ids[n/8-1]
		return n / 8
	}
	run := func(d time.Duration) float64 {
		start := time.Now()
		n := 0
		for {
			n += fetch()
			if el := time.Since(start); el >= d {
				return float64(n) / el.Seconds()
			}
		}
	}
	run(warmUp)
	r := run(measure)
	if sink == 0 {
		fail(fmt.Errorf("no IDs"))
	}
	return r
}

// takeLatency times single takes while the buffer holds at least 2000 IDs (bursts of 1000
// takes, each timed on its own), and the clock itself; it returns p50, p99 and p99.9 of each
// in microseconds.
func takeLatency(ctx context.Context, c *idmint.Client) ([3]float64, [3]float64) {
	const samples = 2_000_000
	takes := make([]int64, 0, samples)
	for len(takes) < samples {
		if c.Stats().BufferedIDs < 2000 {
			time.Sleep(200 * time.Microsecond)
			continue
		}
		for i := 0; i < 1000; i++ {
			t0 := nanotime()
			if _, err := c.NextID(ctx); err != nil {
				fail(err)
			}
			takes = append(takes, nanotime()-t0)
		}
	}
	clock := make([]int64, samples)
	for i := range clock {
		t0 := nanotime()
		clock[i] = nanotime() - t0
	}
	return percentiles(takes), percentiles(clock)
}

func percentiles(ns []int64) [3]float64 {
	sort.Slice(ns, func(i, j int) bool { return ns[i] < ns[j] })
	at := func(q float64) float64 { return float64(ns[int(q*float64(len(ns)-1))]) / 1000 }
	return [3]float64{at(0.50), at(0.99), at(0.999)}
}

func round0(v float64) float64 { return float64(int64(v + 0.5)) }
func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}
