package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// A session over pipes: commands in, replies and events out, as the Java test drives it.
func TestDriverSession(t *testing.T) {
	var next atomic.Int64
	next.Store(1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/ids" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(404)
			fmt.Fprint(w, `{"status":404,"detail":"unknown"}`)
			return
		}
		n, _ := strconv.Atoi(r.URL.Query().Get("count"))
		start := next.Add(int64(n)) - int64(n)
		b := make([]byte, 8*n)
		for i := 0; i < n; i++ {
			binary.BigEndian.PutUint64(b[8*i:], uint64(start+int64(i)))
		}
		w.Header().Set("Content-Type", "application/vnd.idmint.id64")
		w.Write(b)
	}))
	defer srv.Close()

	outR, outW := io.Pipe()
	d := &driver{out: &out{w: bufio.NewWriter(outW)}}
	lines := make(chan map[string]any, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Error(err)
			}
			lines <- m
		}
	}()
	read := func() map[string]any {
		select {
		case m := <-lines:
			return m
		case <-time.After(5 * time.Second):
			t.Fatal("no line")
			return nil
		}
	}
	send := func(cmd string) map[string]any {
		d.handle([]byte(cmd))
		return read()
	}
	dir := t.TempDir()
	for _, c := range []struct{ cmd, want string }{
		{`{"op":"next","count":1}`, `map[error:closed`},
		{`{"op":"connect","endpoints":["` + srv.URL + `"],"bufferSize":999}`,
			`map[error:invalid-argument message:idmint: buffer size must be 1000 to 16777216 IDs: 999`},
		{`{"op":"connect","endpoints":["` + srv.URL + `"],"deadlineMs":300,"maxBatch":100}`, `map[ok:true]`},
		{`{"op":"next","count":2}`, `map[ids:[1000 1001] ok:true]`},
		{`{"op":"segment","tag":"order","count":1}`, `map[error:invalid-argument message:idmint: unknown segment tag 'order'`},
		{`{"op":"decode","id":"120580959916525020","layout":"snowflake"}`,
			`map[datacenter:0 ok:true sequence:1500 shard:0 timestampMs:1.79597434113e+12 worker:0]`},
		{`{"op":"decode","id":"18446744073709551615","layout":"discord"}`,
			`map[datacenter:31 ok:true sequence:4095 shard:0 timestampMs:5.818116911103e+12 worker:31]`},
		{`{"op":"nope"}`, `map[error:invalid-argument message:bad input: unknown op "nope" ok:false]`},
		{`not json`, `map[error:invalid-argument`},
	} {
		got := fmt.Sprint(send(c.cmd))
		if len(got) < len(c.want) || got[:len(c.want)] != c.want {
			t.Errorf("%s: %s, want %s…", c.cmd, got, c.want)
		}
	}
	if r := send(`{"op":"draw","callers":3,"perCaller":2000,"gates":[0,500],"out":"` + dir + `"}`); r["ok"] != true {
		t.Fatal(r)
	}
	if e := read(); e["event"] != "gate" || e["gate"] != 0.0 {
		t.Fatal(e)
	}
	if r := send(`{"op":"open","gate":0}`); r["ok"] != true {
		t.Fatal(r)
	}
	if e := read(); e["event"] != "gate" || e["gate"] != 1.0 {
		t.Fatal(e)
	}
	if r := send(`{"op":"stats"}`); r["bufferedIds"] == nil {
		t.Fatal(r)
	}
	if r := send(`{"op":"open","gate":1}`); r["ok"] != true {
		t.Fatal(r)
	}
	e := read()
	if e["event"] != "drawn" || fmt.Sprint(e["counts"]) != "[2000 2000 2000]" ||
		fmt.Sprint(e["errors"]) != "[]" {
		t.Fatal(e)
	}
	seen := map[uint64]bool{}
	for k := 0; k < 3; k++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("caller-%d.bin", k)))
		if err != nil || len(b) != 16000 {
			t.Fatal(err, len(b))
		}
		for i := 0; i < 2000; i++ {
			id := binary.BigEndian.Uint64(b[8*i:])
			if seen[id] || i > 0 && id <= binary.BigEndian.Uint64(b[8*i-8:]) {
				t.Fatal("repeated or out of order", id)
			}
			seen[id] = true
		}
	}
	if r := send(`{"op":"close"}`); r["ok"] != true {
		t.Fatal(r)
	}
	if r := send(`{"op":"stats"}`); r["error"] != "closed" {
		t.Fatal(r)
	}
}
