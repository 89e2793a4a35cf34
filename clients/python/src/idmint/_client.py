"""The client: :class:`IdClient`, its ID buffer and refill thread, segments and serials."""

from __future__ import annotations

import json
import logging
import math
import os
import ssl
import sys
import threading
import time
from array import array
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Deque, Dict, List, Optional, Sequence, TypeVar, Union
from urllib.parse import quote

from ._endpoints import Endpoint, Endpoints, backoff_seconds, is_loopback, parse_endpoint
from ._errors import ClientClosed
from ._http import ID64, JSON, CallFailed, Transport, problem_detail, status_failure

__all__ = ["IdClient", "SegmentClient", "SerialClient", "Stats"]

_LOG = logging.getLogger("idmint")
_VERSION = "0.1.0"
_T = TypeVar("_T")
#: Seconds, or a timedelta.
Duration = Union[float, int, timedelta]

if array("q").itemsize != 8:  # pragma: no cover - every supported platform has 8
    raise ImportError("idmint needs array('q') of 8-byte integers")
_SWAP = sys.byteorder == "little"


@dataclass(frozen=True)
class Stats:
    """Counters of a client (see :meth:`IdClient.stats`).

    :ivar buffered_ids: IDs fetched and not yet handed out
    :ivar dropped_ids: IDs fetched but not handed out because they were not above the last one
        buffered (a server behind the last, e.g. after a failover)
    :ivar ordering_resets: times the order started over from a server that stayed behind for
        longer than ``call_timeout``
    :ivar failovers: times the ID refill moved to the next endpoint after a failure
    """

    buffered_ids: int
    dropped_ids: int
    ordering_resets: int
    failovers: int


class _Demand:
    """How many IDs the buffer should hold: about 100 ms of the rate callers take them
    (measured over windows of at least 10 ms, up at once, down gently), at least one request's
    worth (1000) and at most the buffer size."""

    HORIZON_S = 0.1
    MIN_TARGET = 1000
    WINDOW_S = 0.01

    def __init__(self, capacity: int, now: float) -> None:
        self.capacity = capacity
        self.window_start = now
        self.taken_at_start = 0
        self.rate = 0.0

    def observe(self, taken: int, now: float) -> None:
        """Callers had taken ``taken`` IDs in all at ``now`` (monotonic seconds)."""
        elapsed = now - self.window_start
        if elapsed < self.WINDOW_S:
            return
        measured = (taken - self.taken_at_start) / elapsed
        self.rate = measured if measured >= self.rate else 0.7 * self.rate + 0.3 * measured
        self.window_start = now
        self.taken_at_start = taken

    def target(self) -> int:
        want = self.rate * self.HORIZON_S
        return int(max(min(self.capacity, self.MIN_TARGET), min(self.capacity, want)))


