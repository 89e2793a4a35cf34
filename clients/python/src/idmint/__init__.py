"""idmint: a Python client of idmint servers over HTTP/1.1 (standard library only).

::

    from idmint import IdClient

    with IdClient.connect(["h1:8080", "h2:8080"]) as ids:
        id = ids.next_id()                        # from the local buffer
        order = ids.segment("order").next()       # a dense per-tag sequence
        invoice = ids.serial("invoice").next()    # e.g. INV-20261128-000042, one request

    parts = idmint.decode(id, "snowflake")        # timestamp_ms, datacenter, worker, ...

See docs/clients.md in the idmint repository.
"""

from ._client import IdClient, SegmentClient, SerialClient, Stats
from ._errors import ClientClosed, IdmintError, IdServiceUnavailable
from ._layout import DEFAULT_EPOCH_MS, TWITTER_EPOCH_MS, IdParts, Layout, decode

__version__ = "0.1.0"

__all__ = [
    "IdClient", "SegmentClient", "SerialClient", "Stats",
    "IdmintError", "IdServiceUnavailable", "ClientClosed",
    "Layout", "IdParts", "decode", "DEFAULT_EPOCH_MS", "TWITTER_EPOCH_MS",
    "__version__",
]
