// The JSON-lines driver (test/driver.mjs), as the shared Java test runs it: a child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idServer, refusedEndpoint } from './helpers.mjs';

function startDriver() {
  const child = spawn(process.execPath, [new URL('./driver.mjs', import.meta.url).pathname], { stdio: ['pipe', 'pipe', 'inherit'] });
  /** @type {any[]} */
  const lines = [];
  /** @type {(() => void)[]} */
  let wake = [];
  createInterface({ input: child.stdout }).on('line', (l) => {
    lines.push(JSON.parse(l));
    for (const w of wake) w();
    wake = [];
  });
  /** The next line that matches. @param {(l: any) => boolean} match */
  const next = async (match) => {
    for (;;) {
      const i = lines.findIndex(match);
      if (i >= 0) return lines.splice(i, 1)[0];
      await new Promise((r) => wake.push(() => r(undefined)));
    }
  };
  return {
    child,
    /** Sends a command and returns its reply (replies come in command order). @param {object} cmd */
    async send(cmd) {
      child.stdin.write(`${JSON.stringify(cmd)}\n`);
      return next((l) => !('event' in l));
    },
    /** @param {string} name */
    event: (name) => next((l) => l.event === name),
  };
}

test('driver: connect, next, decode, stats, errors, a gated draw, close, EOF', async () => {
  const s = await idServer(1000n);
  const refused = await refusedEndpoint();
  const out = mkdtempSync(join(tmpdir(), 'idmint-draw-'));
  const d = startDriver();
  try {
    assert.deepEqual(await d.send({ op: 'connect', endpoints: [s.endpoint], bufferSize: 5 }),
      { ok: false, error: 'invalid-argument', message: 'bufferSize must be a whole number from 1000 to 16777216, got 5' });
    assert.deepEqual(await d.send({ op: 'connect', endpoints: [s.endpoint], maxBatch: 1000 }), { ok: true });
    assert.deepEqual(await d.send({ op: 'next', count: 3 }), { ok: true, ids: ['1000', '1001', '1002'] });
    assert.deepEqual(await d.send({ op: 'decode', id: '18446744073709551615', layout: 'discord' }),
      { ok: true, timestampMs: 5818116911103, datacenter: 31, worker: 31, shard: 0, sequence: 4095 });
    assert.equal((await d.send({ op: 'decode', id: '1', layout: 'time=41' })).error, 'invalid-argument');
    const stats = await d.send({ op: 'stats' });
    assert.deepEqual(Object.keys(stats), ['ok', 'bufferedIds', 'droppedIds', 'orderingResets', 'failovers']);

    assert.deepEqual(await d.send({ op: 'draw', callers: 3, perCaller: 5000, gates: [0, 100, 5000], out }), { ok: true });
    assert.deepEqual(await d.event('gate'), { event: 'gate', gate: 0 });
    assert.deepEqual(await d.send({ op: 'open', gate: 0 }), { ok: true });
    assert.deepEqual(await d.event('gate'), { event: 'gate', gate: 1 });
    assert.deepEqual(await d.send({ op: 'open', gate: 1 }), { ok: true });
    assert.deepEqual(await d.event('gate'), { event: 'gate', gate: 2 });
    assert.deepEqual(await d.send({ op: 'open', gate: 2 }), { ok: true });
    const drawn = await d.event('drawn');
    assert.deepEqual(drawn.counts, [5000, 5000, 5000]);
    assert.deepEqual(drawn.errors, []);
    assert.deepEqual(Object.keys(drawn.stats), ['bufferedIds', 'droppedIds', 'orderingResets', 'failovers']);
    const all = new Set();
    for (let k = 0; k < 3; k++) {
      const b = readFileSync(join(out, `caller-${k}.bin`));
      assert.equal(b.length, 5000 * 8);
      let last = 0n;
      for (let i = 0; i < b.length; i += 8) {
        const id = b.readBigInt64BE(i);
        assert.ok(id > last);
        last = id;
        all.add(id);
      }
    }
    assert.equal(all.size, 15000);

    assert.deepEqual(await d.send({ op: 'close' }), { ok: true });
    assert.equal((await d.send({ op: 'next', count: 1 })).error, 'closed');

    assert.deepEqual(await d.send({ op: 'connect', endpoints: [`http://${refused}`], deadlineMs: 300 }), { ok: true });
    const failed = await d.send({ op: 'next', count: 1 });
    assert.equal(failed.error, 'unavailable');
    assert.deepEqual(failed.failures, { [`http://${refused}`]: 'connection refused' });
    // A draw whose callers fail: each stops at its first error, the gates still go out.
    await d.send({ op: 'draw', callers: 2, perCaller: 10, gates: [5], out });
    assert.deepEqual(await d.event('gate'), { event: 'gate', gate: 0 });
    const failedDraw = await d.event('drawn');
    assert.deepEqual(failedDraw.counts, [0, 0]);
    assert.equal(failedDraw.errors.length, 2);
    assert.match(failedDraw.errors[0], /^unavailable: no endpoint gave an ID within 300 ms/);

    d.child.stdin.end();
    const code = await new Promise((r) => d.child.on('exit', r));
    assert.equal(code, 0);
  } finally {
    d.child.kill();
    await s.close();
    rmSync(out, { recursive: true, force: true });
  }
});
