"""The client against scripted in-process HTTP servers: failover, deadline, auth, segments,
serials, ordering across a failover."""

from __future__ import annotations

import threading
import time
import unittest
from typing import Any, Callable, Dict, List

import scripted
from scripted import IdSource, Request, Server, Silent, as_json, problem, refused_address

from idmint import IdClient, IdServiceUnavailable

NOT_READY = problem(503, "Service unavailable", "not ready: no lease", retry_after=2)


class ServerTestCase(unittest.TestCase):

    def setUp(self) -> None:
        self.closers: List[Callable[[], Any]] = []

    def tearDown(self) -> None:
        for close in reversed(self.closers):
            close()

    def server(self, script: Callable[[Request], scripted.Reply], **kw: Any) -> Server:
        s = Server(script, **kw)
        self.closers.append(s.close)
        return s

    def silent(self) -> Silent:
        s = Silent()
        self.closers.append(s.close)
        return s

    def client(self, endpoints: List[str], **opts: Any) -> IdClient:
        c = IdClient.connect(endpoints, **opts)
        self.closers.append(c.close)
        return c


class FailoverTest(ServerTestCase):

    def test_failover_on_503_honours_retry_after(self) -> None:
        a = self.server(lambda r: NOT_READY)
        b = self.server(lambda r: problem(503, "Service unavailable", "lease lost"))
        ids = self.client([a.address, b.address], deadline=1.2)
        started = time.monotonic()
        with self.assertRaises(IdServiceUnavailable) as ctx:
            ids.next_id()
        self.assertGreaterEqual(time.monotonic() - started, 1.15)
        # a said "retry after 2 s": asked once. b has only its backoff: 0, 0.25, 0.75 s.
        self.assertEqual(a.count(), 1)
        self.assertIn(b.count(), (2, 3, 4))
        self.assertEqual(ctx.exception.failures, {
            a.address: "503: not ready: no lease (retry after 2 s)",
            b.address: "503: lease lost"})
        # a -> b, then each failure of b moves on to a (avoided), and back to b.
        self.assertEqual(ids.stats().failovers, 1 + b.count())

    def test_failover_on_503_to_a_server_that_answers(self) -> None:
        a = self.server(lambda r: NOT_READY)
        b = self.server(IdSource(5000))
        ids = self.client([a.address, b.address])
        self.assertEqual([ids.next_id() for _ in range(3)], [5000, 5001, 5002])
        self.assertEqual(ids.stats().failovers, 1)
        self.assertEqual(a.count(), 1)

    def test_failover_on_a_refused_connection(self) -> None:
        b = self.server(IdSource(7))
        ids = self.client([refused_address(), b.address])
        self.assertEqual(ids.next_id(), 7)
        self.assertEqual(ids.stats().failovers, 1)

    def test_failover_on_silence_within_call_timeout(self) -> None:
        silent = self.silent()
        b = self.server(IdSource(42))
        ids = self.client([silent.address, b.address], call_timeout=0.2)
        started = time.monotonic()
        self.assertEqual(ids.next_id(), 42)
        took = time.monotonic() - started
        self.assertGreaterEqual(took, 0.19)
        self.assertLess(took, 0.6)
        self.assertEqual(ids.stats().failovers, 1)

    def test_a_server_that_trickles_its_answer_is_left_within_call_timeout(self) -> None:
        trickle = scripted.Trickle(0.02)
        self.closers.append(trickle.close)
        b = self.server(IdSource(42))
        ids = self.client([trickle.address, b.address], call_timeout=0.3)
        started = time.monotonic()
        self.assertEqual(ids.next_id(), 42)
        took = time.monotonic() - started
        # 800 bytes at one per 20 ms would take 16 s; each read alone stays within 20 ms.
        self.assertGreaterEqual(took, 0.29)
        self.assertLess(took, 1.0)
        self.assertEqual(ids.stats().failovers, 1)

    def test_the_deadline_error_lists_every_endpoints_failure(self) -> None:
        a = self.server(lambda r: NOT_READY)
        silent, last = self.silent(), self.silent()
        refused = refused_address()
        ids = self.client([a.address, silent.address, refused, last.address], deadline=0.6,
                          call_timeout=0.4)
        started = time.monotonic()
        with self.assertRaises(IdServiceUnavailable) as ctx:
            ids.next_id()
        self.assertLess(time.monotonic() - started, 0.9)
        # The last endpoint is being asked when the deadline passes: it has not failed yet.
        self.assertEqual(ctx.exception.failures, {
            a.address: "503: not ready: no lease (retry after 2 s)",
            silent.address: "timeout: no answer within 400 ms",
            refused: "connection refused",
            last.address: "none"})
        self.assertEqual(list(ctx.exception.failures),
                         [a.address, silent.address, refused, last.address])
        self.assertIn("no endpoint gave an ID within 600 ms", str(ctx.exception))

    def test_buffered_ids_are_handed_out_while_servers_fail(self) -> None:
        served = [0]

        def once(r: Request) -> scripted.Reply:
            served[0] += 1
            return scripted.id64(list(range(1, 1001))) if served[0] == 1 else NOT_READY

        a = self.server(once)
        ids = self.client([a.address], deadline=0.3)
        got = [ids.next_id() for _ in range(1000)]
        self.assertEqual(got, list(range(1, 1001)))
        with self.assertRaises(IdServiceUnavailable):
            ids.next_id()

    def test_a_keep_alive_connection_the_server_closed_is_not_a_failure(self) -> None:
        a = self.server(IdSource(1), close_after_each=True)
        ids = self.client([a.address], max_batch=1000)
        got = [ids.next_id() for _ in range(5000)]
        self.assertEqual(got, list(range(1, 5001)))
        self.assertEqual(ids.stats().failovers, 0)
        self.assertEqual(ids._refill.endpoints.failures(), {a.address: "none"})


