package idmint

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Defaults of the options, as in the Java client (docs/client.md, "Knobs").
const (
	DefaultBufferSize   = 65536
	DefaultDeadline     = 5 * time.Second
	DefaultCallTimeout  = 1 * time.Second
	DefaultSegmentBatch = 100
	DefaultMaxBatch     = 10000
)

// An Option tunes a Client at Connect. A bad value makes Connect fail with an error that
// names it and wraps ErrInvalidArgument.
type Option func(*config) error

type config struct {
	bufferSize   int
	deadline     time.Duration
	callTimeout  time.Duration
	segmentBatch int
	maxBatch     int
	tls          bool
	caFile       string
	certFile     string
	keyFile      string
	token        string
}

func defaultConfig() config {
	return config{
		bufferSize:   DefaultBufferSize,
		deadline:     DefaultDeadline,
		callTimeout:  DefaultCallTimeout,
		segmentBatch: DefaultSegmentBatch,
		maxBatch:     DefaultMaxBatch,
	}
}

// WithBufferSize sets the most IDs the client buffers (8 bytes each), 1000 to 16777216;
// default 65536. The buffer holds about 100 ms of the rate callers take IDs, within that.
func WithBufferSize(ids int) Option {
	return func(c *config) error {
		if ids < 1000 || ids > 1<<24 {
			return invalidf("buffer size must be 1000 to 16777216 IDs: %d", ids)
		}
		c.bufferSize = ids
		return nil
	}
}

// WithDeadline sets the longest NextID, a segment's Next or a serial's Next waits before it
// returns an *UnavailableError; default 5 s. A context that ends earlier ends the wait earlier.
func WithDeadline(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return invalidf("deadline must be positive: %v", d)
		}
		c.deadline = d
		return nil
	}
}

// WithCallTimeout sets the longest one server may take to answer a request before the client
// gives it up and asks the next endpoint; default 1 s. Keep it well below the deadline, so
// that a failover fits within it.
func WithCallTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return invalidf("call timeout must be positive: %v", d)
		}
		c.callTimeout = d
		return nil
	}
}

// WithSegmentBatch sets how many values of a segment tag are fetched per request and
// buffered, per tag, 1 to 10000; default 100.
func WithSegmentBatch(n int) Option {
	return func(c *config) error {
		if n < 1 || n > 10000 {
			return invalidf("segment batch must be 1 to 10000: %d", n)
		}
		c.segmentBatch = n
		return nil
	}
}

// WithMaxBatch sets the most IDs asked for in one request, 1 to 10000 (the server's
// max-count must allow it); default 10000.
func WithMaxBatch(n int) Option {
	return func(c *config) error {
		if n < 1 || n > 10000 {
			return invalidf("max batch must be 1 to 10000: %d", n)
		}
		c.maxBatch = n
		return nil
	}
}

// WithTLS switches TLS on, trusting the system's certificate authorities (or, with
// WithCAFile, that file's). Endpoints given as host:port then use https.
func WithTLS() Option {
	return func(c *config) error {
		c.tls = true
		return nil
	}
}

// WithCAFile switches TLS on, trusting the CA certificates of this PEM file instead of the
// system's. The file is read at Connect.
func WithCAFile(path string) Option {
	return func(c *config) error {
		if path == "" {
			return invalidf("CA file must not be empty")
		}
		c.tls = true
		c.caFile = path
		return nil
	}
}

// WithClientCertificate switches TLS on and presents this certificate chain and private key
// (PEM files) to servers that ask for one (mTLS). The files are read at Connect.
func WithClientCertificate(certFile, keyFile string) Option {
	return func(c *config) error {
		if certFile == "" || keyFile == "" {
			return invalidf("client certificate and key files must not be empty: %q, %q",
				certFile, keyFile)
		}
		c.tls = true
		c.certFile = certFile
		c.keyFile = keyFile
		return nil
	}
}

// WithToken sends "Authorization: Bearer token" with every request. Over plaintext (http)
// Connect refuses it unless every endpoint is this machine (localhost, 127.x.x.x, ::1).
func WithToken(token string) Option {
	return func(c *config) error {
		if strings.TrimSpace(token) == "" {
			return invalidf("token must not be blank")
		}
		if strings.ContainsAny(token, "\r\n") {
			return invalidf("token must be one line")
		}
		c.token = token
		return nil
	}
}

// tlsConfig builds the TLS settings, reading the files; nil when TLS is off.
func (c *config) tlsConfig() (*tls.Config, error) {
	if !c.tls {
		return nil, nil
	}
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.caFile != "" {
		pem, err := os.ReadFile(c.caFile)
		if err != nil {
			return nil, invalidf("cannot read CA file %s: %v", c.caFile, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, invalidf("CA file %s holds no PEM certificate", c.caFile)
		}
		t.RootCAs = pool
	}
	if c.certFile != "" {
		cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
		if err != nil {
			return nil, invalidf("cannot read client certificate %s and key %s: %v",
				c.certFile, c.keyFile, err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}

// endpoint is one server as the client was given it.
type endpoint struct {
	given string // as given to Connect: the key of failures
	https bool
	host  string // without brackets
	base  string // "http://host:port"
}

// parseEndpoint reads "host:port", "http://host:port" or "https://host:port" (IPv6 in
// brackets). A bare host:port is https when TLS is on.
func parseEndpoint(s string, tlsOn bool) (*endpoint, error) {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsAny(s, " \t\r\n") {
		return nil, invalidf("malformed endpoint %q: expected host:port, http://host:port "+
			"or https://host:port", s)
	}
	e := &endpoint{given: s, https: tlsOn}
	rest := s
	if i := strings.Index(s, "://"); i >= 0 {
		switch strings.ToLower(s[:i]) {
		case "http":
			e.https = false
		case "https":
			e.https = true
		default:
			return nil, invalidf("endpoint %q has an unknown scheme %q: use http or https",
				s, s[:i])
		}
		rest = s[i+3:]
		if strings.HasSuffix(rest, "/") && strings.Count(rest, "/") == 1 {
			rest = rest[:len(rest)-1]
		}
	}
	if strings.ContainsAny(rest, "/?#@") {
		return nil, invalidf("endpoint %q has a path, query or user: give host:port only", s)
	}
	host, port, err := net.SplitHostPort(rest)
	if err != nil {
		return nil, invalidf("malformed endpoint %q: expected host:port (%v)", s, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 || port[0] == '+' {
		return nil, invalidf("endpoint %q: port %q is not 1 to 65535", s, port)
	}
	if host == "" {
		return nil, invalidf("endpoint %q has no host", s)
	}
	if strings.HasPrefix(rest, "[") {
		if ip := net.ParseIP(host); ip == nil || !strings.Contains(host, ":") {
			return nil, invalidf("endpoint %q: %q is not an IPv6 address", s, host)
		}
	} else {
		for _, r := range host {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
				r == '-' || r == '.' || r == '_') {
				return nil, invalidf("endpoint %q: malformed host %q", s, host)
			}
		}
	}
	e.host = host
	scheme := "http://"
	if e.https {
		scheme = "https://"
	}
	e.base = scheme + net.JoinHostPort(host, strconv.Itoa(p))
	return e, nil
}

// loopback tells whether host names this machine: localhost, 127.x.x.x or ::1.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
