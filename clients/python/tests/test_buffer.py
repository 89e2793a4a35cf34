"""The buffer's ordering, the demand target, and failover arithmetic (no network)."""

from __future__ import annotations

import threading
import time
import unittest
from array import array
from typing import List

from idmint import ClientClosed, IdClient, IdServiceUnavailable
from idmint._client import _Demand
from idmint._endpoints import Endpoints, backoff_seconds, parse_endpoint, retry_after_seconds


def ids(*values: int) -> "array[int]":
    return array("q", values)


class OrderingTest(unittest.TestCase):
    """``_Refill.accept``: what the refill appends, fed responses by hand."""

    def setUp(self) -> None:
        self.client = IdClient.connect(["127.0.0.1:1"], call_timeout=0.05)
        self.refill = self.client._refill

    def tearDown(self) -> None:
        self.client.close()

    def taken(self) -> List[int]:
        return [self.client.next_id() for _ in range(len(self.refill.buffer))]

    def test_lower_ids_are_dropped_and_counted(self) -> None:
        self.refill.accept(ids(10, 11, 12))
        self.refill.accept(ids(5, 6, 7))          # all behind: dropped
        self.refill.accept(ids(11, 12, 13, 14))   # partly behind
        self.refill.accept(ids(20, 21))
        self.assertEqual(self.taken(), [10, 11, 12, 13, 14, 20, 21])
        s = self.client.stats()
        self.assertEqual((s.dropped_ids, s.ordering_resets, s.buffered_ids), (5, 0, 0))

    def test_a_server_behind_for_longer_than_call_timeout_resets_the_order(self) -> None:
        self.refill.accept(ids(1000, 1001))
        self.refill.accept(ids(1, 2))             # behind: dropping starts
        self.refill.accept(ids(3, 4))             # still within call_timeout
        time.sleep(0.06)
        self.refill.accept(ids(5, 6))             # behind for longer: the order starts over
        self.refill.accept(ids(7, 8))
        self.assertEqual(self.taken(), [1000, 1001, 5, 6, 7, 8])
        s = self.client.stats()
        self.assertEqual((s.dropped_ids, s.ordering_resets), (4, 1))

    def test_catching_up_ends_the_dropping(self) -> None:
        self.refill.accept(ids(100))
        self.refill.accept(ids(1, 2))
        self.refill.accept(ids(99, 100, 101))     # catches up: dropping stops
        time.sleep(0.06)
        self.refill.accept(ids(50))               # behind again, but just now
        self.assertEqual(self.taken(), [100, 101])
        self.assertEqual(self.client.stats().ordering_resets, 0)

    def test_takes_across_threads_are_increasing_and_unique(self) -> None:
        start = 1 << 40
        for b in range(50):
            self.refill.accept(array("q", range(start + b * 1000, start + (b + 1) * 1000)))
        got: List[List[int]] = [[] for _ in range(4)]
        order: List[int] = []
        lock = threading.Lock()

        def caller(k: int) -> None:
            for _ in range(12_500):
                with lock:  # records the global order of returns, to check it
                    v = self.client.next_id()
                    order.append(v)
                got[k].append(v)

        threads = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(order, sorted(order))
        self.assertEqual(len(set(order)), 50_000)
        for g in got:
            self.assertEqual(g, sorted(g))

    def test_close_fails_later_and_waiting_callers(self) -> None:
        self.refill.accept(ids(1, 2, 3))
        self.assertEqual(self.client.next_id(), 1)
        self.client.close()
        with self.assertRaises(ClientClosed):
            self.client.next_id()  # buffered IDs are not handed out after close
        with self.assertRaises(ClientClosed):
            self.client.segment("order").next()
        with self.assertRaises(ClientClosed):
            self.client.serial("invoice").next()


class WaitingTest(unittest.TestCase):

    def test_a_waiting_caller_gets_closed(self) -> None:
        client = IdClient.connect(["127.0.0.1:1"], deadline=5)
        errors: List[BaseException] = []

        def wait() -> None:
            try:
                client.next_id()
            except BaseException as e:
                errors.append(e)

        t = threading.Thread(target=wait)
        t.start()
        time.sleep(0.1)
        started = time.monotonic()
        client.close()
        t.join(2)
        self.assertLess(time.monotonic() - started, 1.0)
        self.assertEqual(len(errors), 1)
        self.assertIsInstance(errors[0], ClientClosed)

    def test_the_deadline_bounds_the_wait(self) -> None:
        with IdClient.connect(["127.0.0.1:1"], deadline=0.3) as client:
            started = time.monotonic()
            with self.assertRaises(IdServiceUnavailable) as ctx:
                client.next_id()
            took = time.monotonic() - started
            self.assertGreaterEqual(took, 0.29)
            self.assertLess(took, 0.6)
            self.assertEqual(ctx.exception.failures, {"127.0.0.1:1": "connection refused"})
            self.assertIn("no endpoint gave an ID within 300 ms", str(ctx.exception))