class _Refill:
    """The buffer of IDs and the daemon thread that keeps it filled (see docs/clients.md).

    The buffer is a :class:`collections.deque` of ints: a take is one ``popleft``, atomic in
    CPython, with no lock; only an empty buffer takes ``cond``. The refill thread appends whole
    responses under ``cond`` (one ``extend``), only IDs above the last one appended.
    """

    IDLE_S = 0.05

    def __init__(self, client: "IdClient", endpoints: Endpoints, buffer_size: int,
                 max_batch: int, call_timeout: float) -> None:
        self.client = client
        self.endpoints = endpoints
        self.buffer: Deque[int] = deque()
        self.cond = threading.Condition(threading.Lock())
        self.waiters = 0
        self.appended = 0
        self.demand = _Demand(buffer_size, time.monotonic())
        self.max_batch = max_batch
        self.call_timeout = call_timeout
        self.wake_event = threading.Event()
        self.thread: Optional[threading.Thread] = None
        self.start_lock = threading.Lock()
        self.closed = False
        self.dead: Optional[BaseException] = None
        # Ordering (the refill thread's alone).
        self.any = False
        self.last = 0
        self.dropping = False
        self.dropping_since = 0.0
        self.dropped = 0
        self.ordering_resets = 0

    # ------------------------------------------------------------------ takers' side

    def take_slow(self, deadline: float) -> int:
        """The next ID when the buffer looked empty: waits for the refill up to ``deadline``
        seconds from now."""
        pop = self.buffer.popleft
        end = time.monotonic() + deadline
        with self.cond:
            while True:
                try:
                    return pop()
                except IndexError:
                    pass
                if self.closed:
                    raise ClientClosed("the IdClient is closed")
                if self.dead is not None:
                    raise ClientClosed("the IdClient's refill thread died: %r" % (self.dead,))
                left = end - time.monotonic()
                if left <= 0:
                    raise self.endpoints.unavailable("no endpoint gave an ID", deadline)
                self.waiters += 1
                try:
                    self.wake()
                    self.cond.wait(left)
                finally:
                    self.waiters -= 1

    def wake(self) -> None:
        """Makes the refill look at the buffer now, starting its thread on the first call (a
        client used only for segments fetches no IDs)."""
        if self.thread is None:
            with self.start_lock:
                if self.thread is None and not self.closed:
                    t = threading.Thread(target=self._run, name="idmint-refill", daemon=True)
                    self.thread = t
                    t.start()
        self.wake_event.set()

    def close(self) -> None:
        with self.cond:
            self.closed = True
            self.buffer.clear()
            self.cond.notify_all()
        self.wake_event.set()

    def join(self, timeout: float) -> None:
        t = self.thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout)

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        failures_in_row = 0
        try:
            while not self.closed:
                try:
                    self._step()
                    failures_in_row = 0
                except ClientClosed:
                    return
                except Exception:
                    if self.closed:
                        return
                    _LOG.warning("idmint client refill failed", exc_info=True)
                    failures_in_row += 1
                    self._sleep(backoff_seconds(failures_in_row))
        except BaseException as e:  # pragma: no cover - MemoryError and the like
            _LOG.error("idmint client refill died; takers fail now", exc_info=True)
            with self.cond:
                self.dead = e
                self.cond.notify_all()
            raise

    def _sleep(self, seconds: float) -> None:
        self.wake_event.wait(seconds)

    def _step(self) -> None:
        self.wake_event.clear()
        now = time.monotonic()
        buffered = len(self.buffer)
        demand = self.demand
        demand.observe(self.appended - buffered, now)
        target = demand.target()
        if buffered >= target:
            # Sleep until the buffer would fall to its target at the measured rate (takers
            # wake this thread early when they find it empty).
            rate = demand.rate
            t = (buffered - target) / rate if rate > 0 else self.IDLE_S
            self._sleep(min(self.IDLE_S, max(0.001, t)))
            return
        e = self.endpoints.pick()
        if e is None:
            self._sleep(min(self.IDLE_S, self.endpoints.until_next()))
            return
        count = min(self.max_batch, max(_Demand.MIN_TARGET, target - buffered))
        try:
            ids = self.fetch(e, count)
        except CallFailed as f:
            if self.closed:
                return
            self.endpoints.failed(e, f.text, f.retry_after)
            return
        self.endpoints.succeeded(e)
        self.accept(ids)

    def fetch(self, e: Endpoint, count: int) -> "array[int]":
        """One ``GET /v1/ids?count=N`` as id64: the IDs, decoded."""
        status, resp, body = self.client._transport.get(
            e, "/v1/ids?count=%d" % count, ID64, self.call_timeout)
        if status != 200:
            raise status_failure(status, resp, body)
        ctype = resp.getheader("Content-Type") or ""
        if not ctype.lower().startswith(ID64):
            raise CallFailed("200 with content type '%s', not %s" % (ctype, ID64))
        if not body:
            raise CallFailed("answered no IDs")
        if len(body) % 8:
            raise CallFailed("bad response: %d bytes are not whole 8-byte IDs" % len(body))
        ids = array("q")
        ids.frombytes(body)
        if _SWAP:
            ids.byteswap()
        return ids

    def accept(self, ids: "array[int]") -> None:
        """Appends the IDs of one response above the last one appended (a response is
        increasing, by the wire contract): a response behind the last is dropped and counted;
        one that stays behind for longer than ``call_timeout`` starts the order over."""
        n = len(ids)
        if n == 0:
            return
        if self.any and ids[0] <= self.last:
            skip = bisect_right(ids, self.last)
            self.dropped += skip
            now = time.monotonic()
            if skip < n:
                self.dropping = False
            elif not self.dropping:
                self.dropping = True
                self.dropping_since = now
            elif now - self.dropping_since > self.call_timeout:
                self.ordering_resets += 1
                self.dropping = False
                self.any = False
                self.dropped -= n
                self.accept(ids)
                return
            if skip == n:
                return
            ids = ids[skip:]
        else:
            self.dropping = False
        self.last = ids[-1]
        self.any = True
        with self.cond:
            if self.closed:
                return
            self.buffer.extend(ids)
            self.appended += len(ids)
            if self.waiters:
                self.cond.notify_all()


