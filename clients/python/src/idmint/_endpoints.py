"""Endpoints: parsing the addresses a client is given, and failover among them.

:class:`Endpoints` is the state of one user of the servers (the ID refill, one segment tag,
one serial): it stays on one endpoint while it answers and moves to the next in order when it
fails. A failed endpoint is not asked again before its ``Retry-After`` (whole seconds) or,
without one, a backoff of 250 ms doubling with each failure in a row up to 8 s; one good
answer clears it.
"""

from __future__ import annotations

import ipaddress
import re
import threading
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

from ._errors import IdServiceUnavailable

__all__ = ["Endpoint", "parse_endpoint", "is_loopback", "Endpoints", "backoff_seconds",
           "retry_after_seconds", "FIRST_BACKOFF_S", "MAX_BACKOFF_S"]

FIRST_BACKOFF_S = 0.25
MAX_BACKOFF_S = 8.0

_ADDRESS = re.compile(r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?"
                      r"(?P<host>\[[^\]/]*\]|[^:/\[\]?#@\s]*)"
                      r"(?::(?P<port>[^/?#]*))?(?P<rest>.*)\Z", re.DOTALL)


@dataclass(frozen=True)
class Endpoint:
    """One server: ``text`` as the caller wrote it, and where it points."""

    text: str
    scheme: str
    host: str
    port: int

    @property
    def tls(self) -> bool:
        return self.scheme == "https"

    def __str__(self) -> str:
        return self.text


def parse_endpoint(text: object, tls: bool) -> Endpoint:
    """Parses ``host:port``, ``http://host:port`` or ``https://host:port`` (IPv6 in brackets).

    A bare ``host:port`` is https when ``tls``, else http. A lone trailing ``/`` is allowed;
    any other path, a query, user info, a missing or out-of-range port, or another scheme is
    refused.

    :raises ValueError: naming ``text``
    """
    if not isinstance(text, str):
        raise TypeError("endpoint must be a str such as 'host:8080', got %r" % (text,))
    m = _ADDRESS.match(text)

    def bad(why: str) -> ValueError:
        return ValueError("malformed endpoint '%s': %s; expected host:port, http://host:port "
                          "or https://host:port" % (text, why))

    if not text.strip():
        raise bad("blank")
    if text != text.strip():
        raise bad("surrounding whitespace")
    if m is None:
        raise bad("not an address")
    scheme = (m.group("scheme") or "").lower()
    if scheme not in ("", "http", "https"):
        raise bad("unknown scheme '%s'" % m.group("scheme"))
    if "@" in text:
        raise bad("user info is not allowed")
    host = m.group("host")
    if not host and text.count(":") > 2:
        raise bad("an IPv6 address needs brackets, as in [::1]:8080")
    if not host or host == "[]":
        raise bad("no host")
    bracketed = host.startswith("[")
    if bracketed:
        inner = host[1:-1]
        try:
            ipaddress.IPv6Address(inner.split("%", 1)[0])
        except ValueError:
            raise bad("'%s' is not an IPv6 address" % inner) from None
        host = inner
    port_text = m.group("port")
    rest = m.group("rest")
    if port_text is None:
        if not bracketed and (rest.startswith(":") or ":" in host):
            raise bad("an IPv6 address needs brackets, as in [::1]:8080")
        raise bad("no port")
    if rest not in ("", "/"):
        raise bad("a path, query or anything after the port ('%s') is not allowed" % rest)
    if not port_text.isascii() or not port_text.isdigit():
        raise bad("port '%s' is not a number" % port_text)
    port = int(port_text)
    if port < 1 or port > 65535:
        raise bad("port %d is out of range 1..65535" % port)
    if not scheme:
        scheme = "https" if tls else "http"
    return Endpoint(text=text, scheme=scheme, host=host, port=port)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine: ``localhost``, ``127.x.x.x`` or ``::1``."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def backoff_seconds(failures_in_row: int) -> float:
    """The wait after ``failures_in_row`` failures in a row: 0.25 s, doubling up to 8 s."""
    return min(MAX_BACKOFF_S, FIRST_BACKOFF_S * (1 << min(max(failures_in_row, 1) - 1, 6)))


def retry_after_seconds(value: Optional[str]) -> int:
    """The whole seconds of a ``Retry-After`` header; 0 when absent or not a number."""
    if value is None:
        return 0
    value = value.strip()
    if not value.isascii() or not value.isdigit():
        return 0
    return int(value)


class _Health:
    __slots__ = ("failures", "avoid_until", "last_failure")

    def __init__(self, now: float) -> None:
        self.failures = 0
        self.avoid_until = now
        self.last_failure = "none"


class Endpoints:
    """Which of the client's servers one user should ask now (see the module docstring).

    ``clock`` is :func:`time.monotonic` unless a test gives another.
    """

    def __init__(self, all: Sequence[Endpoint], clock: Callable[[], float] = time.monotonic):
        self._all: List[Endpoint] = list(all)
        self._clock = clock
        now = clock()
        self._health: List[_Health] = [_Health(now) for _ in self._all]
        self._index: Dict[Endpoint, int] = {e: i for i, e in enumerate(self._all)}
        self._current = 0
        self._failovers = 0
        self._lock = threading.Lock()

    @property
    def all(self) -> List[Endpoint]:
        return list(self._all)

    def pick(self) -> Optional[Endpoint]:
        """The current endpoint unless it is avoided, else the next that is not; None when
        every endpoint is being avoided."""
        with self._lock:
            now = self._clock()
            n = len(self._all)
            for k in range(n):
                i = (self._current + k) % n
                if now >= self._health[i].avoid_until:
                    self._current = i
                    return self._all[i]
            return None

    def until_next(self) -> float:
        """Seconds until some endpoint may be asked again (0 when one may be now)."""
        with self._lock:
            now = self._clock()
            return min(max(0.0, h.avoid_until - now) for h in self._health)

    def succeeded(self, e: Endpoint) -> None:
        """``e`` answered: its backoff starts over (its last failure stays on record)."""
        self._health[self._index[e]].failures = 0

    def failed(self, e: Endpoint, text: str, retry_after: int = 0) -> None:
        """``e`` failed (``text`` says how): it is avoided for ``retry_after`` seconds when
        given (> 0), else for its backoff, and the next endpoint becomes the current one."""
        with self._lock:
            i = self._index[e]
            h = self._health[i]
            h.failures += 1
            wait = float(retry_after) if retry_after > 0 else backoff_seconds(h.failures)
            h.avoid_until = self._clock() + wait
            h.last_failure = text + (" (retry after %d s)" % retry_after
                                     if retry_after > 0 else "")
            if self._current == i and len(self._all) > 1:
                self._current = (i + 1) % len(self._all)
                self._failovers += 1

    @property
    def failovers(self) -> int:
        """How many times a failure moved this user to the next endpoint."""
        return self._failovers

    def failures(self) -> Dict[str, str]:
        """Each endpoint's last failure, by the endpoint as given, in the given order."""
        with self._lock:
            return {e.text: h.last_failure for e, h in zip(self._all, self._health)}

    def unavailable(self, what: str, deadline_s: float) -> IdServiceUnavailable:
        """The error for a caller that got ``what`` within ``deadline_s``."""
        return IdServiceUnavailable(what, round(deadline_s * 1000), self.failures())
