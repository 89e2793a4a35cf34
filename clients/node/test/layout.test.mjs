import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decode, Layout, IdmintArgumentError } from '../src/index.js';

// Produced by the Java CLI (`idmint decode --format=decimal --layout=L ID…`, which runs
// Layout.parse/decode), and /v1/id/decode of a real server for the first snowflake ID.
const vectors = JSON.parse(readFileSync(new URL('./fixtures/decode-vectors.json', import.meta.url), 'utf8'));

test('decode matches the Java Layout for every preset and custom specs', () => {
  const layouts = new Set();
  for (const v of vectors) {
    layouts.add(v.layout);
    const expected = { timestampMs: v.timestampMs, datacenter: v.datacenter, worker: v.worker, shard: v.shard, sequence: v.sequence };
    assert.deepEqual(decode(v.id, v.layout), expected, `${v.layout} ${v.id}`);
    assert.deepEqual(decode(BigInt(v.id), Layout.parse(v.layout)), expected);
    const exact = Layout.parse(v.layout).decodeExact(v.id);
    assert.equal(exact.timestampMs, BigInt(v.timestampMs));
  }
  for (const p of Layout.presets()) assert.ok(layouts.has(p.name), `vectors for ${p.name}`);
});

test('decode from a real server: /v1/id/decode?id=120580268045107200', () => {
  // {"id":"120580268045107200","timestamp":"2026-11-29T17:42:56.175Z","datacenter":0,"worker":0,"sequence":0}
  const p = decode(120580268045107200n);
  assert.equal(new Date(p.timestampMs).toISOString(), '2026-11-29T17:42:56.175Z');
  assert.deepEqual([p.datacenter, p.worker, p.sequence], [0, 0, 0]);
});

test('presets: specs as Java writes them', () => {
  const specs = Object.fromEntries(Layout.presets().map((p) => [p.name, p.spec]));
  assert.deepEqual(specs, {
    snowflake: 'time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z',
    region: 'time=41,datacenter=3,worker=10,sequence=9,tick=1ms,epoch=2026-01-01T00:00:00Z',
    instagram: 'time=41,shard=13,sequence=9,tick=1ms,epoch=2026-01-01T00:00:00Z',
    sonyflake: 'time=39,sequence=8,worker=16,tick=10ms,epoch=2026-01-01T00:00:00Z',
    'uid-generator': 'time=28,worker=22,sequence=13,tick=1s,epoch=2026-01-01T00:00:00Z',
    'js-safe': 'time=41,worker=5,sequence=7,tick=1ms,epoch=2026-01-01T00:00:00Z',
    leaf: 'time=41,worker=10,sequence=12,tick=1ms,epoch=2010-11-04T01:42:54.657Z',
    twitter: 'time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2010-11-04T01:42:54.657Z',
    discord: 'time=42,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2015-01-01T00:00:00Z',
    'sonyflake-2014': 'time=39,sequence=8,worker=16,tick=10ms,epoch=2014-09-01T00:00:00Z',
    'uid-generator-2016': 'time=28,worker=22,sequence=13,tick=1s,epoch=2016-05-19T16:00:00Z',
  });
  assert.equal(Layout.parse('discord').unsigned, true);
  assert.equal(Layout.parse('js-safe').totalBits, 53);
});

test('custom specs: aliases, presets with overrides, a preset\'s own fields', () => {
  assert.equal(Layout.parse('time=41,datacenter=5,worker=5,sequence=12').name, 'snowflake');
  assert.equal(Layout.parse(' TIME=41, dc=5, machine=5, seq=12 ,tick=1ms').name, 'snowflake');
  const l = Layout.parse('snowflake,epoch=2020-01-01T00:00:00Z,tick=2ms');
  assert.equal(l.epochMs, Date.UTC(2020, 0, 1));
  assert.equal(l.tickMs, 2);
  assert.equal(Layout.parse('time=41,worker=0,sequence=12').spec, 'time=41,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z');
  assert.equal(Layout.parse('time=41,worker=4,sequence=12,epoch=2026-01-01T08:00:00+08:00').epochMs, 1767225600000);
  assert.equal(Layout.parse('time=41,worker=4,sequence=12,epoch=2026-01-01T00:00:00.250Z').epochMs, 1767225600250);
  assert.equal(Layout.parse('time=41,worker=4,sequence=12,tick=1s').tickMs, 1000);
});

test('malformed specs are refused naming the part', () => {
  const bad = [
    ['', 'empty'], ['nope', "'nope'"], ['snowflake,worker=3', "'worker=3'"], ['snowflake,tick=1ms,tick=2ms', 'tick given twice'],
    ['time=41,worker', "'worker'"], ['time=41,colour=3,sequence=1', "'colour'"], ['time=41,worker=x,sequence=12', "'x'"],
    ['time=41,worker=64,sequence=12', '0..63'], ['time=41,worker=-1,sequence=12', '0..63'],
    ['worker=4,time=41,sequence=12', "'time' must be the first"], ['time=0,sequence=12', "'time'"],
    ['time=41,worker=4', "'sequence'"], ['time=41,worker=11,sequence=12,shard=1', '65 bits'],
    ['time=20,worker=32,sequence=2', "'worker' may be at most 31"], ['time=41,sequence=12,tick=5', "tick '5'"],
    ['time=41,sequence=12,tick=0ms', 'between 1ms and one day'], ['time=41,sequence=12,tick=2d', "tick '2d'"],
    ['time=41,sequence=12,epoch=yesterday', "epoch 'yesterday'"], ['time=41,sequence=12,epoch=2026-02-30T00:00:00Z', '2026-02-30'],
    ['time=41,sequence=12,epoch=1969-12-31T00:00:00Z', 'before 1970'], ['time=41,sequence=12,time=3', 'given twice'],
    ['time=60,sequence=3,tick=1s', 'outlasts'], ['time=41,sequence=12,epoch=1,epoch=2', 'epoch given twice'],
  ];
  for (const [spec, naming] of bad) {
    assert.throws(() => Layout.parse(spec), (e) => {
      assert.ok(e instanceof IdmintArgumentError, `${spec}: ${e}`);
      assert.ok(e.message.includes(naming), `${spec}: '${e.message}' should name ${naming}`);
      return true;
    });
  }
});

test('IDs a layout cannot hold are refused', () => {
  const refused = (fn, naming) => assert.throws(fn, (e) => e instanceof IdmintArgumentError && e.message.includes(naming));
  refused(() => decode(-1n), 'negative');
  refused(() => decode('9223372036854775808'), 'negative'); // 2^63: negative as a Java long
  refused(() => decode('120580268045107200', 'js-safe'), 'more than the 53 bits');
  refused(() => decode('18446744073709551616', 'discord'), '64 bits');
  refused(() => decode('12a'), "'12a'");
  refused(() => decode(2 ** 60), 'safe integer');
  refused(() => decode(/** @type {any} */ (null)), 'object');
  assert.equal(decode('-1', 'discord').sequence, 4095); // the same 64 bits as 2^64-1
  assert.equal(decode(12345).sequence, 57);
});
