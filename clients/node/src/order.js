// The refill's ordering rule (docs/client.md, "Ordering guarantee"): an ID is appended only when
// it is above the last one appended (compared unsigned), so that IDs leave one client increasing
// across requests and servers; the others are dropped and counted. When a server's IDs stay
// below the last appended for longer than the call timeout (a clock that far behind), the order
// starts over from that server's IDs, once, and is counted.

export class Order {
  /** @param {number} resetAfterMs @param {() => number} now ms */
  constructor(resetAfterMs, now) {
    this.resetAfterMs = resetAfterMs;
    this.now = now;
    this.any = false;
    this.lastHi = 0;
    this.lastLo = 0;
    this.dropping = false;
    this.droppingSince = 0;
    /** IDs dropped for not being above the last appended. */
    this.dropped = 0;
    /** Times the order started over. */
    this.resets = 0;
  }

  /**
   * Keeps, in place at the front of `words`, the IDs of `words[0 .. 2n)` above the last one
   * kept; returns how many it kept. `words` holds each ID as two 32-bit words, low first (an
   * ID's 8 bytes in little-endian order): a compare costs no BigInt.
   * @param {Uint32Array} words @param {number} n
   * @returns {number}
   */
  accept(words, n) {
    let k = 0;
    let hi = this.lastHi;
    let lo = this.lastLo;
    let any = this.any;
    for (let i = 0; i < n; i++) {
      const h = words[2 * i + 1];
      const l = words[2 * i];
      if (!any || h > hi || (h === hi && l > lo)) {
        if (k !== i) {
          words[2 * k] = l;
          words[2 * k + 1] = h;
        }
        k++;
        hi = h;
        lo = l;
        any = true;
      }
    }
    this.lastHi = hi;
    this.lastLo = lo;
    this.any = any;
    if (k < n) {
      this.dropped += n - k;
      const now = this.now();
      if (k > 0) {
        this.dropping = false;
      } else if (!this.dropping) {
        this.dropping = true;
        this.droppingSince = now;
      } else if (now - this.droppingSince > this.resetAfterMs) {
        // Every ID of this server has stayed below for longer than the call timeout.
        this.resets++;
        this.dropping = false;
        this.any = false;
        this.dropped -= n;
        return this.accept(words, n);
      }
    } else {
      this.dropping = false;
    }
    return k;
  }
}
