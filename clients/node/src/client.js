// IdClient: IDs from a local buffer that an async refill loop keeps filled over HTTP/1.1
// keep-alive from one idmint server at a time, with failover (docs/client.md is the reference
// behaviour; README.md and docs/clients.md, "Node.js", describe this client).

import { setTimeout as sleep } from 'node:timers/promises';
import { STATUS_CODES } from 'node:http';
import { settings } from './options.js';
import { Endpoints, backoffMs, retryAfterSeconds } from './endpoints.js';
import { TransportError, agentFor, exchange } from './transport.js';
import { Demand, MIN_TARGET } from './demand.js';
import { Order } from './order.js';
import { IdClientClosedError, IdmintArgumentError } from './errors.js';

const ID64 = 'application/vnd.idmint.id64';
const JSON_TYPE = 'application/json';
/** Takes between two looks of the refill at the buffer (a wake, no I/O). */
const CHUNK = 1000;
/** How often an idle refill looks at the demand. */
const IDLE_MS = 50;
const EMPTY = new BigInt64Array(0);
const now = () => performance.now();

/**
 * @typedef {import('./transport.js').Endpoint} Endpoint
 * @typedef {import('./transport.js').Answer} Answer
 * @typedef {{resolve: (id: bigint) => void, reject: (e: Error) => void, until: number}} Waiter
 */

/**
 * A client of idmint servers. `nextId()` takes an ID from a local buffer; an async loop on the
 * event loop keeps the buffer filled from the current endpoint (`GET /v1/ids`, 8-byte binary
 * IDs), sized to the rate IDs are taken, and moves to the next endpoint when one fails or
 * falls silent. IDs come out increasing in the order `nextId()` resolves them.
 *
 * ```js
 * const ids = IdClient.connect(['h1:8080', 'h2:8080']);
 * await ids.ready();
 * const id = await ids.nextId(); // bigint
 * await ids.close();
 * ```
 */
export class IdClient {
  /**
   * A client of these servers, asked in this order. Checks every option at once (throws
   * {@link IdmintArgumentError} naming a bad value); dials nothing until IDs are asked for.
   * @param {string[]} endpoints `host:port`, `[v6]:port`, `http://host:port`, `https://host:port`
   * @param {import('./index.js').IdClientOptions} [options]
   * @returns {IdClient}
   */
  static connect(endpoints, options) {
    return new IdClient(endpoints, options);
  }

  /**
   * Same as {@link IdClient.connect}.
   * @param {string[]} endpoints
   * @param {import('./index.js').IdClientOptions} [options]
   */
  constructor(endpoints, options) {
    const s = settings(endpoints, /** @type {Record<string, unknown> | undefined} */ (options));
    /** @private */
    this._s = s;
    /** @private @type {Endpoint[]} */
    this._eps = s.endpoints.map((e) => ({ ...e, agent: agentFor(e.secure, s.tlsFiles) }));
    /** @private */
    this._refillEps = new Endpoints(this._eps, now);
    /** @private */
    this._demand = new Demand(s.bufferSize, now());
    /** @private */
    this._order = new Order(s.callTimeoutMs, now);
    // The buffer: the current batch (_ids, taken up to _pos; the fast path may go to _lim, the
    // next look of the refill; the batch ends at _end) and the batches after it.
    /** @private @type {BigInt64Array<ArrayBufferLike>} */
    this._ids = EMPTY;
    /** @private */
    this._pos = 0;
    /** @private */
    this._lim = 0;
    /** @private */
    this._end = 0;
    /** @private @type {BigInt64Array<ArrayBufferLike>[]} */
    this._queue = [];
    /** IDs taken before the current batch. @private */
    this._takenBefore = 0;
    /** IDs appended in all. @private */
    this._appended = 0;
    /** Callers waiting for an ID, in arrival order (so in deadline order). @private @type {Waiter[]} */
    this._waiters = [];
    /** @private */
    this._waitHead = 0;
    /** @private @type {NodeJS.Timeout | null} */
    this._waitTimer = null;
    /** @private @type {Set<{resolve: () => void, reject: (e: Error) => void, timer: NodeJS.Timeout}>} */
    this._readyWaiters = new Set();
    /** @private */
    this._closed = false;
    /** @private */
    this._abort = new AbortController();
    /** @private @type {(() => void) | null} */
    this._wakeup = null;
    /** @private @type {Promise<void> | null} */
    this._refill = null;
    /** @private @type {Map<string, SegmentClient>} */
    this._segments = new Map();
    /** @private @type {Map<string, SerialClient>} */
    this._serials = new Map();
  }