class IdClient:
    """A client of idmint servers over HTTP/1.1 (see docs/clients.md).

    :meth:`next_id` takes an ID from a local buffer that a daemon thread keeps filled from one
    server, sized to the rate IDs are taken; when a server fails or falls silent the client
    moves to the next endpoint. IDs are unique, and increasing in the order :meth:`next_id`
    returns them, on one thread and across threads. Thread-safe. Close it (or use ``with``) to
    stop the thread and the connections::

        with IdClient.connect(["h1:8080", "h2:8080"]) as ids:
            id = ids.next_id()
            order = ids.segment("order").next()
            invoice = ids.serial("invoice").next()
    """

    DEFAULT_BUFFER_SIZE = 65_536

    def __init__(self, endpoints: List[Endpoint], *, buffer_size: int, deadline: float,
                 call_timeout: float, segment_batch: int, max_batch: int,
                 ssl_context: Optional[ssl.SSLContext], token: Optional[str]) -> None:
        """Use :meth:`connect`."""
        self._endpoints = endpoints
        self._deadline = deadline
        self._call_timeout = call_timeout
        self._segment_batch = segment_batch
        self._transport = Transport(ssl_context, token, "idmint-python/" + _VERSION)
        self._closed_event = threading.Event()
        self._refill = _Refill(self, Endpoints(endpoints), buffer_size, max_batch, call_timeout)
        self._pop = self._refill.buffer.popleft
        self._lock = threading.Lock()
        self._segments: Dict[str, SegmentClient] = {}
        self._serials: Dict[str, SerialClient] = {}

    @classmethod
    def connect(cls, endpoints: Union[str, Sequence[str]], *,
                buffer_size: int = DEFAULT_BUFFER_SIZE,
                deadline: Duration = 5.0,
                call_timeout: Duration = 1.0,
                segment_batch: int = 100,
                max_batch: int = 10_000,
                ca_file: Optional[str] = None,
                cert_file: Optional[str] = None,
                key_file: Optional[str] = None,
                tls: bool = False,
                token: Optional[str] = None) -> "IdClient":
        """A client of these servers, asked in this order. Nothing is dialled yet: the first
        :meth:`next_id` starts the refill.

        :param endpoints: ``host:port``, ``http://host:port`` or ``https://host:port``
            (IPv6 as ``[::1]:8080``); a bare ``host:port`` is https when TLS is on
        :param buffer_size: the most IDs buffered, 1000 to 16777216
        :param deadline: the longest :meth:`next_id` (or a segment's ``next()``, a serial's
            call) waits before it raises :class:`IdServiceUnavailable`: seconds or a timedelta
        :param call_timeout: the longest one server may stay silent before the next is asked;
            keep it well below the deadline
        :param segment_batch: segment values fetched per request, per tag, 1 to 10000
        :param max_batch: IDs asked per request, 1 to 10000 (at most the servers' max-count)
        :param ca_file: TLS, trusting the CA certificates of this PEM file
        :param cert_file: TLS with this client certificate (PEM; with ``key_file``, or holding
            the key too) for mTLS
        :param key_file: the client certificate's private key (PEM)
        :param tls: TLS, trusting the system's certificate authorities (implied by the three
            file options)
        :param token: sends ``Authorization: Bearer <token>`` on every request; refused over
            plaintext to a host other than loopback
        :raises ValueError: naming the bad value
        """
        if isinstance(endpoints, str):
            endpoints = [endpoints]
        if endpoints is not None and not isinstance(endpoints, Sequence):
            raise TypeError("endpoints must be a list of addresses such as 'h1:8080': %r"
                            % (endpoints,))
        if endpoints is None or len(endpoints) == 0:
            raise ValueError("at least one endpoint is needed: %r" % (endpoints,))
        buffer_size = _int_in("buffer_size", buffer_size, 1000, 1 << 24, "IDs")
        segment_batch = _int_in("segment_batch", segment_batch, 1, 10_000, "IDs")
        max_batch = _int_in("max_batch", max_batch, 1, 10_000, "IDs")
        deadline_s = _seconds("deadline", deadline)
        call_timeout_s = _seconds("call_timeout", call_timeout)
        if not isinstance(tls, bool):
            raise TypeError("tls must be True or False: %r" % (tls,))
        for name, path in (("ca_file", ca_file), ("cert_file", cert_file),
                           ("key_file", key_file)):
            if path is not None:
                if not isinstance(path, (str, os.PathLike)):
                    raise TypeError("%s must be a path: %r" % (name, path))
                if not os.path.isfile(path) or not os.access(path, os.R_OK):
                    raise ValueError("%s is not a readable file: %s" % (name, path))
        if key_file is not None and cert_file is None:
            raise ValueError("key_file %s is given without cert_file" % (key_file,))
        use_tls = tls or ca_file is not None or cert_file is not None
        if token is not None:
            if not isinstance(token, str):
                raise TypeError("token must be a str")
            if not token.strip():
                raise ValueError("token must not be blank")
            if any(c in token for c in "\r\n\0"):
                raise ValueError("token must not contain line breaks")
        parsed = [parse_endpoint(t, use_tls) for t in endpoints]
        if token is not None:
            for e in parsed:
                if not e.tls and not is_loopback(e.host):
                    raise ValueError("a token would travel in plaintext to %s: use an https:// "
                                     "endpoint, tls=True or ca_file" % e.text)
        context: Optional[ssl.SSLContext] = None
        if use_tls or any(e.tls for e in parsed):
            try:
                context = ssl.create_default_context(cafile=ca_file)
                if cert_file is not None:
                    context.load_cert_chain(cert_file, key_file)
            except (ssl.SSLError, OSError, ValueError) as x:
                raise ValueError("cannot read TLS files (ca_file %s, cert_file %s, key_file %s): "
                                 "%s" % (ca_file, cert_file, key_file, x)) from x
        return cls(parsed, buffer_size=buffer_size, deadline=deadline_s,
                   call_timeout=call_timeout_s, segment_batch=segment_batch,
                   max_batch=max_batch, ssl_context=context, token=token)

    # ------------------------------------------------------------------------- IDs

    def next_id(self) -> int:
        """The next ID: from the buffer at once almost always, else as soon as the refill
        brings one, waiting at most the deadline.

        :raises IdServiceUnavailable: when no endpoint gave IDs within the deadline
        :raises ClientClosed: when the client is closed
        """
        try:
            return self._pop()
        except IndexError:
            return self._refill.take_slow(self._deadline)

    def next_id_str(self) -> str:
        """:meth:`next_id` as decimal text (for JSON and JavaScript readers)."""
        return str(self.next_id())

    def segment(self, tag: str) -> "SegmentClient":
        """The values of segment tag ``tag`` (a dense per-tag sequence), with a buffer of their
        own; the same object for the same tag."""
        if not isinstance(tag, str):
            raise TypeError("segment tag must be a str: %r" % (tag,))
        if not tag.strip():
            raise ValueError("segment tag must not be blank: '%s'" % tag)
        with self._lock:
            s = self._segments.get(tag)
            if s is None:
                s = self._segments[tag] = SegmentClient(self, tag)
            return s

    def serial(self, name: str) -> "SerialClient":
        """The values of serial ``name`` (docs/serials.md): every call asks a server, with
        failover; serial values are never buffered, since a buffered one could outlive its
        period."""
        if not isinstance(name, str):
            raise TypeError("serial name must be a str: %r" % (name,))
        if not name.strip():
            raise ValueError("serial name must not be blank: '%s'" % name)
        with self._lock:
            s = self._serials.get(name)
            if s is None:
                s = self._serials[name] = SerialClient(self, name)
            return s

    def stats(self) -> Stats:
        """What the client holds and has done so far."""
        r = self._refill
        return Stats(buffered_ids=len(r.buffer), dropped_ids=r.dropped,
                     ordering_resets=r.ordering_resets, failovers=r.endpoints.failovers)

    @property
    def closed(self) -> bool:
        return self._closed_event.is_set()

    def close(self) -> None:
        """Stops the refill, fails waiting and later callers with :class:`ClientClosed`,
        closes the connections. Idempotent."""
        if self._closed_event.is_set():
            return
        self._closed_event.set()
        self._refill.close()
        self._transport.close()
        self._refill.join(5.0)

    def __enter__(self) -> "IdClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return "IdClient(%s%s)" % ([e.text for e in self._endpoints],
                                   ", closed" if self.closed else "")

    # -------------------------------------------------------------- requests with failover

    def _call(self, endpoints: Endpoints, end: float, what: str, none: str,
              rpc: Callable[[Endpoint, float], _T], usable: Callable[[_T], bool]) -> _T:
        """Calls ``rpc`` on the endpoints in order, failing over as the refill does, until one
        answers with a result ``usable`` accepts or ``end`` (monotonic) passes. A ValueError
        of ``rpc`` (a 404 or 400: the caller's mistake, not the endpoint's) goes up at once."""
        while True:
            if self._closed_event.is_set():
                raise ClientClosed("the IdClient is closed")
            left = end - time.monotonic()
            if left <= 0:
                raise endpoints.unavailable(none, self._deadline)
            e = endpoints.pick()
            if e is None:
                self._closed_event.wait(min(left, endpoints.until_next()))
                continue
            try:
                result = rpc(e, min(left, self._call_timeout))
            except CallFailed as f:
                if self._closed_event.is_set():
                    raise ClientClosed("the IdClient is closed") from None
                endpoints.failed(e, f.text, f.retry_after)
                continue
            if usable(result):
                endpoints.succeeded(e)
                return result
            endpoints.failed(e, "answered " + none)

    def _get_json(self, e: Endpoint, path: str, timeout: float, what: str) -> Any:
        status, resp, body = self._transport.get(e, path, JSON, timeout)
        if status == 404:
            raise ValueError("unknown %s at %s: %s" % (what, e.text, problem_detail(resp, body)))
        if status == 400:
            raise ValueError("%s refused by %s: %s" % (what, e.text, problem_detail(resp, body)))
        if status != 200:
            raise status_failure(status, resp, body)
        try:
            return json.loads(body)
        except ValueError:
            raise CallFailed("bad response: 200 with a body that is not JSON") from None


