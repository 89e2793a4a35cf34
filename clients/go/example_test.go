package idmint_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	idmint "idmint.io/client-go"
)

// Connect to a fleet, take IDs, segment values and serial values.
func Example() {
	ctx := context.Background()
	c, err := idmint.Connect(ctx, []string{"h1:8080", "h2:8080", "h3:8080"})
	if err != nil {
		log.Fatal(err) // a bad endpoint or option, named
	}
	defer c.Close()

	id, err := c.NextID(ctx) // from the buffer: an in-memory take
	if err != nil {
		log.Fatal(err)
	}
	order, err := c.Segment("order").Next(ctx) // a dense per-tag sequence
	if err != nil {
		log.Fatal(err)
	}
	invoice, err := c.Serial("invoice").Next(ctx) // INV-20261128-000042, one request
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id, order, invoice)
}

// Every option, with TLS and a token.
func ExampleConnect() {
	c, err := idmint.Connect(context.Background(),
		[]string{"https://h1:8443", "h2:8443"}, // host:port is https once TLS is on
		idmint.WithBufferSize(65536),
		idmint.WithDeadline(5*time.Second),
		idmint.WithCallTimeout(time.Second),
		idmint.WithSegmentBatch(100),
		idmint.WithMaxBatch(10000),
		idmint.WithCAFile("ca.pem"),
		idmint.WithClientCertificate("app.pem", "app-key.pem"),
		idmint.WithToken(os.Getenv("IDMINT_TOKEN")),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
}

// What a caller gets when no server answers within the deadline.
func ExampleUnavailableError() {
	c, err := idmint.Connect(context.Background(), []string{"127.0.0.1:1"},
		idmint.WithDeadline(300*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	_, err = c.NextID(context.Background())
	var unavailable *idmint.UnavailableError
	if errors.As(err, &unavailable) {
		fmt.Println(unavailable.Failures["127.0.0.1:1"])
	}
	// Output: connection refused
}

func ExampleParseLayout() {
	layout, err := idmint.ParseLayout("snowflake")
	if err != nil {
		log.Fatal(err)
	}
	p, err := layout.Decode(120580959916525020)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Time().Format(time.RFC3339Nano), p.Datacenter, p.Worker, p.Sequence)

	custom, _ := idmint.ParseLayout("time=41,worker=4,sequence=12,epoch=2026-01-01T00:00:00Z")
	fmt.Println(custom.Spec())

	_, err = idmint.ParseLayout("time=41,worker=4")
	fmt.Println(errors.Is(err, idmint.ErrInvalidArgument), err)
	// Output:
	// 2026-11-29T17:45:41.13Z 0 0 1500
	// time=41,worker=4,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z
	// true idmint: layout 'time=41,worker=4': needs a 'sequence' field
}