  /**
   * The next ID: from the buffer at once almost always (no I/O), else as soon as the refill
   * brings one, waiting at most the deadline.
   * Rejects with {@link IdServiceUnavailableError} when no endpoint gave IDs within the
   * deadline, {@link IdClientClosedError} when the client is closed.
   * @returns {Promise<bigint>}
   */
  nextId() {
    const i = this._pos;
    if (i < this._lim) {
      this._pos = i + 1;
      return Promise.resolve(this._ids[i]);
    }
    return this._takeSlow();
  }

  /**
   * The next ID as a decimal string (see {@link IdClient.nextId}).
   * @returns {Promise<string>}
   */
  nextIdString() {
    const i = this._pos;
    if (i < this._lim) {
      this._pos = i + 1;
      return Promise.resolve(String(this._ids[i]));
    }
    return this._takeSlow().then(String);
  }

  /**
   * Resolves once IDs are buffered (starting the refill); rejects with
   * {@link IdServiceUnavailableError} when none came within the deadline.
   * @returns {Promise<void>}
   */
  ready() {
    if (this._closed) return Promise.reject(new IdClientClosedError());
    if (this._appended - this._takenBefore - this._pos > 0) return Promise.resolve();
    this._startRefill();
    this._wake();
    return new Promise((resolve, reject) => {
      const entry = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this._readyWaiters.delete(entry);
          reject(this._refillEps.unavailable('no endpoint gave an ID', this._s.deadlineMs));
        }, this._s.deadlineMs),
      };
      this._readyWaiters.add(entry);
    });
  }

  /**
   * The values of segment tag `tag` (a dense per-tag sequence), with a buffer of their own
   * (`segmentBatch` values per request), one per tag.
   * @param {string} tag
   * @returns {SegmentClient}
   */
  segment(tag) {
    checkName('segment tag', tag);
    let s = this._segments.get(tag);
    if (s === undefined) {
      s = new SegmentClient(this, tag);
      this._segments.set(tag, s);
    }
    return s;
  }

  /**
   * The values of serial `name`: every `next()` asks a server (never buffered: a value must not
   * outlive its period), with the client's failover.
   * @param {string} name
   * @returns {SerialClient}
   */
  serial(name) {
    checkName('serial name', name);
    let s = this._serials.get(name);
    if (s === undefined) {
      s = new SerialClient(this, name);
      this._serials.set(name, s);
    }
    return s;
  }

  /** What the client holds and has done so far. */
  stats() {
    return {
      bufferedIds: this._closed ? 0 : this._appended - this._takenBefore - this._pos,
      droppedIds: this._order.dropped,
      orderingResets: this._order.resets,
      failovers: this._refillEps.failovers,
    };
  }

  /** Whether {@link IdClient.close} was called. */
  get closed() {
    return this._closed;
  }

  /**
   * Stops the refill, rejects waiting callers with {@link IdClientClosedError} (later calls
   * too), aborts requests in flight and closes the connections. Resolves when the refill loop
   * has ended. Calling it again does nothing more.
   * @returns {Promise<void>}
   */
  close() {
    if (!this._closed) {
      this._closed = true;
      this._ids = EMPTY;
      this._pos = this._lim = this._end = 0;
      this._queue = [];
      const closed = new IdClientClosedError();
      for (let i = this._waitHead; i < this._waiters.length; i++) this._waiters[i].reject(closed);
      this._waiters = [];
      this._waitHead = 0;
      if (this._waitTimer !== null) clearTimeout(this._waitTimer);
      this._waitTimer = null;
      for (const r of this._readyWaiters) {
        clearTimeout(r.timer);
        r.reject(closed);
      }
      this._readyWaiters.clear();
      this._abort.abort();
      this._wake();
      for (const ep of this._eps) ep.agent.destroy();
    }
    return this._refill === null ? Promise.resolve() : this._refill;
  }

  // ---- the buffer -------------------------------------------------------------------------

  /** @private @returns {Promise<bigint>} */
  _takeSlow() {
    if (this._closed) return Promise.reject(new IdClientClosedError());
    const id = this._take();
    if (id !== undefined) return Promise.resolve(id);
    this._startRefill();
    this._wake();
    return new Promise((resolve, reject) => {
      this._waiters.push({ resolve, reject, until: now() + this._s.deadlineMs });
      if (this._waitTimer === null) this._armWaitTimer();
    });
  }

  /**
   * The next buffered ID past the fast path's limit, moving to the next batch when the current
   * one is used up and waking the refill to look at the buffer; undefined when none is buffered.
   * @private @returns {bigint | undefined}
   */
  _take() {
    for (;;) {
      if (this._pos < this._end) {
        this._lim = Math.min(this._end, this._pos + CHUNK);
        this._wake();
        return this._ids[this._pos++];
      }
      this._takenBefore += this._end;
      const next = this._queue.shift();
      if (next === undefined) {
        this._ids = EMPTY;
        this._pos = this._lim = this._end = 0;
        return undefined;
      }
      this._ids = next;
      this._pos = this._lim = 0;
      this._end = next.length;
    }
  }

  /** Appends IDs (increasing, above all before) and hands them to waiting callers first. @private @param {BigInt64Array<ArrayBufferLike>} ids */
  _append(ids) {
    this._appended += ids.length;
    if (this._pos >= this._end && this._queue.length === 0) {
      this._takenBefore += this._end;
      this._ids = ids;
      this._pos = 0;
      this._end = ids.length;
      this._lim = Math.min(ids.length, CHUNK);
    } else {
      this._queue.push(ids);
    }
    if (this._waitHead < this._waiters.length) {
      while (this._waitHead < this._waiters.length) {
        const id = this._take();
        if (id === undefined) break;
        this._waiters[this._waitHead++].resolve(id);
      }
      if (this._waitHead === this._waiters.length) {
        this._waiters = [];
        this._waitHead = 0;
        if (this._waitTimer !== null) clearTimeout(this._waitTimer);
        this._waitTimer = null;
      }
    }
    if (this._readyWaiters.size > 0) {
      for (const r of this._readyWaiters) {
        clearTimeout(r.timer);
        r.resolve();
      }
      this._readyWaiters.clear();
    }
  }

  /**
   * One timer for the oldest waiting caller's deadline. It acts after the event loop's next
   * poll: when a long synchronous task held the loop, IDs that arrived meanwhile are served first.
   * @private
   */
  _armWaitTimer() {
    const w = this._waiters[this._waitHead];
    const timer = setTimeout(() => setImmediate(() => {
      if (this._waitTimer === timer) this._expire();
    }), Math.max(0, Math.ceil(w.until - now())));
    this._waitTimer = timer;
  }

  /** @private */
  _expire() {
    this._waitTimer = null;
    const t = now() + 0.5;
    /** @type {Error | null} */
    let error = null;
    while (this._waitHead < this._waiters.length && this._waiters[this._waitHead].until <= t) {
      error ??= this._refillEps.unavailable('no endpoint gave an ID', this._s.deadlineMs);
      this._waiters[this._waitHead++].reject(error);
    }
    if (this._waitHead === this._waiters.length) {
      this._waiters = [];
      this._waitHead = 0;
    } else {
      this._armWaitTimer();
    }
  }

  // ---- the refill -------------------------------------------------------------------------

  /** Starts the refill on first need: a client used only for segments fetches no IDs. @private */
  _startRefill() {
    if (this._refill === null && !this._closed) this._refill = this._run();
  }

  /** Wakes the refill if it is idle (cheap otherwise). @private */
  _wake() {
    const w = this._wakeup;
    if (w !== null) {
      this._wakeup = null;
      w();
    }
  }

  /** Waits `ms` (not keeping the process alive) or until woken. @private @param {number} ms */
  _idle(ms) {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this._wakeup === done) this._wakeup = null;
        resolve(undefined);
      };
      const timer = setTimeout(done, Math.max(1, ms));
      timer.unref();
      this._wakeup = done;
    });
  }

  /** @private */
  async _run() {
    let errorsInRow = 0;
    while (!this._closed) {
      try {
        await this._step();
        errorsInRow = 0;
      } catch (e) {
        // Not a server's failure (those are handled in _step): a bug. Not again at once.
        errorsInRow++;
        process.emitWarning(`idmint client refill failed: ${/** @type {Error} */ (e)?.stack ?? e}`);
        await this._idle(backoffMs(errorsInRow));
      }
    }
  }

  /** One look at the buffer: idle, or one request for IDs. @private */
  async _step() {
    const taken = this._takenBefore + this._pos;
    this._demand.observe(taken, now());
    const target = this._demand.target();
    const buffered = this._appended - taken;
    if (buffered >= target) {
      await this._idle(IDLE_MS);
      return;
    }
    const eps = this._refillEps;
    const i = eps.pick();
    if (i < 0) {
      await this._idle(Math.min(IDLE_MS, eps.untilNext()));
      return;
    }
    const s = this._s;
    const count = Math.min(s.maxBatch, Math.max(MIN_TARGET, target - buffered));
    /** @type {Answer} */
    let a;
    try {
      a = await exchange(this._eps[i], `/v1/ids?count=${count}`, ID64, s.callTimeoutMs, s.token, true, this._abort.signal);
    } catch (e) {
      if (this._closed) return;
      if (!(e instanceof TransportError)) throw e;
      eps.failed(i, e.failure);
      return;
    }
    if (this._closed) return;
    if (a.status !== 200) {
      eps.failed(i, statusFailure(a), retryAfterSeconds(a.headers['retry-after']));
      return;
    }
    const type = a.headers['content-type'] ?? '';
    const body = a.body;
    if (!type.startsWith(ID64) || body.length === 0 || body.length % 8 !== 0) {
      eps.failed(i, `bad answer: ${body.length} bytes of ${type || 'no content type'}, expected ${ID64}`);
      return;
    }
    eps.succeeded(i);
    const n = body.length >>> 3;
    // Big-endian on the wire; little-endian words let the order check compare without BigInts.
    Buffer.from(body.buffer, body.byteOffset, body.length).swap64();
    const kept = this._order.accept(new Uint32Array(body.buffer, body.byteOffset, 2 * n), n);
    if (kept > 0) this._append(new BigInt64Array(body.buffer, body.byteOffset, kept));
  }

  // ---- segments and serials ---------------------------------------------------------------

  /**
   * Asks the endpoints in order, failing over as the refill does, until one answers with a
   * body that `pick` accepts (not undefined) or the deadline `end` passes. A 404 or 400 is the
   * caller's mistake, not an endpoint's: thrown at once as IdmintArgumentError.
   * @internal
   * @template T
   * @param {Endpoints<Endpoint>} eps @param {number} end @param {string} what @param {string} none
   * @param {string} path @param {(body: any) => T | undefined} pick
   * @returns {Promise<T>}
   */
  async _call(eps, end, what, none, path, pick) {
    const s = this._s;
    for (;;) {
      if (this._closed) throw new IdClientClosedError();
      const left = end - now();
      if (left <= 0) throw eps.unavailable(none, s.deadlineMs);
      const i = eps.pick();
      if (i < 0) {
        await sleep(Math.max(1, Math.min(left, eps.untilNext())), undefined, { signal: this._abort.signal }).catch(() => {});
        continue;
      }
      const ep = this._eps[i];
      /** @type {Answer} */
      let a;
      try {
        a = await exchange(ep, path, JSON_TYPE, Math.min(left, s.callTimeoutMs), s.token, false, this._abort.signal);
      } catch (e) {
        if (this._closed) throw new IdClientClosedError();
        if (!(e instanceof TransportError)) throw e;
        eps.failed(i, e.failure);
        continue;
      }
      if (this._closed) throw new IdClientClosedError();
      if (a.status === 404) throw new IdmintArgumentError(`unknown ${what} at ${ep.given}: ${problemDetail(a)}`);
      if (a.status === 400) throw new IdmintArgumentError(`${what} refused by ${ep.given}: ${problemDetail(a)}`);
      if (a.status !== 200) {
        eps.failed(i, statusFailure(a), retryAfterSeconds(a.headers['retry-after']));
        continue;
      }
      let value;
      try {
        value = pick(JSON.parse(Buffer.from(a.body.buffer, a.body.byteOffset, a.body.length).toString('utf8')));
      } catch {
        value = undefined;
      }
      if (value === undefined) {
        // Backed off like a failure, not asked again at once until the deadline.
        eps.failed(i, `answered ${none}`);
        continue;
      }
      eps.succeeded(i);
      return value;
    }
  }
}