class SegmentClient:
    """The values of one segment tag, from :meth:`IdClient.segment`: a buffer of
    ``segment_batch`` values refilled on demand, with the client's failover. Values increase
    within what one server hands out; across a failover they are unique but may go back."""

    def __init__(self, client: IdClient, tag: str) -> None:
        self._client = client
        self._tag = tag
        self._endpoints = Endpoints(client._endpoints)
        self._ids: List[int] = []
        self._next = 0
        self._lock = threading.Lock()
        self._path = "/api/v1/segments/%s/ids?count=%d" % (quote(tag, safe=""),
                                                           client._segment_batch)

    @property
    def tag(self) -> str:
        return self._tag

    def next(self) -> int:
        """The tag's next value, from the buffer or, when it is empty, from a server within
        the client's deadline (which starts now, not when the caller's turn comes).

        :raises ValueError: when a server does not know the tag (404) or refuses its name
        :raises IdServiceUnavailable: when no endpoint answered within the deadline
        :raises ClientClosed: when the client is closed
        """
        c = self._client
        end = time.monotonic() + c._deadline
        if not self._lock.acquire(timeout=c._deadline):
            raise self._endpoints.unavailable("no ID of segment tag '%s'" % self._tag,
                                              c._deadline)
        try:
            if c._closed_event.is_set():
                raise ClientClosed("the IdClient is closed")
            if self._next == len(self._ids):
                self._ids = c._call(self._endpoints, end, "segment tag '%s'" % self._tag,
                                    "no ID of segment tag '%s'" % self._tag, self._fetch,
                                    lambda ids: len(ids) > 0)
                self._next = 0
            value = self._ids[self._next]
            self._next += 1
            return value
        finally:
            self._lock.release()

    def _fetch(self, e: Endpoint, timeout: float) -> List[int]:
        doc = self._client._get_json(e, self._path, timeout, "segment tag '%s'" % self._tag)
        ids = doc.get("ids") if isinstance(doc, dict) else None
        if not isinstance(ids, list):
            raise CallFailed("bad response: no 'ids' list")
        try:
            return [_decimal(v) for v in ids]
        except ValueError:
            raise CallFailed("bad response: an ID that is not a decimal number") from None

    def __repr__(self) -> str:
        return "SegmentClient(%r)" % self._tag


