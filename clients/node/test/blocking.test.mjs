// A caller's long synchronous task must not read as a silent server (its own process: the task
// holds the whole event loop, which would upset the timing of tests running beside it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdClient } from '../src/index.js';
import { idServer } from './helpers.mjs';

/** @param {IdClient} ids @param {number} n */
async function take(ids, n) {
  for (let i = 0; i < n; i++) await ids.nextId();
}

test('a caller that holds the event loop longer than the call timeout causes no false failover', async () => {
  const a = await idServer(1n);
  const b = await idServer(1n << 40n);
  const ids = IdClient.connect([a.endpoint, b.endpoint], { callTimeoutMs: 100, bufferSize: 1000, maxBatch: 1000 });
  try {
    await ids.ready();
    for (let r = 0; r < 3; r++) {
      await take(ids, 2500); // leaves a request in flight
      const t = Date.now();
      while (Date.now() - t < 250) { /* a long synchronous task */ }
    }
    await take(ids, 2500);
    assert.equal(ids.stats().failovers, 0);
    assert.equal(b.requests.length, 0);
  } finally {
    await ids.close();
    await a.close();
    await b.close();
  }
});
