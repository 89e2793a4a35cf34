package idmint

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
)

// BenchmarkNextID is NextID against an in-process server: mostly buffered takes, with the
// refill running alongside (go test -bench . -run ^$).
func BenchmarkNextID(b *testing.B) {
	var next atomic.Int64
	next.Store(1)
	s := newServer(b, func(w http.ResponseWriter, r *http.Request, n int) {
		ids(w, r, &next)
	})
	c, err := Connect(context.Background(), []string{s.URL})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.NextID(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBufferedTake is one take from a full buffer, without a refill.
func BenchmarkBufferedTake(b *testing.B) {
	buf := newBuffer(func() {})
	const chunk = 1 << 16
	ids := make([]int64, chunk)
	ctx := context.Background()
	fail := func() error { return ErrClosed }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%chunk == 0 {
			b.StopTimer()
			buf.append(append([]int64(nil), ids...))
			b.StartTimer()
		}
		if _, err := buf.take(ctx, 0, fail); err != nil {
			b.Fatal(err)
		}
	}
}
