// Which server to ask now, for one user of them (the ID refill, one segment tag, one serial):
// stay on one endpoint while it answers, move to the next in order when it fails. A failed
// endpoint is not asked again before its Retry-After (whole seconds), or without one before a
// backoff of 250 ms that doubles with each failure in a row up to 8 s; one answer clears it.

import { IdServiceUnavailableError } from './errors.js';

export const FIRST_BACKOFF_MS = 250;
export const MAX_BACKOFF_MS = 8000;

/**
 * The wait after `failuresInRow` failures in a row (1 or more): 250 ms, doubling up to 8 s.
 * @param {number} failuresInRow
 */
export function backoffMs(failuresInRow) {
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.min(Math.max(failuresInRow, 1) - 1, 6));
}

/**
 * The whole seconds of a Retry-After header; 0 when absent or not a number of seconds (an
 * HTTP-date is not honoured: the backoff applies).
 * @param {string | string[] | undefined} value
 */
export function retryAfterSeconds(value) {
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v !== 'string' || !/^\s*[0-9]{1,9}\s*$/.test(v)) return 0;
  return Number(v.trim());
}

/**
 * @template {{given: string}} E
 */
export class Endpoints {
  /**
   * @param {E[]} all
   * @param {() => number} now a monotonic clock in milliseconds
   */
  constructor(all, now) {
    this.all = all;
    this.now = now;
    const t = now();
    /** Per endpoint: failures in a row, not to be asked before, last failure text. */
    this.health = all.map(() => ({ failures: 0, avoidUntil: t, lastFailure: 'none' }));
    this.current = 0;
    /** How many times a failure moved this user to the next endpoint. */
    this.failovers = 0;
  }

  /**
   * The index of the endpoint to ask now: the current one unless it is being avoided, else the
   * next in order that is not; -1 when every endpoint is being avoided.
   */
  pick() {
    const t = this.now();
    const n = this.all.length;
    for (let k = 0; k < n; k++) {
      const i = (this.current + k) % n;
      if (t >= this.health[i].avoidUntil) {
        this.current = i;
        return i;
      }
    }
    return -1;
  }

  /** Milliseconds until some endpoint may be asked again (0 when one may be now). */
  untilNext() {
    const t = this.now();
    let least = Infinity;
    for (const h of this.health) least = Math.min(least, Math.max(0, h.avoidUntil - t));
    return least;
  }

  /** Endpoint `i` answered: its backoff starts over. @param {number} i */
  succeeded(i) {
    this.health[i].failures = 0;
  }

  /**
   * Endpoint `i` failed: avoided for `retryAfter` seconds when given (> 0), else its backoff;
   * the next endpoint becomes the current one.
   * @param {number} i @param {string} failure @param {number} [retryAfter]
   */
  failed(i, failure, retryAfter = 0) {
    const h = this.health[i];
    h.failures++;
    const wait = retryAfter > 0 ? retryAfter * 1000 : backoffMs(h.failures);
    h.avoidUntil = this.now() + wait;
    h.lastFailure = failure + (retryAfter > 0 ? ` (retry after ${retryAfter} s)` : '');
    if (this.current === i && this.all.length > 1) {
      this.current = (i + 1) % this.all.length;
      this.failovers++;
    }
  }

  /** Each endpoint's last failure, by endpoint as given, in order. @returns {Record<string, string>} */
  failures() {
    /** @type {Record<string, string>} */
    const out = {};
    this.all.forEach((e, i) => {
      out[e.given] = this.health[i].lastFailure;
    });
    return out;
  }

  /**
   * The error for a caller that did not get `what` within `deadlineMs`.
   * @param {string} what @param {number} deadlineMs
   */
  unavailable(what, deadlineMs) {
    const failures = this.failures();
    return new IdServiceUnavailableError(`${what} within ${deadlineMs} ms; last failure of each endpoint: ${JSON.stringify(failures)}`, failures);
  }
}