/**
 * The values of one segment tag, from {@link IdClient.segment}: a buffer of `segmentBatch`
 * values refilled on demand with the client's failover. Values increase within what one server
 * hands out; after a failover they are unique but may go back (each server draws its own
 * ranges of a tag).
 */
export class SegmentClient {
  /** @param {IdClient} client @param {string} tag */
  constructor(client, tag) {
    /** The tag this hands out values of. @readonly */
    this.tag = tag;
    /** @private */
    this._c = client;
    /** @private @type {Endpoints<Endpoint>} */
    this._eps = new Endpoints(/** @type {any} */ (client)._eps, now);
    /** @private @type {bigint[]} */
    this._ids = [];
    /** @private */
    this._pos = 0;
    /** @private @type {Promise<void> | null} */
    this._fill = null;
    /** @private */
    this._path = `/api/v1/segments/${encodeURIComponent(tag)}/ids?count=${/** @type {any} */ (client)._s.segmentBatch}`;
    /** @private */
    this._none = `no ID of segment tag '${tag}'`;
  }

  /**
   * The next value of this tag, from the buffer or, when it is empty, from a server within the
   * client's deadline (counted from this call).
   * Rejects with {@link IdmintArgumentError} when a server does not know the tag (the message
   * names the tag and the server), {@link IdServiceUnavailableError}, {@link IdClientClosedError}.
   * @returns {Promise<bigint>}
   */
  next() {
    const i = this._pos;
    if (i < this._ids.length && !this._c.closed) {
      this._pos = i + 1;
      return Promise.resolve(this._ids[i]);
    }
    return this._slow();
  }

