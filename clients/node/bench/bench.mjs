#!/usr/bin/env node
// Benchmark of the Node client against a running `idmint serve --workers 2`, in one run:
//  (a) client: `await ids.nextId()` from one caller, IDs/s over >= 3 s after a warm-up;
//  (b) raw: the same requests (GET /v1/ids?count=maxBatch, id64) fetched one after another over
//      one keep-alive connection and decoded (every ID read as a bigint), IDs/s;
//  (c) the latency of single buffered takes (`await ids.nextId()` while the buffer holds IDs),
//      each timed on its own with process.hrtime.bigint(), and the clock's own overhead.
// Prints one JSON line. Usage: node bench/bench.mjs http://127.0.0.1:PORT [seconds]

import http from 'node:http';
import { IdClient } from '../src/index.js';

const endpoint = process.argv[2];
const seconds = Number(process.argv[3] ?? 3);
if (!endpoint || !(seconds > 0)) {
  process.stderr.write('usage: node bench/bench.mjs http://127.0.0.1:PORT [seconds]\n');
  process.exit(2);
}
const MAX_BATCH = 10000;
const log = (/** @type {string} */ m) => process.stderr.write(`${m}\n`);

/** (b) sequential id64 requests over one keep-alive socket, each body decoded to bigints. */
async function raw(ms) {
  const url = new URL(endpoint);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = () => new Promise((resolve, reject) => {
    const req = http.request({
      agent, host: url.hostname, port: url.port, path: `/v1/ids?count=${MAX_BATCH}`,
      headers: { accept: 'application/vnd.idmint.id64' },
    }, (res) => {
      /** @type {Buffer[]} */
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`status ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  let n = 0;
  let check = 0n;
  const run = async (/** @type {number} */ until) => {
    while (performance.now() < until) {
      const body = /** @type {Buffer} */ (await get());
      body.swap64();
      const ids = new BigInt64Array(body.buffer, body.byteOffset, body.length / 8);
      for (let i = 0; i < ids.length; i++) check ^= ids[i];
      n += ids.length;
    }
  };
  await run(performance.now() + 500);
  n = 0;
  const t0 = performance.now();
  await run(t0 + ms);
  const rate = (n * 1000) / (performance.now() - t0);
  agent.destroy();
  return { rate, check };
}

/** (a) one caller taking IDs as fast as it can. @param {IdClient} ids @param {number} ms */
async function client(ids, ms) {
  let last = 0n;
  const run = async (/** @type {number} */ until) => {
    let n = 0;
    while (performance.now() < until) {
      for (let i = 0; i < 10000; i++) {
        const id = await ids.nextId();
        if (id <= last) throw new Error(`not increasing: ${id} after ${last}`);
        last = id;
      }
      n += 10000;
    }
    return n;
  };
  await run(performance.now() + 1000);
  const t0 = performance.now();
  const n = await run(t0 + ms);
  return (n * 1000) / (performance.now() - t0);
}

/** (c) single takes from a warm buffer, each timed alone; the clock's overhead alike. @param {IdClient} ids */
async function takes(ids) {
  const ROUNDS = 1000;
  const PER_ROUND = 1000;
  const t = new Float64Array(ROUNDS * PER_ROUND);
  const clock = new Float64Array(ROUNDS * PER_ROUND);
  let k = 0;
  for (let r = 0; r < ROUNDS; r++) {
    // Let the event loop turn until the buffer holds this round's IDs: only buffered takes count.
    while (ids.stats().bufferedIds < PER_ROUND) await new Promise((res) => setImmediate(res));
    for (let i = 0; i < PER_ROUND; i++) {
      const c0 = process.hrtime.bigint();
      const c1 = process.hrtime.bigint();
      const t0 = process.hrtime.bigint();
      await ids.nextId();
      const t1 = process.hrtime.bigint();
      clock[k] = Number(c1 - c0);
      t[k++] = Number(t1 - t0);
    }
  }
  t.sort();
  clock.sort();
  const q = (/** @type {Float64Array} */ a, /** @type {number} */ p) => a[Math.min(a.length - 1, Math.floor(p * a.length))] / 1000;
  return {
    p50: q(t, 0.5), p99: q(t, 0.99), p999: q(t, 0.999), max: t[t.length - 1] / 1000,
    clock50: q(clock, 0.5), clock99: q(clock, 0.99),
  };
}

const r = await raw(seconds * 1000);
log(`raw: ${Math.round(r.rate)} IDs/s`);
const ids = IdClient.connect([endpoint], { maxBatch: MAX_BATCH });
await ids.ready();
const c = await client(ids, seconds * 1000);
log(`client: ${Math.round(c)} IDs/s, stats ${JSON.stringify(ids.stats())}`);
const l = await takes(ids);
log(`takes (us): p50 ${l.p50} p99 ${l.p99} p99.9 ${l.p999} max ${l.max}; clock alone p50 ${l.clock50} p99 ${l.clock99}`);
await ids.close();
const round = (/** @type {number} */ x, /** @type {number} */ d) => Number(x.toFixed(d));
process.stdout.write(`${JSON.stringify({
  lang: 'node',
  client_ids_per_s: Math.round(c),
  raw_ids_per_s: Math.round(r.rate),
  ratio: round(c / r.rate, 3),
  take_p50_us: round(l.p50, 3),
  take_p99_us: round(l.p99, 3),
  take_p999_us: round(l.p999, 3),
  clock_overhead_p50_us: round(l.clock50, 3),
  node: process.version,
})}\n`);
