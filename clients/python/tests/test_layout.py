"""Layouts and decode, against the Java Layout's rules and its own output."""

from __future__ import annotations

import json
import os
import unittest

import idmint
from idmint import IdParts, Layout, decode

HERE = os.path.dirname(os.path.abspath(__file__))


class DecodeReferenceTest(unittest.TestCase):
    """decode_reference.json: IDs decoded by the Java CLI (``idmint decode --layout=…``) for
    every preset and a few custom specs, including the edges (1 and the largest ID)."""

    def test_every_preset_and_custom_spec_matches_java(self) -> None:
        with open(os.path.join(HERE, "decode_reference.json")) as f:
            rows = json.load(f)["rows"]
        self.assertTrue({p.name for p in Layout.presets()} <= set(rows))
        for spec, cases in rows.items():
            layout = Layout.parse(spec)
            for id_text, ts, dc, worker, shard, seq in cases:
                want = IdParts(int(id_text), ts, dc, worker, shard, seq)
                self.assertEqual(decode(id_text, spec), want, (spec, id_text))
                self.assertEqual(layout.decode(int(id_text)), want, (spec, id_text))

    def test_a_live_servers_id(self) -> None:
        # GET /v1/id/decode?id=120580800574918656 of an idmint serve (snowflake):
        # {"timestamp":"2026-11-29T17:45:03.140Z","datacenter":0,"worker":1,"sequence":0}
        p = decode(120580800574918656)
        self.assertEqual((p.timestamp_ms, p.datacenter, p.worker, p.sequence),
                         (1795974303140, 0, 1, 0))
        self.assertEqual(p.timestamp.isoformat(), "2026-11-29T17:45:03.140000+00:00")


class LayoutTest(unittest.TestCase):

    def test_presets(self) -> None:
        specs = {p.name: p.spec for p in Layout.presets()}
        self.assertEqual(list(specs), [
            "snowflake", "region", "instagram", "sonyflake", "uid-generator", "js-safe", "leaf",
            "twitter", "discord", "sonyflake-2014", "uid-generator-2016"])
        self.assertEqual(specs["snowflake"],
                         "time=41,datacenter=5,worker=5,sequence=12,tick=1ms,"
                         "epoch=2026-01-01T00:00:00Z")
        self.assertEqual(specs["leaf"], "time=41,worker=10,sequence=12,tick=1ms,"
                                        "epoch=2010-11-04T01:42:54.657Z")
        self.assertEqual(specs["uid-generator-2016"], "time=28,worker=22,sequence=13,tick=1s,"
                                                      "epoch=2016-05-19T16:00:00Z")
        self.assertTrue(Layout.parse("discord").unsigned)
        self.assertEqual(Layout.parse("js-safe").total_bits, 53)

    def test_custom_specs(self) -> None:
        custom = Layout.parse("time=41,worker=4,sequence=12")
        self.assertEqual(custom.name, "custom")
        self.assertEqual(custom.epoch_ms, idmint.DEFAULT_EPOCH_MS)
        self.assertEqual(custom.tick_ms, 1)
        self.assertEqual((custom.shift("worker"), custom.bits("worker")), (12, 4))
        # A custom spec equal to a preset is the preset; aliases, spaces and case are fine.
        self.assertEqual(Layout.parse(" TIME=41, dc=5, machine=5, seq=12 ").name, "snowflake")
        self.assertEqual(Layout.parse("time=41,datacenter=0,worker=10,sequence=12,"
                                      "epoch=1288834974657").name, "leaf")
        moved = Layout.parse("snowflake, epoch=2020-01-01T00:00:00.5Z, tick=2ms")
        self.assertEqual((moved.epoch_ms, moved.tick_ms), (1577836800500, 2))
        self.assertEqual(Layout.parse("time=30,sequence=2,tick=1s,epoch=2026-01-01T01:00:00+01:00")
                         .epoch_ms, idmint.DEFAULT_EPOCH_MS)
        self.assertEqual(Layout.parse("sonyflake"), Layout.parse("time=39,sequence=8,worker=16,"
                                                                 "tick=10ms"))

    def test_malformed_specs_are_refused_naming_the_part(self) -> None:
        cases = {
            "": "layout spec is empty",
            "  ": "layout spec is empty",
            "snowflak": "unknown layout preset 'snowflak'; presets are snowflake, region",
            "snowflake,worker=3": "not 'worker=3'",
            "snowflake,epoch=1,epoch=2": "epoch given twice",
            "time=41,sequence=12,": "expected key=value, got ''",
            "time=41,=3,sequence=1": "expected key=value, got '=3'",
            "time=41,bits=3,sequence=1": "unknown key 'bits'",
            "time=41,worker=x,sequence=1": "width of 'worker' is not a whole number: 'x'",
            "time=41,worker=5,worker=5,sequence=1": "field 'worker' given twice",
            "time=41,worker=64,sequence=1": "width of 'worker' must be 0..63, got 64",
            "time=41,worker=-1,sequence=1": "width of 'worker' must be 0..63, got -1",
            "time=20,worker=32,sequence=1": "'worker' may be at most 31 bits wide, got 32",
            "worker=5,time=41,sequence=1": "'time' must be the first",
            "time=0,sequence=1": "needs a 'time' field of at least 1 bit",
            "sequence=12": "needs a 'time' field",
            "time=41,worker=5": "needs a 'sequence' field",
            "time=41,datacenter=11,worker=5,sequence=8": "fields add up to 65 bits",
            "time=41,sequence=12,tick=5": "tick '5' needs a unit",
            "time=41,sequence=12,tick=0ms": "tick '0ms' must be between 1ms and one day",
            "time=41,sequence=12,tick=86401s": "tick '86401s' must be between 1ms and one day",
            "time=41,sequence=12,tick=1.5s": "tick '1.5s' is not a whole number",
            "time=41,sequence=12,tick=1ms,tick=2ms": "tick given twice",
            "time=41,sequence=12,epoch=yesterday": "epoch 'yesterday' is neither",
            "time=41,sequence=12,epoch=2026-01-01": "epoch '2026-01-01' is neither",
            "time=41,sequence=12,epoch=2026-01-01T00:00Z": "is neither Unix milliseconds",
            "time=41,sequence=12,epoch=1969-12-31T23:59:59Z": "is before 1970",
            "time=60,sequence=3,tick=1s": "outlasts any representable date",
        }
        for spec, needle in cases.items():
            with self.assertRaises(ValueError, msg=spec) as ctx:
                Layout.parse(spec)
            self.assertIn(needle, str(ctx.exception), spec)

    def test_ids_a_layout_cannot_hold(self) -> None:
        with self.assertRaisesRegex(ValueError, "ID -1 is negative; IDs of layout snowflake"):
            decode(-1)
        with self.assertRaisesRegex(ValueError, "uses more than the 53 bits of layout js-safe"):
            decode(1 << 53, "js-safe")
        with self.assertRaisesRegex(ValueError, "does not fit in 63 bits"):
            decode(1 << 63)
        with self.assertRaisesRegex(ValueError, "does not fit in 64 bits"):
            decode(1 << 64, "discord")
        with self.assertRaisesRegex(ValueError, "not a decimal number"):
            decode("12ab")
        # A discord ID may come as the signed long that carries its bits.
        self.assertEqual(decode(-1, "discord"), decode((1 << 64) - 1, "discord"))


if __name__ == "__main__":
    unittest.main()