  /** @private @returns {Promise<bigint>} */
  async _slow() {
    const c = /** @type {any} */ (this._c);
    const deadlineMs = c._s.deadlineMs;
    const end = now() + deadlineMs;
    for (;;) {
      if (c._closed) throw new IdClientClosedError();
      if (this._pos < this._ids.length) return this._ids[this._pos++];
      if (this._fill === null) {
        const fill = this._fillUntil(end);
        this._fill = fill;
        try {
          await fill;
        } finally {
          this._fill = null;
        }
      } else {
        const left = end - now();
        if (left <= 0) throw this._eps.unavailable(this._none, deadlineMs);
        await settledOrAfter(this._fill, left);
      }
    }
  }

  /** @private @param {number} end */
  async _fillUntil(end) {
    const ids = await /** @type {IdClient} */ (this._c)._call(this._eps, end, `segment tag '${this.tag}'`, this._none, this._path,
      (j) => (Array.isArray(j?.ids) && j.ids.length > 0 && j.ids.every(isDecimal) ? j.ids.map(BigInt) : undefined));
    this._ids = ids;
    this._pos = 0;
  }
}

/**
 * The values of one serial, from {@link IdClient.serial}: each call asks a server, with the
 * client's failover; never buffered, since a value held in a buffer could outlive its period.
 */
