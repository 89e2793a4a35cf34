#!/usr/bin/env node
// The test driver of the Node client (clients-brief "The driver"): JSON lines in on stdin
// (commands), JSON lines out on stdout (replies in command order, and events). IDs are decimal
// strings. stderr is for logs. Run: node clients/node/test/driver.mjs

import { createInterface } from 'node:readline';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  IdClient, IdClientClosedError, IdServiceUnavailableError, IdmintArgumentError, Layout,
} from '../src/index.js';

/** @type {IdClient | null} */
let client = null;
/** @type {Promise<void> | null} */
let drawing = null;
/** @type {((gate: number) => void) | null} */
let openGate = null;

const CONNECT_OPTIONS = ['bufferSize', 'deadlineMs', 'callTimeoutMs', 'segmentBatch', 'maxBatch',
  'caFile', 'certFile', 'keyFile', 'tls', 'token'];

/** @param {object} obj */
function emit(obj) {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

/** @param {unknown} e */
function kindOf(e) {
  if (e instanceof IdmintArgumentError) return 'invalid-argument';
  if (e instanceof IdServiceUnavailableError) return 'unavailable';
  if (e instanceof IdClientClosedError) return 'closed';
  return 'other';
}

/** @param {unknown} e */
function errorReply(e) {
  const error = kindOf(e);
  /** @type {Record<string, unknown>} */
  const reply = { ok: false, error, message: e instanceof Error ? e.message : String(e) };
  if (e instanceof IdServiceUnavailableError) reply.failures = e.failures;
  if (error === 'other') process.stderr.write(`driver: ${e instanceof Error ? e.stack : e}\n`);
  return reply;
}

function requireClient() {
  if (client === null) throw new Error('no client: send {"op":"connect",…} first');
  return client;
}

/** @param {unknown} v @param {string} name */
function count(v, name = 'count') {
  if (!Number.isInteger(v) || /** @type {number} */ (v) < 0) {
    throw new IdmintArgumentError(`${name} must be a whole number >= 0, got ${JSON.stringify(v)}`);
  }
  return /** @type {number} */ (v);
}

/** @param {any} cmd @returns {Promise<object | string>} the reply (a string is raw JSON) */
async function handle(cmd) {
  switch (cmd?.op) {
    case 'connect': {
      if (client !== null && !client.closed) throw new Error('a client is connected: close it first');
      /** @type {Record<string, unknown>} */
      const options = {};
      for (const key of CONNECT_OPTIONS) {
        if (cmd[key] !== undefined && cmd[key] !== null) options[key] = cmd[key];
      }
      client = IdClient.connect(cmd.endpoints, options);
      return { ok: true };
    }
    case 'next': {
      const c = requireClient();
      const n = count(cmd.count);
      const ids = new Array(n);
      for (let i = 0; i < n; i++) ids[i] = String(await c.nextId());
      return { ok: true, ids };
    }
    case 'segment': {
      const s = requireClient().segment(cmd.tag);
      const n = count(cmd.count);
      const values = new Array(n);
      for (let i = 0; i < n; i++) values[i] = String(await s.next());
      return { ok: true, values };
    }
    case 'serial': {
      const values = await requireClient().serial(cmd.name).next(cmd.count ?? 1);
      return { ok: true, values };
    }
    case 'decode': {
      const p = Layout.parse(cmd.layout ?? 'snowflake').decodeExact(cmd.id);
      // Exact digits: a JSON number written from the bigint, never through a double.
      return `{"ok":true,"timestampMs":${p.timestampMs},"datacenter":${p.datacenter},"worker":${p.worker},"shard":${p.shard},"sequence":${p.sequence}}`;
    }
    case 'stats':
      return { ok: true, ...requireClient().stats() };
    case 'draw': {
      const c = requireClient();
      if (drawing !== null) throw new Error('a draw is running');
      const callers = count(cmd.callers, 'callers');
      const perCaller = count(cmd.perCaller, 'perCaller');
      const gates = Array.isArray(cmd.gates) ? cmd.gates.map((g) => count(g, 'gate')) : [];
      if (typeof cmd.out !== 'string' || cmd.out === '') throw new IdmintArgumentError(`out must be a directory, got ${JSON.stringify(cmd.out)}`);
      drawing = draw(c, callers, perCaller, gates, cmd.out).finally(() => {
        drawing = null;
        openGate = null;
      });
      return { ok: true };
    }
    case 'open': {
      const gate = count(cmd.gate, 'gate');
      if (openGate !== null) openGate(gate);
      return { ok: true };
    }
    case 'close': {
      if (client !== null) await client.close();
      return { ok: true };
    }
    default:
      throw new Error(`unknown op ${JSON.stringify(cmd?.op)}`);
  }
}

/**
 * `callers` concurrent async loops, each taking `perCaller` IDs into a preallocated typed array,
 * waiting at each gate until it is opened; then the files and the `drawn` event.
 * @param {IdClient} c @param {number} callers @param {number} perCaller @param {number[]} gates @param {string} out
 */
async function draw(c, callers, perCaller, gates, out) {
  const ids = Array.from({ length: callers }, () => new BigInt64Array(perCaller));
  const counts = new Array(callers).fill(0);
  /** @type {string[]} */
  const errors = [];
  // Per gate: callers waiting at it or finished short of it, whether its event went out, opened.
  const reached = gates.map(() => 0);
  const emitted = gates.map(() => false);
  const opened = gates.map(() => false);
  /** @type {(() => void)[][]} */
  const waiting = gates.map(() => []);
  openGate = (g) => {
    if (g >= gates.length || opened[g]) return;
    opened[g] = true;
    for (const go of waiting[g]) go();
    waiting[g] = [];
  };
  /** @param {number} g */
  const check = (g) => {
    if (!emitted[g] && reached[g] === callers) {
      emitted[g] = true;
      emit({ event: 'gate', gate: g });
    }
  };
  /** @param {number} g */
  const arrive = (g) => {
    reached[g]++;
    check(g);
    if (opened[g]) return undefined;
    return new Promise((resolve) => waiting[g].push(() => resolve(undefined)));
  };

  /** @param {number} k */
  const caller = async (k) => {
    const mine = ids[k];
    let g = 0;
    let taken = 0;
    try {
      for (;;) {
        while (g < gates.length && taken === gates[g]) await arrive(g++);
        if (taken === perCaller) break;
        mine[taken] = await c.nextId();
        taken++;
      }
    } catch (e) {
      const r = errorReply(e);
      errors.push(`${r.error}: ${r.message}`);
    } finally {
      counts[k] = taken;
      // Gates this caller will never wait at count as reached, so their event can go out.
      for (; g < gates.length; g++) {
        reached[g]++;
        check(g);
      }
    }
  };
  await Promise.all(Array.from({ length: callers }, (_, k) => caller(k)));

  await mkdir(out, { recursive: true });
  await Promise.all(ids.map((a, k) => {
    const bytes = Buffer.from(a.buffer.slice(0, counts[k] * 8));
    bytes.swap64(); // big-endian on disk
    return writeFile(join(out, `caller-${k}.bin`), bytes);
  }));
  emit({ event: 'drawn', counts, errors, stats: c.stats() });
}

async function main() {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let reply;
    try {
      reply = await handle(JSON.parse(line));
    } catch (e) {
      reply = errorReply(e);
    }
    if (typeof reply === 'string') process.stdout.write(`${reply}\n`);
    else emit(reply);
  }
  if (client !== null) await client.close();
  if (drawing !== null) await drawing;
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`driver: ${e?.stack ?? e}\n`);
  process.exit(1);
});
