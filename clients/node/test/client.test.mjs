// The client against scripted in-process servers on 127.0.0.1 (no idmint server, no network).
import { describe, it as test } from 'node:test';
import assert from 'node:assert/strict';
import {
  IdClient, IdClientClosedError, IdServiceUnavailableError, IdmintArgumentError,
} from '../src/index.js';
import {
  countOf, idServer, problem, refusedEndpoint, scripted, sendIds, silent,
} from './helpers.mjs';

/** @param {IdClient} ids @param {number} n */
async function take(ids, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await ids.nextId());
  return out;
}

/** @param {bigint[]} ids */
function assertIncreasing(ids) {
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `ID ${i} (${ids[i]}) is not above ${ids[i - 1]}`);
}

// Independent clients and servers: the tests run at once, their waits overlap.
describe('IdClient against scripted servers', { concurrency: true }, () => {
  test('IDs from the buffer: bigint and string, increasing, one request per batch, id64 asked for', async () => {
    const s = await idServer(1000n);
    const ids = IdClient.connect([s.endpoint], { maxBatch: 500 });
    try {
      await ids.ready();
      const got = await take(ids, 1200);
      assertIncreasing(got);
      assert.equal(got[0], 1000n);
      assert.equal(typeof (await ids.nextIdString()), 'string');
      assert.equal(s.requests[0].headers.accept, 'application/vnd.idmint.id64');
      assert.match(s.requests[0].url, /^\/v1\/ids\?count=500$/);
      assert.equal(s.requests[0].headers.authorization, undefined);
      const st = ids.stats();
      assert.deepEqual([st.droppedIds, st.orderingResets, st.failovers], [0, 0, 0]);
    } finally {
      await ids.close();
      await s.close();
    }
  });

  test('failover on 503: the next endpoint serves, and the failed one is not asked before its Retry-After', async () => {
    const a = await scripted((req, res) => problem(res, 503, 'not ready: no lease', { 'retry-after': '1' }));
    const b = await scripted((req, res) => problem(res, 503, 'not ready: clock behind'));
    const ids = IdClient.connect([a.endpoint, b.endpoint], { deadlineMs: 1400, callTimeoutMs: 200 });
    const started = performance.now();
    try {
      await assert.rejects(ids.nextId(), (e) => {
        assert.ok(e instanceof IdServiceUnavailableError);
        assert.deepEqual(e.failures, {
          [a.endpoint]: '503: not ready: no lease (retry after 1 s)',
          [b.endpoint]: '503: not ready: clock behind',
        });
        return true;
      });
      const waited = performance.now() - started;
      assert.ok(waited >= 1390 && waited < 1700, `waited ${waited} ms for a 1400 ms deadline`);
      // a: once at 0, again only after its Retry-After of 1 s.
      assert.equal(a.requests.length, 2, `a asked at ${a.requests.map((r) => Math.round(r.at - started))}`);
      assert.ok(a.requests[1].at - a.requests[0].at >= 990, `a asked again after ${a.requests[1].at - a.requests[0].at} ms`);
      // b: backoff 250 ms, then 500 ms (failures in a row): at 0, ~250, ~750.
      const gaps = b.requests.slice(1).map((r, i) => r.at - b.requests[i].at);
      assert.ok(gaps.length >= 2, `b asked at ${b.requests.map((r) => Math.round(r.at - started))}`);
      assert.ok(gaps[0] >= 240 && gaps[1] >= 490, `b's gaps ${gaps}`);
    } finally {
      await ids.close();
      await a.close();
      await b.close();
    }
  });

  test('failover on 503 to a server that answers; stats count the failover', async () => {
    const a = await scripted((req, res) => problem(res, 503, 'not ready', { 'retry-after': '5' }));
    const b = await idServer(5000n);
    const ids = IdClient.connect([a.endpoint, b.endpoint], { deadlineMs: 2000 });
    try {
      assert.equal(await ids.nextId(), 5000n);
      assert.equal(ids.stats().failovers, 1);
      await take(ids, 3000);
      assert.equal(a.requests.length, 1);
    } finally {
      await ids.close();
      await a.close();
      await b.close();
    }
  });

  test('failover on a refused connection', async () => {
    const refused = await refusedEndpoint();
    const b = await idServer(7n);
    const ids = IdClient.connect([refused, b.endpoint], { deadlineMs: 2000 });
    try {
      const t0 = performance.now();
      assert.equal(await ids.nextId(), 7n);
      assert.ok(performance.now() - t0 < 500);
      assert.equal(ids.stats().failovers, 1);
    } finally {
      await ids.close();
      await b.close();
    }
  });

  test('failover on silence within the call timeout; the silent connection is destroyed', async () => {
    const a = await silent();
    const b = await idServer(100n);
    const ids = IdClient.connect([a.endpoint, b.endpoint], { deadlineMs: 3000, callTimeoutMs: 250 });
    try {
      const t0 = performance.now();
      assert.equal(await ids.nextId(), 100n);
      const took = performance.now() - t0;
      assert.ok(took >= 240 && took < 700, `first ID after ${took} ms`);
      assert.equal(ids.stats().failovers, 1);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(a.stats.accepted, 1);
      assert.equal(a.stats.closed, 1, 'the silent server\'s socket is closed, not kept for reuse');
    } finally {
      await ids.close();
      await a.close();
      await b.close();
    }
  });

  test('the deadline error lists every endpoint\'s last failure; ready() rejects the same way', async () => {
    const a = await scripted((req, res) => problem(res, 503, 'not ready: no lease', { 'retry-after': '2' }));
    const refused = await refusedEndpoint();
    const c = await silent();
    const ids = IdClient.connect([a.endpoint, `http://${refused}`, c.endpoint], { deadlineMs: 1000, callTimeoutMs: 300 });
    try {
      const t0 = performance.now();
      const [r1, r2] = await Promise.allSettled([ids.nextId(), ids.ready()]);
      const took = performance.now() - t0;
      assert.ok(took >= 990 && took < 1300, `rejected after ${took} ms`);
      for (const r of [r1, r2]) {
        assert.equal(r.status, 'rejected');
        const e = /** @type {PromiseRejectedResult} */ (r).reason;
        assert.ok(e instanceof IdServiceUnavailableError);
        assert.deepEqual(e.failures, {
          [a.endpoint]: '503: not ready: no lease (retry after 2 s)',
          [`http://${refused}`]: 'connection refused',
          [c.endpoint]: 'timeout: no answer within 300 ms',
        });
        assert.match(e.message, /^no endpoint gave an ID within 1000 ms; last failure of each endpoint: /);
      }
    } finally {
      await ids.close();
      await a.close();
      await c.close();
    }
  });

  test('a token is sent as Bearer on every request', async () => {
    const state = { next: 1n };
    const s = await scripted((req, res) => {
      if (req.headers.authorization !== 'Bearer s3cret') return problem(res, 401, 'no or wrong token');
      if (req.url?.startsWith('/api/v1/segments/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ tag: 'order', ids: ['1', '2'] }));
      }
      return sendIds(res, countOf(req), state);
    });
    const ids = IdClient.connect([`localhost:${s.endpoint.split(':')[1]}`], { token: 's3cret', deadlineMs: 2000 });
    try {
      assert.equal(await ids.nextId(), 1n);
      assert.equal(await ids.segment('order').next(), 1n);
      assert.ok(s.requests.length >= 2);
      for (const r of s.requests) assert.equal(r.headers.authorization, 'Bearer s3cret');
    } finally {
      await ids.close();
      await s.close();
    }
  });

  test('segments: buffered per tag, segmentBatch per request, 404 is invalid-argument naming tag and server, no failover', async () => {
    let next = 1000;
    const a = await scripted((req, res) => {
      const m = /^\/api\/v1\/segments\/([^/]+)\/ids\?count=(\d+)$/.exec(req.url ?? '');
      if (!m || decodeURIComponent(m[1]) !== 'order/eu') return problem(res, 404, `segment tag '${m && decodeURIComponent(m[1])}' does not exist`);
      const n = Number(m[2]);
      const values = Array.from({ length: n }, () => String(next++));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ tag: 'order/eu', ids: values }));
    });
    const b = await idServer(1n);
    const ids = IdClient.connect([a.endpoint, b.endpoint], { segmentBatch: 10, deadlineMs: 2000 });
    try {
      const seg = ids.segment('order/eu');
      assert.equal(ids.segment('order/eu'), seg);
      const got = [];
      for (let i = 0; i < 25; i++) got.push(await seg.next());
      assert.deepEqual(got, Array.from({ length: 25 }, (_, i) => BigInt(1000 + i)));
      assert.equal(a.requests.length, 3);
      assert.equal(a.requests[0].url, '/api/v1/segments/order%2Feu/ids?count=10');
      await assert.rejects(ids.segment('nope').next(), (e) => {
        assert.ok(e instanceof IdmintArgumentError);
        assert.ok(e.message.includes("'nope'") && e.message.includes(a.endpoint), e.message);
        return true;
      });
      assert.equal(b.requests.length, 0, 'a 404 is not a reason to fail over');
      // Concurrent callers on an empty buffer share one fill.
      const before = a.requests.length;
      const fresh = ids.segment('order/eu');
      const all = await Promise.all(Array.from({ length: 5 }, () => fresh.next()));
      assert.equal(new Set(all).size, 5);
      assert.ok(a.requests.length - before <= 1);
    } finally {
      await ids.close();
      await a.close();
      await b.close();
    }
  });

  test('segments fail over and hit the deadline like IDs', async () => {
    const a = await scripted((req, res) => problem(res, 503, 'store not ready', { 'retry-after': '1' }));
    const b = await scripted((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ tag: 'order', ids: ['5', '6'] }));
    });
    const ids = IdClient.connect([a.endpoint, b.endpoint], { deadlineMs: 1000 });
    try {
      assert.equal(await ids.segment('order').next(), 5n);
      assert.equal(await ids.segment('order').next(), 6n);
      await b.close();
      await assert.rejects(ids.segment('order').next(), (e) => {
        assert.ok(e instanceof IdServiceUnavailableError);
        assert.equal(e.failures[a.endpoint], '503: store not ready (retry after 1 s)');
        assert.equal(e.failures[b.endpoint], 'connection refused');
        assert.match(e.message, /^no ID of segment tag 'order' within 1000 ms/);
        return true;
      });
    } finally {
      await ids.close();
      await a.close();
    }
  });

  test('serials: one request per next(), never buffered; next(n) returns n values; 404 names the serial', async () => {
    let n = 0;
    const s = await scripted((req, res) => {
      const m = /^\/api\/v1\/serials\/([^/?]+)\?count=(\d+)$/.exec(req.url ?? '');
      if (!m || m[1] !== 'invoice') return problem(res, 404, 'serial is not defined');
      const values = Array.from({ length: Number(m[2]) }, () => `INV-20261129-${String(++n).padStart(6, '0')}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ serial: 'invoice', values }));
    });
    const ids = IdClient.connect([s.endpoint]);
    try {
      assert.equal(await ids.serial('invoice').next(), 'INV-20261129-000001');
      assert.deepEqual(await ids.serial('invoice').next(2), ['INV-20261129-000002', 'INV-20261129-000003']);
      assert.equal(await ids.serial('invoice').next(), 'INV-20261129-000004');
      assert.equal(s.requests.length, 3);
      await assert.rejects(ids.serial('receipt').next(), (e) => e instanceof IdmintArgumentError
        && e.message.includes("serial 'receipt'") && e.message.includes(s.endpoint));
    } finally {
      await ids.close();
      await s.close();
    }
  });

  test('IDs stay increasing across a failover to a server whose IDs are lower (dropped, counted)', async () => {
    const high = { next: 1_000_000n };
    let served = 0;
    const a = await scripted((req, res) => {
      if (served >= 3000) return problem(res, 503, 'lease lost');
      served += countOf(req);
      return sendIds(res, countOf(req), high);
    });
    const b = await idServer(999_000n); // behind a by 1000, then above
    const ids = IdClient.connect([a.endpoint, b.endpoint], { maxBatch: 1000, bufferSize: 1000, deadlineMs: 3000 });
    try {
      const got = await take(ids, 8000);
      assertIncreasing(got);
      assert.equal(new Set(got).size, got.length);
      const st = ids.stats();
      assert.ok(st.droppedIds >= 1000, `dropped ${st.droppedIds}`);
      assert.equal(st.orderingResets, 0);
      assert.equal(st.failovers, 1);
      assert.ok(got.some((id) => id >= 1_003_000n), 'b\'s IDs above a\'s are handed out');
    } finally {
      await ids.close();
      await a.close();
      await b.close();
    }
  });

  test('a server whose IDs stay below for longer than the call timeout starts the order over, once', async () => {
    const high = { next: 1n << 40n };
    let served = 0;
    const a = await scripted((req, res) => {
      if (served >= 1000) return problem(res, 503, 'gone', { 'retry-after': '60' });
      served += countOf(req);
      return sendIds(res, countOf(req), high);
    });
    const b = await idServer(1n);
    const ids = IdClient.connect([a.endpoint, b.endpoint], { maxBatch: 1000, bufferSize: 1000, callTimeoutMs: 200, deadlineMs: 3000 });
    try {
      const first = await take(ids, 1000);
      assert.equal(first[999], (1n << 40n) + 999n);
      const t0 = performance.now();
      const after = await ids.nextId();
      assert.ok(after < 1n << 40n, 'the order started over from b\'s IDs');
      assert.ok(performance.now() - t0 >= 190);
      assertIncreasing(await take(ids, 3000));
      assert.equal(ids.stats().orderingResets, 1);
    } finally {
      await ids.close();
      await a.close();
      await b.close();
    }
  });

  test('close(): waiting and later callers get IdClientClosedError; stats show nothing buffered', async () => {
    const a = await silent();
    const ids = IdClient.connect([a.endpoint], { deadlineMs: 5000 });
    const waiting = ids.nextId();
    const ready = ids.ready();
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    await ids.close();
    await assert.rejects(waiting, IdClientClosedError);
    await assert.rejects(ready, IdClientClosedError);
    await assert.rejects(ids.nextId(), (e) => e instanceof IdClientClosedError && e.code === 'ERR_IDMINT_CLOSED');
    await assert.rejects(ids.segment('order').next(), IdClientClosedError);
    await assert.rejects(ids.serial('invoice').next(), IdClientClosedError);
    assert.ok(performance.now() - t0 < 200, 'close does not wait for the silent server');
    assert.equal(ids.stats().bufferedIds, 0);
    assert.equal(ids.closed, true);
    await ids.close();
    await a.close();
  });

  test('concurrent callers get distinct IDs in increasing order of resolution; empty-buffer waiters are served in order', async () => {
    const s = await idServer(1n);
    const ids = IdClient.connect([s.endpoint], { maxBatch: 100, bufferSize: 1000 });
    try {
      /** @type {bigint[]} */
      const order = [];
      await Promise.all(Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 2000; i++) order.push(await ids.nextId());
      }));
      assert.equal(order.length, 16000);
      assertIncreasing(order);
    } finally {
      await ids.close();
      await s.close();
    }
  });
});