class OrderingAcrossFailoverTest(ServerTestCase):

    def test_ids_increase_across_a_failover_to_a_server_whose_ids_are_lower(self) -> None:
        served = [0]

        def high_then_down(r: Request) -> scripted.Reply:
            served[0] += 1
            if served[0] == 1:
                return scripted.id64(list(range(1_000_000, 1_000_000 + r.count)))
            return problem(503, "Service unavailable", "lease lost", retry_after=30)

        a = self.server(high_then_down)
        b = self.server(IdSource(1_000_000 - 2500))   # behind, and catching up
        ids = self.client([a.address, b.address], max_batch=1000)
        got = [ids.next_id() for _ in range(3000)]
        self.assertEqual(got, sorted(set(got)))
        self.assertEqual(got[0], 1_000_000)
        s = ids.stats()
        self.assertEqual(s.ordering_resets, 0)
        self.assertEqual(s.failovers, 1)
        self.assertEqual(s.dropped_ids, 3500)  # b's IDs up to 1_000_999, the last of a's

    def test_a_server_behind_for_longer_than_call_timeout_resets_the_order_once(self) -> None:
        served = [0]

        def high_then_down(r: Request) -> scripted.Reply:
            served[0] += 1
            if served[0] == 1:
                return scripted.id64(list(range(1 << 50, (1 << 50) + r.count)))
            return problem(503, "Service unavailable", "lease lost", retry_after=30)

        a = self.server(high_then_down)
        b = self.server(IdSource(10))               # far behind: a clock that is wrong
        ids = self.client([a.address, b.address], max_batch=1000, call_timeout=0.1)
        got = [ids.next_id() for _ in range(1500)]
        self.assertEqual(got[:1000], list(range(1 << 50, (1 << 50) + 1000)))
        tail = got[1000:]
        self.assertEqual(tail, sorted(set(tail)))
        self.assertLess(tail[0], 1 << 50)
        s = ids.stats()
        self.assertEqual(s.ordering_resets, 1)
        self.assertGreater(s.dropped_ids, 0)


class AuthTest(ServerTestCase):

    def test_the_token_is_sent_as_bearer_on_every_request(self) -> None:
        source = IdSource(1)

        def script(r: Request) -> scripted.Reply:
            if r.route.startswith("/api/v1/segments/"):
                return as_json({"tag": "order", "ids": ["1", "2"]})
            if r.route.startswith("/api/v1/serials/"):
                return as_json({"serial": "inv", "values": ["INV-1"]})
            return source(r)

        a = self.server(script)
        ids = self.client([a.address], token="s3cret")
        ids.next_id()
        ids.segment("order").next()
        ids.serial("inv").next()
        self.assertEqual({r.headers.get("authorization") for r in a.requests},
                         {"Bearer s3cret"})
        self.assertEqual({r.route for r in a.requests},
                         {"/v1/ids", "/api/v1/segments/order/ids", "/api/v1/serials/inv"})
        self.assertEqual(a.requests[0].headers.get("accept"), "application/vnd.idmint.id64")


