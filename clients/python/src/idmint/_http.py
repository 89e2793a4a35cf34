"""HTTP/1.1 with keep-alive over :mod:`http.client`: the client's one way to reach a server.

:class:`Transport` keeps idle connections per endpoint and reuses them; a connection that
failed in any way (an error, a timeout, a response cut short) is closed, never reused. Every
failure of a request becomes a :class:`CallFailed` whose text is what the client reports for
that endpoint (``"connection refused"``, ``"timeout: no answer within 1000 ms"``,
``"503: not ready: no lease"``, …).
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from typing import Dict, List, Optional, Set, Tuple, Union

from ._endpoints import Endpoint, retry_after_seconds
from ._errors import ClientClosed

__all__ = ["CallFailed", "Transport", "ID64", "JSON", "status_failure"]

#: The media type of IDs as 8-byte big-endian integers (``GET /v1/ids``).
ID64 = "application/vnd.idmint.id64"
JSON = "application/json"

_Conn = Union[http.client.HTTPConnection, http.client.HTTPSConnection]
#: Errors of a reused keep-alive connection that the server closed while it was idle: the
#: request is sent again once on a new connection before the endpoint counts as failed.
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError,
          ConnectionAbortedError)


class CallFailed(Exception):
    """A request to one endpoint failed; ``text`` says how, ``retry_after`` is the whole
    seconds of its ``Retry-After`` (0 when none)."""

    def __init__(self, text: str, retry_after: int = 0) -> None:
        super().__init__(text)
        self.text = text
        self.retry_after = retry_after


def problem_detail(resp: http.client.HTTPResponse, body: bytes) -> str:
    """The ``detail`` (else ``title``) of a problem+json body, else the reason phrase."""
    ctype = (resp.getheader("Content-Type") or "").lower()
    if "json" in ctype:
        try:
            doc = json.loads(body)
            if isinstance(doc, dict):
                for key in ("detail", "title"):
                    if isinstance(doc.get(key), str) and doc[key]:
                        return _short(doc[key])
        except ValueError:
            pass
    return _short(resp.reason or "no reason given")


def status_failure(status: int, resp: http.client.HTTPResponse, body: bytes) -> CallFailed:
    """A non-200 answer as a failure: ``"503: <detail>"`` with its ``Retry-After``."""
    return CallFailed("%d: %s" % (status, problem_detail(resp, body)),
                      retry_after_seconds(resp.getheader("Retry-After")))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


def describe(e: BaseException, timeout: float) -> str:
    """The failure text of an exception raised by a request."""
    if isinstance(e, CallFailed):
        return e.text
    if isinstance(e, (socket.timeout, TimeoutError)):
        return "timeout: no answer within %d ms" % round(timeout * 1000)
    if isinstance(e, ConnectionRefusedError):
        return "connection refused"
    if isinstance(e, http.client.RemoteDisconnected):
        return "connection closed without a response"
    if isinstance(e, ConnectionResetError):
        return "connection reset"
    if isinstance(e, (BrokenPipeError, ConnectionAbortedError)):
        return "connection closed"
    if isinstance(e, ssl.SSLCertVerificationError):
        return "tls: certificate verify failed: %s" % (e.verify_message or e.reason or e)
    if isinstance(e, ssl.SSLError):
        return "tls: %s" % (e.reason or e)
    if isinstance(e, socket.gaierror):
        return "unknown host: %s" % (e.strerror or e)
    if isinstance(e, http.client.IncompleteRead):
        return "incomplete response: %d bytes read, %s more expected" % (
            len(e.partial), e.expected)
    if isinstance(e, http.client.HTTPException):
        return "bad response: %s" % (_short(str(e)) or type(e).__name__)
    if isinstance(e, OSError):
        return "connection error: %s" % (e.strerror or e)
    return "error: %s: %s" % (type(e).__name__, _short(str(e)))


def _left(conn: Optional[_Conn], end: float) -> float:
    """The time left until ``end``, set as the socket's timeout for the next wait.

    :raises socket.timeout: when none is left
    """
    left = end - time.monotonic()
    if left <= 0:
        raise socket.timeout("the call timeout passed")
    if conn is not None and conn.sock is not None:
        conn.sock.settimeout(left)
    return left


def _read(conn: _Conn, resp: http.client.HTTPResponse, end: float) -> bytes:
    """The whole body by ``end``: one receive at a time, each allowed only the time left."""
    chunks: List[bytes] = []
    while resp.length is None or resp.length > 0:
        _left(conn, end)
        chunk = resp.read1(1 << 16)
        if not chunk:
            if resp.length:
                raise http.client.IncompleteRead(b"".join(chunks), resp.length)
            break
        chunks.append(chunk)
    chunks.append(resp.read())  # nothing left: ends the response, so the connection is reusable
    return b"".join(chunks)


class Transport:
    """Keep-alive connections to the endpoints, shared by the refill, segments and serials.

    A connection is used by one request at a time: it is taken from the idle list (or made)
    for the request and put back only when the response was read whole and the server keeps it
    open. :meth:`close` shuts the sockets of requests in flight, so that their threads return at
    once with an error.
    """

    def __init__(self, ssl_context: Optional[ssl.SSLContext], token: Optional[str],
                 user_agent: str) -> None:
        self._ssl = ssl_context
        base = {"User-Agent": user_agent}
        if token is not None:
            base["Authorization"] = "Bearer " + token
        self._headers: Dict[str, Dict[str, str]] = {
            ID64: dict(base, Accept=ID64), JSON: dict(base, Accept=JSON)}
        self._idle: Dict[Endpoint, List[_Conn]] = {}
        self._busy: Set[_Conn] = set()
        self._lock = threading.Lock()
        self._closed = False

    def get(self, e: Endpoint, path: str, accept: str,
            timeout: float) -> Tuple[int, http.client.HTTPResponse, bytes]:
        """``GET path`` from ``e``: the status, the response (for headers) and its body.

        ``timeout`` bounds the whole call, from connecting to the last byte of the answer: a
        server that trickles its answer is left as one that is silent.

        :raises CallFailed: when no complete response came (any status is a response)
        :raises ClientClosed: when the transport is closed
        """
        headers = self._headers[accept]
        end = time.monotonic() + timeout
        for attempt in (0, 1):
            conn, reused = self._checkout(e, timeout)
            try:
                conn.timeout = _left(None, end)
                sock = conn.sock
                if sock is not None:
                    sock.settimeout(conn.timeout)
                conn.request("GET", path, headers=headers)
                _left(conn, end)
                resp = conn.getresponse()
                body = _read(conn, resp, end)
            except BaseException as x:
                self._discard(conn)
                if self._closed:
                    raise ClientClosed("the IdClient is closed") from None
                if reused and attempt == 0 and isinstance(x, _STALE):
                    continue
                if isinstance(x, Exception):
                    raise CallFailed(describe(x, timeout)) from x
                raise
            if resp.will_close:
                self._discard(conn)
            else:
                self._checkin(e, conn)
            return resp.status, resp, body
        raise AssertionError("unreachable")

    def _checkout(self, e: Endpoint, timeout: float) -> Tuple[_Conn, bool]:
        with self._lock:
            if self._closed:
                raise ClientClosed("the IdClient is closed")
            idle = self._idle.get(e)
            conn: _Conn
            if idle:
                conn = idle.pop()
                reused = True
            else:
                if e.tls:
                    conn = http.client.HTTPSConnection(e.host, e.port, timeout=timeout,
                                                       context=self._ssl)
                else:
                    conn = http.client.HTTPConnection(e.host, e.port, timeout=timeout)
                reused = False
            self._busy.add(conn)
            return conn, reused

    def _checkin(self, e: Endpoint, conn: _Conn) -> None:
        with self._lock:
            self._busy.discard(conn)
            if self._closed:
                conn.close()
            else:
                self._idle.setdefault(e, []).append(conn)

    def _discard(self, conn: _Conn) -> None:
        with self._lock:
            self._busy.discard(conn)
        conn.close()

    def close(self) -> None:
        """Closes idle connections and cuts those in use (their requests fail at once)."""
        with self._lock:
            self._closed = True
            idle = [c for cs in self._idle.values() for c in cs]
            self._idle.clear()
            busy = list(self._busy)
        for c in idle:
            c.close()
        for c in busy:
            sock = c.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
