package idmint

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	id64        = "application/vnd.idmint.id64"
	maxBodySize = 4 << 20 // a JSON answer of 10000 segment IDs or serial values fits easily
)

// statusError is an answer other than 200.
type statusError struct {
	status     int
	detail     string
	retryAfter time.Duration
}

func (e *statusError) Error() string { return fmt.Sprintf("%d: %s", e.status, e.detail) }

// malformedError is a 200 answer the client cannot read.
type malformedError struct{ msg string }

func (e *malformedError) Error() string { return "malformed answer: " + e.msg }

// wire sends the client's requests: HTTP/1.1 with keep-alive over net/http.
type wire struct {
	http  *http.Client
	tr    *http.Transport
	token string // "Bearer …", or ""
}

func newWire(tlsConf *tls.Config, token string) *wire {
	tr := &http.Transport{
		Proxy:               nil, // straight to the servers: failover is the client's own
		DialContext:         (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     tlsConf,
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{}, // HTTP/1.1
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	w := &wire{http: &http.Client{Transport: tr}, tr: tr}
	if token != "" {
		w.token = "Bearer " + token
	}
	return w
}

// get asks ep for path with a timeout and returns the body of a 200 answer; any other
// status is a *statusError.
func (w *wire) get(ctx context.Context, ep *endpoint, path, accept string,
	buf []byte) ([]byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ep.base+path, nil)
	if err != nil {
		return buf, "", err
	}
	req.Header.Set("Accept", accept)
	if w.token != "" {
		req.Header.Set("Authorization", w.token)
	}
	resp, err := w.http.Do(req)
	if err != nil {
		return buf, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return buf, "", readProblem(resp)
	}
	buf, err = readBody(resp, buf)
	return buf, resp.Header.Get("Content-Type"), err
}

// readBody reads the whole body into buf (grown as needed) so the connection can be reused.
func readBody(resp *http.Response, buf []byte) ([]byte, error) {
	n := resp.ContentLength
	if n > maxBodySize {
		return buf, &malformedError{fmt.Sprintf("body of %d bytes", n)}
	}
	if n >= 0 {
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		_, err := io.ReadFull(resp.Body, buf)
		return buf, err
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBodySize+1))
	if err == nil && len(b) > maxBodySize {
		err = &malformedError{"body too long"}
	}
	return b, err
}

// readProblem turns a non-200 answer into a *statusError: the problem's detail (or title),
// and its Retry-After in whole seconds.
func readProblem(resp *http.Response) error {
	e := &statusError{status: resp.StatusCode}
	if s, err := strconv.ParseInt(strings.TrimSpace(resp.Header.Get("Retry-After")), 10,
		32); err == nil && s > 0 {
		e.retryAfter = time.Duration(s) * time.Second
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var p struct {
		Title  string `json:"title"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &p) == nil && (p.Detail != "" || p.Title != "") {
		e.detail = p.Detail
		if e.detail == "" {
			e.detail = p.Title
		}
	} else if t := strings.TrimSpace(string(body)); t != "" {
		if len(t) > 200 {
			t = t[:200] + "…"
		}
		e.detail = t
	} else {
		e.detail = strings.ToLower(http.StatusText(resp.StatusCode))
	}
	return e
}

// fetchIDs asks ep for n IDs in the id64 form (n × 8 bytes, big-endian) within timeout.
func (w *wire) fetchIDs(ctx context.Context, ep *endpoint, n int, timeout time.Duration,
	buf []byte) ([]int64, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	buf, ctype, err := w.get(ctx, ep, "/v1/ids?count="+strconv.Itoa(n), id64, buf)
	if err != nil {
		return nil, buf, err
	}
	if !strings.HasPrefix(ctype, id64) {
		return nil, buf, &malformedError{"content type " + strconv.Quote(ctype) + ", not " + id64}
	}
	if len(buf) == 0 || len(buf)%8 != 0 {
		return nil, buf, &malformedError{fmt.Sprintf("%d bytes, not a whole number of IDs",
			len(buf))}
	}
	ids := make([]int64, len(buf)/8)
	for i := range ids {
		ids[i] = int64(binary.BigEndian.Uint64(buf[i*8:]))
	}
	return ids, buf, nil
}

// getJSON asks ep for path within timeout and decodes the 200 answer's JSON into v.
func (w *wire) getJSON(ctx context.Context, ep *endpoint, path string, timeout time.Duration,
	v any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, _, err := w.get(ctx, ep, path, "application/json", nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &malformedError{err.Error()}
	}
	return nil
}

func (w *wire) close() {
	w.tr.CloseIdleConnections()
}

// describe turns a failed request into the text of an endpoint's failure and the time the
// server asked the client to stay away (0 without Retry-After).
func describe(err error, timeout time.Duration) (string, time.Duration) {
	var se *statusError
	if errors.As(err, &se) {
		return se.Error(), se.retryAfter
	}
	var me *malformedError
	if errors.As(err, &me) {
		return me.Error(), 0
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("timeout: no answer within %d ms", timeout.Milliseconds()), 0
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return "connection refused", 0
	}
	if errors.Is(err, syscall.ECONNRESET) {
		return "connection reset", 0
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "connection closed before a complete answer", 0
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error(), 0
}
