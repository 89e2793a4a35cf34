"""The JSON-lines driver, run as the Java test runs it: a child process on pipes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import unittest
from array import array
from typing import Any, Dict

from scripted import IdSource, Server, as_json, problem, refused_address

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")


class DriverTest(unittest.TestCase):

    def setUp(self) -> None:
        source = IdSource(1000)

        def script(r: Any) -> Any:
            if r.route == "/api/v1/segments/order/ids":
                return as_json({"tag": "order", "ids": [str(v) for v in range(1, r.count + 1)]})
            if r.route.startswith("/api/v1/segments/"):
                return problem(404, "Unknown segment tag", "no such tag")
            if r.route == "/api/v1/serials/inv":
                return as_json({"serial": "inv", "values": ["INV-%d" % v
                                                            for v in range(r.count)]})
            return source(r)

        self.server = Server(script)
        env = dict(os.environ, PYTHONPATH=SRC)
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "driver.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                     text=True, bufsize=1)

    def tearDown(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.server.close()

    def send(self, cmd: Dict[str, Any]) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def read(self) -> Dict[str, Any]:
        assert self.proc.stdout
        line = self.proc.stdout.readline()
        self.assertTrue(line, "the driver ended")
        doc: Dict[str, Any] = json.loads(line)
        return doc

    def call(self, cmd: Dict[str, Any]) -> Dict[str, Any]:
        self.send(cmd)
        return self.read()

    def test_commands(self) -> None:
        ok = {"ok": True}
        self.assertEqual(self.call({"op": "next", "count": 1})["error"], "closed")
        self.assertEqual(self.call({"op": "connect", "endpoints": [self.server.address],
                                    "bufferSize": 1000, "deadlineMs": 2000,
                                    "callTimeoutMs": 500, "segmentBatch": 5,
                                    "maxBatch": 1000}), ok)
        self.assertEqual(self.call({"op": "next", "count": 3}),
                         {"ok": True, "ids": ["1000", "1001", "1002"]})
        self.assertEqual(self.call({"op": "segment", "tag": "order", "count": 2}),
                         {"ok": True, "values": ["1", "2"]})
        nope = self.call({"op": "segment", "tag": "nope", "count": 1})
        self.assertEqual(nope["error"], "invalid-argument")
        self.assertIn("'nope'", nope["message"])
        self.assertIn(self.server.address, nope["message"])
        self.assertEqual(self.call({"op": "serial", "name": "inv", "count": 2}),
                         {"ok": True, "values": ["INV-0", "INV-1"]})
        self.assertEqual(self.call({"op": "decode", "id": "120580800574918656",
                                    "layout": "snowflake"}),
                         {"ok": True, "timestampMs": 1795974303140, "datacenter": 0,
                          "worker": 1, "shard": 0, "sequence": 0})
        self.assertEqual(self.call({"op": "decode", "id": "1", "layout": "nope"})["error"],
                         "invalid-argument")
        stats = self.call({"op": "stats"})
        self.assertEqual(set(stats), {"ok", "bufferedIds", "droppedIds", "orderingResets",
                                      "failovers"})
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(self.call({"op": "draw", "callers": 3, "perCaller": 5000,
                                        "gates": [100, 2000], "out": out}), ok)
            self.assertEqual(self.read(), {"event": "gate", "gate": 0})
            self.assertEqual(self.call({"op": "open", "gate": 0}), ok)
            self.assertEqual(self.read(), {"event": "gate", "gate": 1})
            self.assertEqual(self.call({"op": "open", "gate": 1}), ok)
            drawn = self.read()
            self.assertEqual(drawn["event"], "drawn")
            self.assertEqual(drawn["counts"], [5000, 5000, 5000])
            self.assertEqual(drawn["errors"], [])
            every = []
            for k in range(3):
                ids = array("q")
                with open(os.path.join(out, "caller-%d.bin" % k), "rb") as f:
                    ids.frombytes(f.read())
                if sys.byteorder == "little":
                    ids.byteswap()
                self.assertEqual(list(ids), sorted(ids))
                every.extend(ids)
            self.assertEqual(len(set(every)), 15000)
        self.assertEqual(self.call({"op": "close"}), ok)
        self.assertEqual(self.call({"op": "next", "count": 1})["error"], "closed")
        bad = self.call({"op": "connect", "endpoints": ["h1:99999"]})
        self.assertEqual(bad["error"], "invalid-argument")
        self.assertIn("h1:99999", bad["message"])
        refused = refused_address()
        self.assertEqual(self.call({"op": "connect", "endpoints": [refused],
                                    "deadlineMs": 300}), ok)
        down = self.call({"op": "next", "count": 1})
        self.assertEqual(down["error"], "unavailable")
        self.assertEqual(down["failures"], {refused: "connection refused"})
        assert self.proc.stdin
        self.proc.stdin.close()
        self.assertEqual(self.proc.wait(10), 0)


if __name__ == "__main__":
    unittest.main()
