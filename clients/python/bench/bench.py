#!/usr/bin/env python3
"""Benchmark of the idmint Python client against one running ``idmint serve``.

Run: ``PYTHONPATH=clients/python/src /usr/bin/python3 clients/python/bench/bench.py
http://127.0.0.1:PORT [--seconds 3]``

Measures in one run, and prints one JSON line:

(a) ``client_ids_per_s``: ``next_id()`` from one caller (the main thread; the client's refill
    thread fetches meanwhile and shares the GIL with it), over ``--seconds`` after a warm-up;
(b) ``raw_ids_per_s``: the same requests (``GET /v1/ids?count=MAX_BATCH``, id64) fetched one
    after the other over one keep-alive ``http.client`` connection and decoded into an
    ``array('q')`` (frombytes + byteswap), no client, one thread;
(c) ``take_p50_us``/``take_p99_us``/``take_p999_us``: single ``next_id()`` calls each timed
    with ``time.perf_counter_ns()`` while the buffer is warm (each sample includes one clock
    read: ``clock_p50_us`` is the cost of two back-to-back reads, the clock's own overhead).

The two throughput phases run twice, alternating (raw, client, raw, client), and the better
of each is reported, so that neither gains from running second.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import time
from array import array
from typing import Dict, List
from urllib.parse import urlsplit

from idmint import IdClient

ID64 = "application/vnd.idmint.id64"


def raw_rate(host: str, port: int, batch: int, seconds: float) -> float:
    conn = http.client.HTTPConnection(host, port, timeout=5)
    headers = {"Accept": ID64}
    path = "/v1/ids?count=%d" % batch
    swap = sys.byteorder == "little"
    n = 0
    last = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        body = resp.read()
        if resp.status != 200:
            raise SystemExit("raw: %d %s" % (resp.status, body[:200]))
        ids = array("q")
        ids.frombytes(body)
        if swap:
            ids.byteswap()
        if ids[0] <= last:
            pass  # the raw loop does not order; the client does
        last = ids[-1]
        n += len(ids)
        now = time.perf_counter()
        if now >= end:
            conn.close()
            return n / (now - start)


def client_rate(ids: IdClient, seconds: float, warmup: float) -> float:
    take = ids.next_id
    chunk = range(10_000)
    end = time.perf_counter() + warmup
    while time.perf_counter() < end:
        for _ in chunk:
            take()
    n = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        for _ in chunk:
            take()
        n += 10_000
        now = time.perf_counter()
        if now >= end:
            return n / (now - start)


def percentile(sorted_ns: List[int], q: float) -> float:
    i = min(len(sorted_ns) - 1, int(q * len(sorted_ns)))
    return sorted_ns[i] / 1000.0


def take_latency(ids: IdClient, samples: int) -> Dict[str, float]:
    take = ids.next_id
    clock = time.perf_counter_ns
    got: List[int] = []
    chunk = 500
    deadline = time.monotonic() + 60
    while len(got) < samples and time.monotonic() < deadline:
        # Time takes only while the buffer holds more than a chunk: a take that would wait
        # for the refill is not a buffered take.
        if ids.stats().buffered_ids < 2 * chunk:
            take()  # wakes the refill if it is empty
            time.sleep(0.002)
            continue
        times = [0] * chunk
        for i in range(chunk):
            t0 = clock()
            take()
            times[i] = clock() - t0
        got.extend(times)
        time.sleep(0.0005)  # a caller that does something else between takes
    clock_samples = []
    for _ in range(100_000):
        t0 = clock()
        clock_samples.append(clock() - t0)
    got.sort()
    clock_samples.sort()
    return {"take_p50_us": percentile(got, 0.5), "take_p99_us": percentile(got, 0.99),
            "take_p999_us": percentile(got, 0.999), "take_samples": len(got),
            "clock_p50_us": percentile(clock_samples, 0.5)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("endpoint", help="http://host:port of a running idmint serve")
    p.add_argument("--seconds", type=float, default=3.0, help="seconds per measured phase")
    p.add_argument("--warmup", type=float, default=1.0, help="client warm-up seconds")
    p.add_argument("--max-batch", type=int, default=10_000, help="IDs per request")
    p.add_argument("--samples", type=int, default=200_000, help="timed single takes")
    args = p.parse_args()
    u = urlsplit(args.endpoint if "://" in args.endpoint else "http://" + args.endpoint)
    host, port = u.hostname or "127.0.0.1", u.port or 80

    raw_best = 0.0
    client_best = 0.0
    with IdClient.connect([args.endpoint], max_batch=args.max_batch) as ids:
        for _ in range(2):
            raw_best = max(raw_best, raw_rate(host, port, args.max_batch, args.seconds))
            client_best = max(client_best, client_rate(ids, args.seconds, args.warmup))
        stats = ids.stats()
    with IdClient.connect([args.endpoint], max_batch=args.max_batch) as ids:
        ids.next_id()
        lat = take_latency(ids, args.samples)
    out = {"lang": "python", "client_ids_per_s": round(client_best),
           "raw_ids_per_s": round(raw_best), "ratio": round(client_best / raw_best, 3)}
    out.update({k: round(v, 3) if isinstance(v, float) else v for k, v in lat.items()})
    out["python"] = sys.version.split()[0]
    out["dropped_ids"] = stats.dropped_ids
    print(json.dumps(out))


if __name__ == "__main__":
    main()
