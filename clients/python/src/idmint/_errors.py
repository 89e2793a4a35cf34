"""The errors of the idmint client.

Bad input (options, endpoints, a layout spec, a segment tag or serial a server does not know)
is a plain :class:`ValueError` naming the value; wrong types are :class:`TypeError`.
"""

from __future__ import annotations

from typing import Dict, Mapping

__all__ = ["IdmintError", "IdServiceUnavailable", "ClientClosed"]


class IdmintError(Exception):
    """Base class of the client's own errors (not of its ``ValueError``/``TypeError``)."""


class IdServiceUnavailable(IdmintError):
    """No endpoint gave what a caller asked for within the client's ``deadline``.

    :attr:`failures` holds each endpoint's last failure, keyed by the endpoint as it was given,
    in the order the client was given them, e.g.
    ``{"127.0.0.1:18081": "503: not ready: no lease (retry after 2 s)",
    "127.0.0.1:18082": "timeout: no answer within 1000 ms",
    "127.0.0.1:18083": "connection refused", "127.0.0.1:18084": "none"}``
    (``"none"`` for an endpoint that has not failed).
    """

    def __init__(self, what: str, deadline_ms: int, failures: Mapping[str, str]) -> None:
        self.failures: Dict[str, str] = dict(failures)
        super().__init__("%s within %d ms; last failure of each endpoint: %s"
                         % (what, deadline_ms, self.failures))


class ClientClosed(IdmintError, RuntimeError):
    """The client is closed: callers waiting when it closed and every later call get this."""
