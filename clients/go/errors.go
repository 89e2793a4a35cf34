package idmint

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Version is the version of this client, the idmint release it was made with.
const Version = "0.1.0"

// ErrInvalidArgument is wrapped by every error about the caller's input: a bad option or
// endpoint (the message names the value), a token over plaintext to a host that is not
// loopback, a malformed layout spec, or a segment tag or serial a server does not know (the
// message names it and the server). Test with errors.Is.
var ErrInvalidArgument = errors.New("idmint: invalid argument")

// ErrClosed is returned by calls on a closed Client, and by calls that were waiting when it
// was closed. Test with errors.Is.
var ErrClosed = errors.New("idmint: client is closed")

// argError is an invalid-argument error with a message of its own; errors.Is(err,
// ErrInvalidArgument) holds for it.
type argError struct{ msg string }

func (e *argError) Error() string { return "idmint: " + e.msg }
func (e *argError) Unwrap() error { return ErrInvalidArgument }

func invalidf(format string, args ...any) error {
	return &argError{msg: fmt.Sprintf(format, args...)}
}

// UnavailableError says that no endpoint gave what a caller asked for within the client's
// deadline: every endpoint failed, was waiting out its Retry-After or backoff, or stayed
// silent. Failures holds each endpoint's last failure, keyed by the endpoint as it was given
// to Connect: for example "503: not ready: no lease (retry after 2 s)", "timeout: no answer
// within 1000 ms", "connection refused", or "none" for one that has not failed.
type UnavailableError struct {
	// What the caller did not get, e.g. "no endpoint gave an ID".
	What string
	// Deadline is the client's deadline.
	Deadline time.Duration
	// Failures is each endpoint's last failure by endpoint.
	Failures map[string]string
	// Endpoints lists the keys of Failures in the order the client was given them.
	Endpoints []string
}

func (e *UnavailableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "idmint: %s within %d ms; last failure of each endpoint: ", e.What,
		e.Deadline.Milliseconds())
	for i, ep := range e.Endpoints {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %s", ep, e.Failures[ep])
	}
	return b.String()
}