class DemandTest(unittest.TestCase):

    def test_target_follows_the_rate_within_bounds(self) -> None:
        d = _Demand(65_536, now=0.0)
        self.assertEqual(d.target(), 1000)            # idle: one request's worth
        d.observe(5, 0.005)                           # window under 10 ms: not measured
        self.assertEqual(d.rate, 0.0)
        d.observe(200_000, 0.1)                       # 2 M/s: 100 ms is 200 k, capped
        self.assertEqual(d.target(), 65_536)
        d.observe(200_000, 0.2)                       # idle window: down gently
        self.assertAlmostEqual(d.rate, 0.7 * 2_000_000 / 1.0, delta=1)
        for k in range(3, 60):
            d.observe(200_000, k / 10)
        self.assertEqual(d.target(), 1000)
        d.observe(250_000, 6.0)                       # 50 k in 100 ms = 500 k/s: up at once
        self.assertEqual(d.target(), 50_000)
        small = _Demand(1000, now=0.0)
        small.observe(10**9, 1.0)
        self.assertEqual(small.target(), 1000)


class FailoverArithmeticTest(unittest.TestCase):

    def test_backoff_doubles_from_250_ms_up_to_8_s(self) -> None:
        self.assertEqual([backoff_seconds(n) for n in range(0, 10)],
                         [0.25, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0])
        self.assertEqual(backoff_seconds(10_000), 8.0)

    def test_retry_after_is_whole_seconds(self) -> None:
        self.assertEqual(retry_after_seconds("2"), 2)
        self.assertEqual(retry_after_seconds(" 30 "), 30)
        self.assertEqual(retry_after_seconds("0"), 0)
        for bad in (None, "", "-1", "1.5", "soon", "Wed, 21 Oct 2015 07:28:00 GMT"):
            self.assertEqual(retry_after_seconds(bad), 0, bad)

    def test_endpoints_honour_retry_after_and_backoff(self) -> None:
        now = [100.0]
        a, b, c = (parse_endpoint(t, False) for t in ("a:1", "b:1", "c:1"))
        eps = Endpoints([a, b, c], clock=lambda: now[0])
        self.assertIs(eps.pick(), a)
        eps.failed(a, "503: not ready: no lease", retry_after=2)
        self.assertIs(eps.pick(), b)                  # moved on, a waits 2 s
        eps.failed(b, "connection refused")           # b: 250 ms
        eps.failed(c, "timeout: no answer within 1000 ms")  # c: 250 ms
        self.assertIsNone(eps.pick())
        self.assertAlmostEqual(eps.until_next(), 0.25)
        now[0] += 0.25
        self.assertIs(eps.pick(), b)                  # from a on (current): a still waits
        eps.failed(b, "connection refused")           # second in a row: 500 ms
        now[0] += 0.25
        self.assertIs(eps.pick(), c)
        eps.succeeded(c)
        eps.failed(c, "connection reset")             # cleared: 250 ms again, not 500
        self.assertAlmostEqual(eps.until_next(), 0.25)
        now[0] += 0.25
        self.assertIs(eps.pick(), b)                  # b's 500 ms are over; a's 2 s are not
        now[0] += 1.25
        self.assertIs(eps.pick(), b)                  # stays on b while it answers
        self.assertEqual(eps.failures(), {
            "a:1": "503: not ready: no lease (retry after 2 s)",
            "b:1": "connection refused",
            "c:1": "connection reset"})
        self.assertEqual(eps.failovers, 5)

    def test_one_endpoint_never_counts_a_failover(self) -> None:
        now = [0.0]
        a = parse_endpoint("a:1", False)
        eps = Endpoints([a], clock=lambda: now[0])
        eps.failed(a, "connection refused")
        self.assertIsNone(eps.pick())
        now[0] += 0.25
        self.assertIs(eps.pick(), a)
        self.assertEqual(eps.failovers, 0)
        err = eps.unavailable("no endpoint gave an ID", 5.0)
        self.assertEqual(err.failures, {"a:1": "connection refused"})
        self.assertIn("within 5000 ms", str(err))


if __name__ == "__main__":
    unittest.main()
