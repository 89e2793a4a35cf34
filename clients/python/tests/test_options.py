"""Options, endpoints and the token rule: every bad value is refused naming it."""

from __future__ import annotations

import os
import tempfile
import unittest
from datetime import timedelta

import idmint
from idmint import IdClient
from idmint._endpoints import is_loopback, parse_endpoint


class OptionsTest(unittest.TestCase):

    def refused(self, needle: str, exc: type = ValueError, **opts: object) -> None:
        with self.assertRaises(exc) as ctx:
            IdClient.connect(["127.0.0.1:8080"], **opts)  # type: ignore[arg-type]
        self.assertIn(needle, str(ctx.exception))

    def test_defaults_connect_without_dialling(self) -> None:
        with IdClient.connect(["127.0.0.1:1"]) as ids:
            self.assertEqual(ids._deadline, 5.0)
            self.assertEqual(ids._call_timeout, 1.0)
            self.assertEqual(ids._segment_batch, 100)
            self.assertEqual(ids._refill.max_batch, 10_000)
            self.assertEqual(ids._refill.demand.capacity, 65_536)
            self.assertIsNone(ids._refill.thread)  # nothing dialled before the first next_id
            self.assertEqual(ids.stats(), idmint.Stats(0, 0, 0, 0))

    def test_bounds_are_accepted(self) -> None:
        for opts in ({"buffer_size": 1000}, {"buffer_size": 16_777_216},
                     {"segment_batch": 1}, {"segment_batch": 10_000},
                     {"max_batch": 1}, {"max_batch": 10_000},
                     {"deadline": timedelta(milliseconds=1)}, {"deadline": 0.5},
                     {"call_timeout": 2}):
            IdClient.connect("127.0.0.1:1", **opts).close()  # type: ignore[arg-type]

    def test_bad_values_are_refused_naming_them(self) -> None:
        self.refused("buffer_size must be 1000 to 16777216 IDs: 999", buffer_size=999)
        self.refused("buffer_size must be 1000 to 16777216 IDs: 16777217",
                     buffer_size=16_777_217)
        self.refused("segment_batch must be 1 to 10000 IDs: 0", segment_batch=0)
        self.refused("segment_batch must be 1 to 10000 IDs: 10001", segment_batch=10_001)
        self.refused("max_batch must be 1 to 10000 IDs: 0", max_batch=0)
        self.refused("max_batch must be 1 to 10000 IDs: 10001", max_batch=10_001)
        self.refused("deadline must be positive and finite: 0 s", deadline=0)
        self.refused("deadline must be positive and finite: -1.5 s", deadline=-1.5)
        self.refused("deadline must be positive and finite: nan s", deadline=float("nan"))
        self.refused("deadline must be positive and finite: inf s", deadline=float("inf"))
        self.refused("deadline must be positive and finite: -5 ms",
                     deadline=timedelta(milliseconds=-5))
        self.refused("call_timeout must be positive and finite: 0 ms",
                     call_timeout=timedelta(0))
        self.refused("token must not be blank", token=" ")
        self.refused("token must not contain line breaks", token="a\r\nX-Evil: 1")
        self.refused("ca_file is not a readable file: /nonexistent/ca.pem",
                     ca_file="/nonexistent/ca.pem")
        self.refused("cert_file is not a readable file: /nonexistent/c.pem",
                     cert_file="/nonexistent/c.pem")

    def test_wrong_types_are_type_errors_naming_them(self) -> None:
        self.refused("buffer_size must be an int from 1000 to 16777216 IDs: '5000'", TypeError,
                     buffer_size="5000")
        self.refused("max_batch must be an int from 1 to 10000 IDs: True", TypeError,
                     max_batch=True)
        self.refused("deadline must be seconds (a number) or a timedelta: '5s'", TypeError,
                     deadline="5s")
        self.refused("tls must be True or False: 'yes'", TypeError, tls="yes")

    def test_key_without_certificate_and_unreadable_pem(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            junk = os.path.join(d, "junk.pem")
            with open(junk, "w") as f:
                f.write("not a certificate\n")
            self.refused("key_file %s is given without cert_file" % junk, key_file=junk)
            self.refused("cannot read TLS files (ca_file %s" % junk, ca_file=junk)
            self.refused("cannot read TLS files (ca_file None, cert_file %s" % junk,
                         cert_file=junk, key_file=junk)

    def test_endpoint_lists(self) -> None:
        for bad in ([], (), None):
            with self.assertRaises(ValueError) as ctx:
                IdClient.connect(bad)  # type: ignore[arg-type]
            self.assertIn("at least one endpoint is needed", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            IdClient.connect(["127.0.0.1:8080", "h2:99999"])
        self.assertIn("'h2:99999'", str(ctx.exception))


class EndpointTest(unittest.TestCase):

    def test_forms(self) -> None:
        cases = {
            "h1:8080": ("http", "h1", 8080),
            "http://h1:8080": ("http", "h1", 8080),
            "HTTPS://h1:443": ("https", "h1", 443),
            "https://h1:8443/": ("https", "h1", 8443),
            "[::1]:8080": ("http", "::1", 8080),
            "http://[2001:db8::1]:1": ("http", "2001:db8::1", 1),
            "127.0.0.1:65535": ("http", "127.0.0.1", 65535),
            "ids.internal.example.com:8080": ("http", "ids.internal.example.com", 8080),
        }
        for text, (scheme, host, port) in cases.items():
            e = parse_endpoint(text, tls=False)
            self.assertEqual((e.scheme, e.host, e.port, e.text), (scheme, host, port, text), text)
        self.assertEqual(parse_endpoint("h1:8080", tls=True).scheme, "https")
        self.assertEqual(parse_endpoint("http://h1:8080", tls=True).scheme, "http")

    def test_malformed_are_refused_naming_them(self) -> None:
        for text in ("", " ", "h1", "h1:", ":8080", "h1:0", "h1:65536", "h1:-1", "h1:80x",
                     "h1:8080/ids", "http://h1:8080/v1", "h1:8080?x=1", "ftp://h1:21",
                     "dns:///h1:8080", "grpc://h1:1", "::1:8080", "[::1]", "[nope]:80",
                     "user@h1:80", "http://:80", " h1:80", "h1:8080 "):
            with self.assertRaises(ValueError, msg=text) as ctx:
                parse_endpoint(text, tls=False)
            self.assertIn("'%s'" % text, str(ctx.exception))
        with self.assertRaises(TypeError):
            parse_endpoint(8080, tls=False)

    def test_loopback(self) -> None:
        for host in ("localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1"):
            self.assertTrue(is_loopback(host), host)
        for host in ("10.0.0.1", "ids.internal", "128.0.0.1", "::2", "localhost.evil.com",
                     "0.0.0.0"):
            self.assertFalse(is_loopback(host), host)


class TokenTest(unittest.TestCase):

    def test_token_over_plaintext_to_another_host_is_refused_naming_it(self) -> None:
        for eps in (["10.0.0.1:8080"], ["127.0.0.1:8080", "ids.internal:8080"],
                    ["http://ids.internal:8080"]):
            with self.assertRaises(ValueError) as ctx:
                IdClient.connect(eps, token="s3cret")
            self.assertIn("a token would travel in plaintext to %s" % eps[-1],
                          str(ctx.exception))
            self.assertNotIn("s3cret", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            IdClient.connect(["http://ids.internal:8080"], token="t", tls=True)
        self.assertIn("http://ids.internal:8080", str(ctx.exception))

    def test_token_to_loopback_or_over_tls_is_fine(self) -> None:
        for eps, tls in ((["127.0.0.1:8080", "localhost:8081", "[::1]:8082", "127.9.9.9:1"],
                          False),
                         (["https://ids.internal:8443"], False),
                         (["ids.internal:8443"], True)):
            IdClient.connect(eps, token="s3cret", tls=tls).close()


if __name__ == "__main__":
    unittest.main()
