#!/usr/bin/env python3
"""The idmint Python client's test driver: JSON lines on stdin (commands), JSON lines on stdout
(replies in command order, and events), logs on stderr. See docs/clients.md, "The driver".

Run: ``PYTHONPATH=clients/python/src /usr/bin/python3 clients/python/tests/driver.py``
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from array import array
from datetime import timedelta
from typing import Any, Callable, Dict, List, Optional

import idmint
from idmint import ClientClosed, IdClient, IdServiceUnavailable

_out_lock = threading.Lock()
_SWAP = sys.byteorder == "little"


def emit(obj: Dict[str, Any]) -> None:
    line = json.dumps(obj, separators=(",", ":"))
    with _out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def kind(e: BaseException) -> str:
    if isinstance(e, IdServiceUnavailable):
        return "unavailable"
    if isinstance(e, ClientClosed):
        return "closed"
    if isinstance(e, (ValueError, TypeError)):
        return "invalid-argument"
    return "other"


def error_reply(e: BaseException) -> Dict[str, Any]:
    reply: Dict[str, Any] = {"ok": False, "error": kind(e), "message": str(e)}
    if isinstance(e, IdServiceUnavailable):
        reply["failures"] = e.failures
    return reply


def stats_of(client: IdClient) -> Dict[str, int]:
    s = client.stats()
    return {"bufferedIds": s.buffered_ids, "droppedIds": s.dropped_ids,
            "orderingResets": s.ordering_resets, "failovers": s.failovers}


def count_of(cmd: Dict[str, Any], key: str = "count") -> int:
    n = cmd.get(key)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError("%s must be a whole number >= 0: %r" % (key, n))
    return n


class Draw:
    """``callers`` threads each taking ``per_caller`` IDs, stopping at the gates."""

    def __init__(self, client: IdClient, callers: int, per_caller: int, gates: List[int],
                 out: str) -> None:
        self.client = client
        self.callers = callers
        self.per_caller = per_caller
        self.gates = gates
        self.out = out
        self.opened = [threading.Event() for _ in gates]
        self.arrived = [0] * len(gates)
        self.lock = threading.Lock()
        self.counts = [0] * callers
        self.errors: List[Optional[str]] = [None] * callers
        self.threads = [threading.Thread(target=self.caller, args=(k,), daemon=True,
                                         name="draw-caller-%d" % k) for k in range(callers)]
        self.finisher = threading.Thread(target=self.finish, daemon=True, name="draw-finish")

    def start(self) -> None:
        for t in self.threads:
            t.start()
        self.finisher.start()

    def arrive(self, gate: int) -> None:
        with self.lock:
            self.arrived[gate] += 1
            if self.arrived[gate] == self.callers:
                emit({"event": "gate", "gate": gate})

    def open(self, gate: int) -> None:
        self.opened[gate].set()

    def release_all(self) -> None:
        for e in self.opened:
            e.set()

    def caller(self, k: int) -> None:
        per = self.per_caller
        ids = array("q", bytes(8 * per))
        take = self.client.next_id
        taken = 0
        gate = 0
        try:
            try:
                # Up to each gate, waiting there until it opens; then up to per.
                for gate, g in enumerate(list(self.gates) + [per]):
                    stop = min(max(g, taken), per)
                    j = taken
                    try:
                        for j in range(taken, stop):
                            ids[j] = take()
                    except BaseException:
                        taken = j
                        raise
                    taken = stop
                    if gate < len(self.gates):
                        self.arrive(gate)
                        self.opened[gate].wait()
            except Exception as e:
                self.errors[k] = "%s: %s" % (kind(e), e)
                # A caller that stopped waits at no gate: the others need not wait for it.
                for g in range(gate, len(self.gates)):
                    self.arrive(g)
        finally:
            self.counts[k] = taken
            mine = ids[:taken]
            if _SWAP:
                mine.byteswap()
            try:
                with open(os.path.join(self.out, "caller-%d.bin" % k), "wb") as f:
                    mine.tofile(f)
            except OSError as e:
                if self.errors[k] is None:
                    self.errors[k] = "other: cannot write IDs: %s" % e

    def finish(self) -> None:
        for t in self.threads:
            t.join()
        emit({"event": "drawn", "counts": self.counts,
              "errors": [e for e in self.errors if e is not None],
              "stats": stats_of(self.client)})

    def join(self, timeout: float) -> None:
        self.finisher.join(timeout)


class Driver:
    def __init__(self) -> None:
        self.client: Optional[IdClient] = None
        self.draw: Optional[Draw] = None
        self.after: Optional[Callable[[], None]] = None

    def need_client(self) -> IdClient:
        if self.client is None:
            raise ClientClosed("no client: send connect first")
        return self.client

    def handle(self, cmd: Dict[str, Any]) -> Dict[str, Any]:
        op = cmd.get("op")
        if op == "connect":
            if self.client is not None:
                raise ValueError("a client is connected already: close it first")
            opts: Dict[str, Any] = {}
            for key, name in (("bufferSize", "buffer_size"), ("segmentBatch", "segment_batch"),
                              ("maxBatch", "max_batch"), ("caFile", "ca_file"),
                              ("certFile", "cert_file"), ("keyFile", "key_file"),
                              ("token", "token")):
                if cmd.get(key) is not None:
                    opts[name] = cmd[key]
            for key, name in (("deadlineMs", "deadline"), ("callTimeoutMs", "call_timeout")):
                if cmd.get(key) is not None:
                    ms = cmd[key]
                    if isinstance(ms, bool) or not isinstance(ms, (int, float)):
                        raise ValueError("%s must be a number of milliseconds: %r" % (key, ms))
                    opts[name] = timedelta(milliseconds=ms)
            endpoints = cmd.get("endpoints")
            if not isinstance(endpoints, list):
                raise ValueError("endpoints must be a list: %r" % (endpoints,))
            self.client = IdClient.connect(endpoints, **opts)
            return {"ok": True}
        if op == "next":
            n = count_of(cmd)
            take = self.need_client().next_id
            return {"ok": True, "ids": [str(take()) for _ in range(n)]}
        if op == "segment":
            n = count_of(cmd)
            seg = self.need_client().segment(cmd.get("tag"))  # type: ignore[arg-type]
            return {"ok": True, "values": [str(seg.next()) for _ in range(n)]}
        if op == "serial":
            n = cmd.get("count", 1)
            serial = self.need_client().serial(cmd.get("name"))  # type: ignore[arg-type]
            return {"ok": True, "values": serial.next_many(n)}
        if op == "decode":
            id_text = cmd.get("id")
            layout = cmd.get("layout", "snowflake")
            if not isinstance(id_text, (str, int)) or isinstance(id_text, bool):
                raise ValueError("id must be a decimal string: %r" % (id_text,))
            if not isinstance(layout, str):
                raise ValueError("layout must be a string: %r" % (layout,))
            p = idmint.decode(id_text, layout)
            return {"ok": True, "timestampMs": p.timestamp_ms, "datacenter": p.datacenter,
                    "worker": p.worker, "shard": p.shard, "sequence": p.sequence}
        if op == "stats":
            return dict({"ok": True}, **stats_of(self.need_client()))
        if op == "draw":
            client = self.need_client()
            callers = count_of(cmd, "callers")
            per = count_of(cmd, "perCaller")
            gates = cmd.get("gates") or []
            if not isinstance(gates, list) or not all(
                    isinstance(g, int) and not isinstance(g, bool) and g >= 0 for g in gates):
                raise ValueError("gates must be a list of whole numbers: %r" % (gates,))
            out = cmd.get("out")
            if not isinstance(out, str) or not out:
                raise ValueError("out must be a directory: %r" % (out,))
            os.makedirs(out, exist_ok=True)
            self.draw = Draw(client, callers, per, gates, out)
            self.after = self.draw.start  # once the reply is out: events come after it
            return {"ok": True}
        if op == "open":
            gate = cmd.get("gate")
            d = self.draw
            if d is None or not isinstance(gate, int) or not 0 <= gate < len(d.gates):
                raise ValueError("no gate %r to open" % (gate,))
            d.open(gate)
            return {"ok": True}
        if op == "close":
            if self.client is not None:
                self.client.close()
                self.client = None
            return {"ok": True}
        raise ValueError("unknown op %r" % (op,))

    def shutdown(self) -> None:
        if self.draw is not None:
            self.draw.release_all()
        if self.client is not None:
            self.client.close()
        if self.draw is not None:
            self.draw.join(10.0)


def main() -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="driver: %(levelname)s %(name)s: %(message)s")
    driver = Driver()
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        if not line.strip():
            continue
        try:
            cmd = json.loads(line)
            if not isinstance(cmd, dict):
                raise ValueError("a command is a JSON object: %s" % line.strip())
            reply = driver.handle(cmd)
        except Exception as e:  # every command gets a reply
            reply = error_reply(e)
        emit(reply)
        if driver.after is not None:
            after, driver.after = driver.after, None
            after()
    driver.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