export class SerialClient {
  /** @param {IdClient} client @param {string} name */
  constructor(client, name) {
    /** The serial this hands out values of. @readonly */
    this.name = name;
    /** @private */
    this._c = client;
    /** @private @type {Endpoints<Endpoint>} */
    this._eps = new Endpoints(/** @type {any} */ (client)._eps, now);
  }

  /**
   * `next()`: the serial's next value, such as `INV-20261128-000042`. `next(n)`: its next `n`
   * values in one request, as an array, in the order one server took them.
   * Rejects with {@link IdmintArgumentError} when a server does not define the serial or
   * refuses the count, {@link IdServiceUnavailableError}, {@link IdClientClosedError}.
   * @param {number} [count]
   * @returns {Promise<any>}
   */
  async next(count) {
    const c = /** @type {any} */ (this._c);
    if (c._closed) throw new IdClientClosedError();
    if (count !== undefined && (typeof count !== 'number' || !Number.isInteger(count) || count < 1)) {
      throw new IdmintArgumentError(`count of serial '${this.name}' must be a whole number of at least 1, got ${count}`);
    }
    const n = count ?? 1;
    const end = now() + c._s.deadlineMs;
    const path = `/api/v1/serials/${encodeURIComponent(this.name)}?count=${n}`;
    const values = await /** @type {IdClient} */ (this._c)._call(this._eps, end, `serial '${this.name}'`, `no value of serial '${this.name}'`, path,
      (j) => (Array.isArray(j?.values) && j.values.length > 0 && j.values.every((/** @type {unknown} */ v) => typeof v === 'string') ? j.values : undefined));
    return count === undefined ? values[0] : values;
  }
}

