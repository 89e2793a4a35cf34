package idmint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func connectErr(t *testing.T, endpoints []string, opts ...Option) error {
	t.Helper()
	c, err := Connect(context.Background(), endpoints, opts...)
	if err == nil {
		c.Close()
	}
	return err
}

func wantInvalid(t *testing.T, err error, names string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one naming %q", names)
	}
	if !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("%v does not wrap ErrInvalidArgument", err)
	}
	if !strings.Contains(err.Error(), names) {
		t.Errorf("%q does not name %q", err, names)
	}
}

func TestEveryBadOptionIsRefusedNamingIt(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.pem")
	notPem := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPem, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := []string{"127.0.0.1:1"}
	for _, c := range []struct {
		opt   Option
		names string
	}{
		{WithBufferSize(999), "999"},
		{WithBufferSize(1<<24 + 1), "16777217"},
		{WithDeadline(0), "deadline must be positive: 0s"},
		{WithDeadline(-time.Second), "-1s"},
		{WithCallTimeout(0), "call timeout must be positive: 0s"},
		{WithSegmentBatch(0), "segment batch must be 1 to 10000: 0"},
		{WithSegmentBatch(10001), "10001"},
		{WithMaxBatch(0), "max batch must be 1 to 10000: 0"},
		{WithMaxBatch(10001), "10001"},
		{WithToken(" "), "token must not be blank"},
		{WithToken("a\nb"), "token must be one line"},
		{WithCAFile(""), "CA file must not be empty"},
		{WithCAFile(missing), missing},
		{WithCAFile(notPem), notPem},
		{WithClientCertificate(missing, missing), missing},
		{WithClientCertificate("", "k"), "client certificate and key"},
	} {
		wantInvalid(t, connectErr(t, ep, c.opt), c.names)
	}
	// The bounds themselves are fine.
	for _, o := range []Option{WithBufferSize(1000), WithBufferSize(1 << 24), WithSegmentBatch(1),
		WithSegmentBatch(10000), WithMaxBatch(1), WithMaxBatch(10000),
		WithDeadline(time.Nanosecond), WithCallTimeout(time.Millisecond), WithTLS()} {
		if err := connectErr(t, ep, o); err != nil {
			t.Error(err)
		}
	}
}

func TestEndpoints(t *testing.T) {
	for _, c := range []struct {
		given string
		tls   bool
		base  string
	}{
		{"h1:8080", false, "http://h1:8080"},
		{"h1:8080", true, "https://h1:8080"},
		{"http://h1:8080", true, "http://h1:8080"},
		{"https://h1:8080", false, "https://h1:8080"},
		{"HTTP://h1:8080/", false, "http://h1:8080"},
		{"[::1]:8080", false, "http://[::1]:8080"},
		{"https://[2001:db8::1]:443", false, "https://[2001:db8::1]:443"},
		{"ids.internal.example:65535", false, "http://ids.internal.example:65535"},
		{"10.0.0.1:1", false, "http://10.0.0.1:1"},
	} {
		e, err := parseEndpoint(c.given, c.tls)
		if err != nil || e.base != c.base || e.given != c.given {
			t.Errorf("%s (tls %v): %+v %v, want %s", c.given, c.tls, e, err, c.base)
		}
	}
	for _, bad := range []string{"", "h1", "h1:", ":8080", "h1:0", "h1:65536", "h1:-1",
		"h1:+80", "h1:http", "http://h1:8080/v1", "h1:8080/v1", "ftp://h1:21",
		"dns:///h1:8080", "http://user@h1:8080", "h1:8080?x=1", "::1:8080", "[nope]:80",
		"h 1:80", " h1:80", "http://"} {
		err := connectErr(t, []string{"127.0.0.1:1", bad})
		wantInvalid(t, err, "\""+bad+"\"")
	}
	wantInvalid(t, connectErr(t, nil), "at least one endpoint")
}

func TestTokenOverPlaintextOnlyToLoopback(t *testing.T) {
	tok := WithToken("s3cret")
	for _, ok := range [][]string{{"localhost:1"}, {"127.0.0.1:1", "127.1.2.3:1"},
		{"[::1]:1"}, {"http://LOCALHOST:1"}} {
		if err := connectErr(t, ok, tok); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
	for _, bad := range []string{"10.0.0.1:80", "http://ids.example:80", "128.0.0.1:1"} {
		err := connectErr(t, []string{"127.0.0.1:1", bad}, tok)
		wantInvalid(t, err, "plaintext to "+bad)
	}
	// Over TLS a token may go anywhere; an explicit http:// endpoint stays plaintext.
	if err := connectErr(t, []string{"ids.example:443"}, tok, WithTLS()); err != nil {
		t.Error(err)
	}
	wantInvalid(t, connectErr(t, []string{"http://ids.example:80"}, tok, WithTLS()),
		"http://ids.example:80")
	if loopback("127.0.0.1.example") || !loopback("127.255.0.9") || loopback("::2") {
		t.Error("loopback")
	}
}

func TestVersion(t *testing.T) {
	if Version != "0.1.0" {
		t.Error(Version)
	}
}