class SegmentTest(ServerTestCase):

    def test_unknown_tag_is_a_value_error_naming_tag_and_server_without_failover(self) -> None:
        a = self.server(lambda r: problem(
            404, "Unknown segment tag", "segment tag 'order' does not exist"))
        b = self.server(lambda r: as_json({"tag": "order", "ids": ["1"]}))
        ids = self.client([a.address, b.address])
        with self.assertRaises(ValueError) as ctx:
            ids.segment("order").next()
        self.assertIn("unknown segment tag 'order' at %s" % a.address, str(ctx.exception))
        self.assertEqual(b.count(), 0)

    def test_values_are_buffered_per_tag_and_fail_over(self) -> None:
        counters: Dict[str, int] = {}

        def script(r: Request) -> scripted.Reply:
            tag = r.route.split("/")[4]
            start = counters.setdefault(tag, 1000 if tag == "order" else 1)
            counters[tag] = start + r.count
            return as_json({"tag": tag, "ids": [str(v) for v in range(start, start + r.count)]})

        a = self.server(lambda r: NOT_READY)
        b = self.server(script)
        ids = self.client([a.address, b.address], segment_batch=3)
        order = ids.segment("order")
        self.assertIs(ids.segment("order"), order)
        self.assertEqual([order.next() for _ in range(7)], list(range(1000, 1007)))
        self.assertEqual(ids.segment("a b/c").next(), 1)
        self.assertEqual(b.count("/api/v1/segments/order/ids"), 3)   # 3 values a request
        self.assertEqual(b.count("/api/v1/segments/a%20b%2Fc/ids"), 1)
        self.assertEqual(a.count(), 2)  # once per tag, then avoided for 2 s
        self.assertEqual(b.requests[0].query["count"], "3")

    def test_an_empty_answer_counts_as_failed(self) -> None:
        a = self.server(lambda r: as_json({"tag": "t", "ids": []}))
        ids = self.client([a.address], deadline=0.4)
        with self.assertRaises(IdServiceUnavailable) as ctx:
            ids.segment("t").next()
        self.assertEqual(ctx.exception.failures,
                         {a.address: "answered no ID of segment tag 't'"})


class SerialTest(ServerTestCase):

    def test_one_request_per_call_never_buffered(self) -> None:
        n = [0]

        def script(r: Request) -> scripted.Reply:
            values = ["INV-%06d" % (n[0] + i) for i in range(1, r.count + 1)]
            n[0] += r.count
            return as_json({"serial": "invoice", "values": values})

        a = self.server(script)
        ids = self.client([a.address])
        inv = ids.serial("invoice")
        self.assertEqual(inv.next(), "INV-000001")
        self.assertEqual(inv.next_many(3), ["INV-000002", "INV-000003", "INV-000004"])
        self.assertEqual(inv.next(), "INV-000005")
        self.assertEqual([r.query["count"] for r in a.requests], ["1", "3", "1"])
        with self.assertRaises(ValueError):
            inv.next_many(0)

    def test_unknown_serial_is_a_value_error(self) -> None:
        a = self.server(lambda r: problem(404, "Unknown serial", "serial 'x' is not defined"))
        ids = self.client([a.address])
        with self.assertRaisesRegex(ValueError, "unknown serial 'x' at %s" % a.address):
            ids.serial("x").next()


class TlsTest(ServerTestCase):

    def test_https_trusting_a_ca_file(self) -> None:
        a = self.server(IdSource(11), tls=scripted.server_tls())
        for endpoint in (a.address, "https://" + a.address, "https://localhost:%d" % a.port):
            ids = self.client([endpoint], ca_file=scripted.tls_file("ca.pem"), token="t")
            self.assertGreater(ids.next_id(), 10)
            ids.close()

    def test_an_untrusted_server_is_a_tls_failure(self) -> None:
        a = self.server(IdSource(1), tls=scripted.server_tls())
        ids = self.client([a.address], tls=True, deadline=0.3)  # system CAs only
        with self.assertRaises(IdServiceUnavailable) as ctx:
            ids.next_id()
        self.assertRegex(ctx.exception.failures[a.address], "^tls: .*certificate verify failed")

    def test_mutual_tls(self) -> None:
        a = self.server(IdSource(1), tls=scripted.server_tls(require_client_certificate=True))
        ids = self.client([a.address], ca_file=scripted.tls_file("ca.pem"),
                          cert_file=scripted.tls_file("client.pem"),
                          key_file=scripted.tls_file("client-key.pem"))
        self.assertEqual(ids.next_id(), 1)
        anonymous = self.client([a.address], ca_file=scripted.tls_file("ca.pem"),
                                deadline=0.3)
        with self.assertRaises(IdServiceUnavailable) as ctx:
            anonymous.next_id()
        # TLS 1.3: the server's refusal comes after the handshake, as an alert or a reset.
        self.assertRegex(ctx.exception.failures[a.address], "^(tls: |connection )")


class ConcurrencyTest(ServerTestCase):

    def test_many_threads_take_unique_increasing_ids(self) -> None:
        a = self.server(IdSource(1))
        ids = self.client([a.address])
        got: List[List[int]] = [[] for _ in range(4)]

        def caller(k: int) -> None:
            take = ids.next_id
            got[k] = [take() for _ in range(50_000)]

        threads = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        every = [v for g in got for v in g]
        self.assertEqual(len(set(every)), 200_000)
        for g in got:
            self.assertEqual(g, sorted(g))


if __name__ == "__main__":
    unittest.main()