/** @param {string} what @param {unknown} name */
function checkName(what, name) {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new IdmintArgumentError(`${what} must be a non-blank string, got ${typeof name === 'string' ? JSON.stringify(name) : String(name)}`);
  }
}

/** @param {unknown} v */
function isDecimal(v) {
  return typeof v === 'string' && /^[0-9]{1,20}$/.test(v);
}

/** Resolves when `p` settles or after `ms`, whichever first. @param {Promise<unknown>} p @param {number} ms */
function settledOrAfter(p, ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(1, Math.ceil(ms)));
    const done = () => {
      clearTimeout(timer);
      resolve(undefined);
    };
    p.then(done, done);
  });
}

/** `503: not ready: no lease` (Retry-After is added by Endpoints.failed). @param {Answer} a */
function statusFailure(a) {
  return `${a.status}: ${problemDetail(a)}`;
}

/** The problem's detail (or title), else the body's first line, else the status text. @param {Answer} a */
function problemDetail(a) {
  const text = Buffer.from(a.body.buffer, a.body.byteOffset, a.body.length).toString('utf8');
  try {
    const p = JSON.parse(text);
    if (typeof p?.detail === 'string' && p.detail) return p.detail;
    if (typeof p?.title === 'string' && p.title) return p.title;
  } catch {
    // not JSON
  }
  const line = text.trim().split('\n', 1)[0].slice(0, 200);
  return line || STATUS_CODES[a.status] || 'no detail';
}