class SerialClient:
    """The values of one serial, from :meth:`IdClient.serial`: every call asks a server (one
    request for ``next_many(n)``), with the client's failover; never buffered."""

    def __init__(self, client: IdClient, name: str) -> None:
        self._client = client
        self._name = name
        self._endpoints = Endpoints(client._endpoints)
        self._prefix = "/api/v1/serials/%s?count=" % quote(name, safe="")

    @property
    def name(self) -> str:
        return self._name

    def next(self) -> str:
        """The serial's next value, such as ``INV-20261128-000042``.

        :raises ValueError: when a server does not define the serial (404)
        :raises IdServiceUnavailable: when no endpoint answered within the deadline
        """
        return self.next_many(1)[0]

    def next_many(self, count: int) -> List[str]:
        """The serial's next ``count`` values, in the order one server took them.

        :raises ValueError: when ``count`` is below 1, a server does not define the serial, or
            refuses the count (above its max-count)
        :raises IdServiceUnavailable: when no endpoint answered within the deadline
        """
        count = _int_in("count", count, 1, (1 << 31) - 1, "values")
        c = self._client
        what = "serial '%s'" % self._name
        path = self._prefix + str(count)

        def rpc(e: Endpoint, timeout: float) -> List[str]:
            doc = c._get_json(e, path, timeout, what)
            values = doc.get("values") if isinstance(doc, dict) else None
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise CallFailed("bad response: no 'values' list of strings")
            return values

        return c._call(self._endpoints, time.monotonic() + c._deadline, what,
                       "no value of serial '%s'" % self._name, rpc, lambda v: len(v) > 0)

    def __repr__(self) -> str:
        return "SerialClient(%r)" % self._name


def _decimal(v: object) -> int:
    if isinstance(v, bool):
        raise ValueError(v)
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.isascii() and v.lstrip("-").isdigit():
        return int(v)
    raise ValueError(v)


def _int_in(name: str, value: object, low: int, high: int, unit: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int from %d to %d %s: %r"
                        % (name, low, high, unit, value))
    if value < low or value > high:
        raise ValueError("%s must be %d to %d %s: %d" % (name, low, high, unit, value))
    return value


def _seconds(name: str, value: object) -> float:
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
        shown = "%g ms" % (seconds * 1000)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
        shown = "%r s" % (value,)
    else:
        raise TypeError("%s must be seconds (a number) or a timedelta: %r" % (name, value))
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError("%s must be positive and finite: %s" % (name, shown))
    return seconds
