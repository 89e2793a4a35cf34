// How many IDs the buffer should hold, from the rate callers take them (docs/client.md, "Buffer
// and memory"): about 100 ms of that rate, at least one request's worth (1000) and at most the
// buffer's capacity. The rate is measured over windows of at least 10 ms and smoothed: up at
// once, down gently, so a burst raises the target within a few windows and an idle client lets
// it fall back, keeping few IDs (whose timestamps age while they wait) buffered.

/** The time the buffer should cover at the measured rate, in ms. */
export const HORIZON_MS = 100;
/** Never aim lower than one request's worth. */
export const MIN_TARGET = 1000;
const WINDOW_MS = 10;

export class Demand {
  /** @param {number} capacity @param {number} now ms */
  constructor(capacity, now) {
    this.capacity = capacity;
    this.windowStart = now;
    this.takenAtStart = 0;
    /** IDs per second, smoothed. */
    this.rate = 0;
  }

  /** Callers had taken `taken` IDs in all at `now` (ms). @param {number} taken @param {number} now */
  observe(taken, now) {
    const elapsed = now - this.windowStart;
    if (elapsed < WINDOW_MS) return;
    const measured = ((taken - this.takenAtStart) * 1000) / elapsed;
    this.rate = measured >= this.rate ? measured : 0.7 * this.rate + 0.3 * measured;
    this.windowStart = now;
    this.takenAtStart = taken;
  }

  /** How many IDs the buffer should hold now. */
  target() {
    const want = (this.rate * HORIZON_MS) / 1000;
    return Math.floor(Math.max(Math.min(this.capacity, MIN_TARGET), Math.min(this.capacity, want)));
  }
}
