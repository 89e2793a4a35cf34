import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Order } from '../src/order.js';
import { Demand } from '../src/demand.js';
import { Endpoints, backoffMs, retryAfterSeconds } from '../src/endpoints.js';

/** IDs as the refill hands them to Order: two 32-bit words each, low first. @param {bigint[]} ids */
function words(ids) {
  return new Uint32Array(new BigInt64Array(ids).buffer);
}
/** @param {Uint32Array} w @param {number} k */
function kept(w, k) {
  return [...new BigInt64Array(w.buffer, 0, k)];
}

test('order: IDs not above the last appended are dropped and counted', () => {
  let t = 0;
  const o = new Order(1000, () => t);
  let w = words([10n, 11n, 12n]);
  assert.deepEqual(kept(w, o.accept(w, 3)), [10n, 11n, 12n]);
  w = words([5n, 12n, 13n, 11n, 2n ** 32n, 2n ** 32n + 1n, 2n ** 32n]);
  assert.deepEqual(kept(w, o.accept(w, 7)), [13n, 2n ** 32n, 2n ** 32n + 1n]);
  assert.equal(o.dropped, 4);
  assert.equal(o.resets, 0);
  // A high word that differs decides, whatever the low words say.
  w = words([(2n << 32n) + 0n, (1n << 32n) + 0xffffffffn]);
  assert.deepEqual(kept(w, o.accept(w, 2)), [2n << 32n]);
});

test('order: a server whose IDs stay below for longer than the call timeout starts the order over, once', () => {
  let t = 0;
  const o = new Order(1000, () => t);
  let w = words([1000n]);
  o.accept(w, 1);
  w = words([1n, 2n]);
  assert.equal(o.accept(w, 2), 0); // dropping since t=0
  t = 999;
  w = words([3n, 4n]);
  assert.equal(o.accept(w, 2), 0); // not yet longer than 1000 ms
  t = 1001;
  w = words([5n, 6n]);
  assert.deepEqual(kept(w, o.accept(w, 2)), [5n, 6n]);
  assert.equal(o.resets, 1);
  assert.equal(o.dropped, 4);
  // A batch with any ID kept ends the dropping streak.
  w = words([7n]);
  o.accept(w, 1);
  t = 5000;
  w = words([1n]);
  assert.equal(o.accept(w, 1), 0);
  assert.equal(o.resets, 1);
});

test('demand: 100 ms of the measured rate, at least 1000, at most the capacity', () => {
  const d = new Demand(65536, 0);
  assert.equal(d.target(), 1000);
  d.observe(5, 5); // a window under 10 ms does not count
  assert.equal(d.rate, 0);
  d.observe(2000, 10); // 200,000 IDs/s
  assert.equal(d.rate, 200000);
  assert.equal(d.target(), 20000);
  d.observe(2000 + 20000, 20); // 2 M/s: up at once, capped by the capacity
  assert.equal(d.target(), 65536);
  d.observe(22000, 120); // idle: down gently
  assert.equal(d.rate, 0.7 * 2000000);
  for (let t = 130; t < 2000; t += 10) d.observe(22000, t);
  assert.equal(d.target(), 1000);
  assert.equal(new Demand(1000, 0).target(), 1000);
});

test('backoff: 250 ms doubling per failure in a row up to 8 s; Retry-After in whole seconds', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 20].map(backoffMs), [250, 500, 1000, 2000, 4000, 8000, 8000, 8000, 8000]);
  assert.equal(backoffMs(0), 250);
  assert.equal(retryAfterSeconds('2'), 2);
  assert.equal(retryAfterSeconds(' 30 '), 30);
  assert.equal(retryAfterSeconds(['5']), 5);
  for (const v of [undefined, '', 'soon', '-1', '1.5', 'Wed, 21 Oct 2015 07:28:00 GMT']) assert.equal(retryAfterSeconds(v), 0);
});

test('endpoints: stay while answering, move on failure, honour Retry-After and backoff, wait for the first free', () => {
  let t = 0;
  const eps = new Endpoints([{ given: 'a:1' }, { given: 'b:1' }, { given: 'c:1' }], () => t);
  assert.deepEqual(eps.failures(), { 'a:1': 'none', 'b:1': 'none', 'c:1': 'none' });
  assert.equal(eps.pick(), 0);
  assert.equal(eps.pick(), 0);
  eps.failed(0, '503: not ready', 2);
  assert.equal(eps.failovers, 1);
  assert.equal(eps.pick(), 1);
  eps.failed(1, 'connection refused');
  assert.equal(eps.pick(), 2);
  eps.failed(2, 'timeout: no answer within 1000 ms');
  assert.equal(eps.pick(), -1);
  assert.equal(eps.untilNext(), 250);
  t = 250;
  assert.equal(eps.pick(), 1); // b's 250 ms are up; a waits out its 2 s
  eps.failed(1, 'connection refused');
  t = 500;
  assert.equal(eps.pick(), 2);
  eps.failed(2, 'timeout: no answer within 1000 ms'); // c's second failure in a row: 500 ms
  assert.equal(eps.untilNext(), 250); // b, failed at 250 for 500 ms, is free at 750
  t = 1999;
  assert.equal(eps.pick(), 1);
  t = 2000;
  eps.succeeded(1);
  eps.failed(1, 'connection refused'); // after a success the backoff starts over at 250 ms
  assert.equal(eps.health[1].avoidUntil, 2250);
  assert.equal(eps.pick(), 2);
  assert.deepEqual(eps.failures(), {
    'a:1': '503: not ready (retry after 2 s)',
    'b:1': 'connection refused',
    'c:1': 'timeout: no answer within 1000 ms',
  });
  const e = eps.unavailable('no endpoint gave an ID', 5000);
  assert.equal(e.code, 'ERR_IDMINT_UNAVAILABLE');
  assert.match(e.message, /^no endpoint gave an ID within 5000 ms; last failure of each endpoint: \{"a:1":"503/);
  // One endpoint alone: a failure is no failover.
  const one = new Endpoints([{ given: 'a:1' }], () => t);
  one.failed(0, 'x');
  assert.equal(one.failovers, 0);
});
