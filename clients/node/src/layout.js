// ID layouts and decode: a port of idmint's Layout and LayoutSpec (idmint-core), same rules,
// same presets, same results (test/layout.test.mjs checks them against the Java CLI's output).

import { IdmintArgumentError } from './errors.js';

/** 2026-01-01T00:00:00Z, the epoch of idmint's own presets and of custom layouts. */
export const DEFAULT_EPOCH_MS = 1767225600000;
/** 2010-11-04T01:42:54.657Z, the epoch of Twitter Snowflake and Meituan Leaf. */
const TWITTER_EPOCH_MS = 1288834974657;
const MAX_LONG = (1n << 63n) - 1n;
const TWO_64 = 1n << 64n;
const FIELDS = ['time', 'datacenter', 'worker', 'shard', 'sequence'];
const ALIASES = {
  time: 'time', datacenter: 'datacenter', dc: 'datacenter', region: 'datacenter',
  worker: 'worker', machine: 'worker', shard: 'shard', sequence: 'sequence', seq: 'sequence',
};

/**
 * The bit layout of an ID: its fields from the most significant down, the length of one time
 * tick and the epoch. Made by {@link Layout.parse}; immutable.
 */
export class Layout {
  /**
   * @param {string | null} name preset name, null for a custom layout
   * @param {string[]} order fields with a width, most significant first
   * @param {Record<string, number>} widths
   * @param {number} tickMs
   * @param {number} epochMs
   */
  constructor(name, order, widths, tickMs, epochMs) {
    /** The preset name, or "custom". */
    this.name = name ?? 'custom';
    /** @type {readonly string[]} */
    this.fields = Object.freeze(order.slice());
    this.tickMs = tickMs;
    this.epochMs = epochMs;
    /** @type {Record<string, {width: number, shift: bigint, mask: bigint}>} */
    const parts = {};
    let bits = 0;
    for (let i = order.length - 1; i >= 0; i--) {
      const w = widths[order[i]];
      parts[order[i]] = { width: w, shift: BigInt(bits), mask: (1n << BigInt(w)) - 1n };
      bits += w;
    }
    for (const f of FIELDS) {
      if (!parts[f]) parts[f] = { width: 0, shift: 0n, mask: 0n };
    }
    /** @private */
    this._parts = parts;
    /** Bits used in all; IDs are below 2^totalBits. */
    this.totalBits = bits;
    /** True when the layout uses all 64 bits: its IDs read as unsigned numbers. */
    this.unsigned = bits === 64;
    Object.freeze(this);
  }

  /**
   * Parses a layout spec: a preset name (`snowflake`, `region`, `instagram`, `sonyflake`,
   * `uid-generator`, `js-safe`, `leaf`, `twitter`, `discord`, `sonyflake-2014`,
   * `uid-generator-2016`), optionally followed by `,epoch=…` or `,tick=…`; or fields from the
   * most significant down, e.g. `time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z`.
   * @param {string | Layout} spec
   * @returns {Layout}
   * @throws {IdmintArgumentError} naming the offending part
   */
  static parse(spec) {
    if (spec instanceof Layout) return spec;
    if (typeof spec !== 'string') {
      throw new IdmintArgumentError(`layout must be a spec string, got ${typeof spec}`);
    }
    let layout = cache.get(spec);
    if (layout === undefined) {
      layout = parseSpec(spec);
      if (cache.size >= 256) cache.clear();
      cache.set(spec, layout);
    }
    return layout;
  }

  /** The presets, in the order the docs list them. @returns {readonly Layout[]} */
  static presets() {
    return PRESETS;
  }

  /** The width of a field (0 when the layout has none). @param {string} field */
  bits(field) {
    return this._parts[field]?.width ?? 0;
  }

  /** The canonical spec: every field from the most significant, tick and epoch. */
  get spec() {
    const fields = this.fields.map((f) => `${f}=${this._parts[f].width}`).join(',');
    return `${fields},tick=${formatTick(this.tickMs)},epoch=${formatInstant(this.epochMs)}`;
  }

  /**
   * Splits an ID into its parts, exactly, as bigints.
   * @param {bigint | string | number} id
   * @returns {{timestampMs: bigint, datacenter: bigint, worker: bigint, shard: bigint, sequence: bigint}}
   * @throws {IdmintArgumentError} when the ID is malformed, negative, or uses bits the layout has not
   */
  decodeExact(id) {
    const v = toBigInt(id);
    const u = BigInt.asUintN(64, v);
    if (u > MAX_LONG && !this.unsigned) {
      throw new IdmintArgumentError(`ID ${v} is negative as a signed 64-bit number; IDs of layout ${this.name} are positive`);
    }
    if (this.totalBits < 63 && (u >> BigInt(this.totalBits)) !== 0n) {
      throw new IdmintArgumentError(`ID ${v} uses more than the ${this.totalBits} bits of layout ${this.name}`);
    }
    const p = this._parts;
    const get = (/** @type {string} */ f) => (u >> p[f].shift) & p[f].mask;
    return {
      timestampMs: BigInt(this.epochMs) + get('time') * BigInt(this.tickMs),
      datacenter: get('datacenter'),
      worker: get('worker'),
      shard: get('shard'),
      sequence: get('sequence'),
    };
  }

  /**
   * Splits an ID into its parts as numbers (exact for every preset; a custom layout with a
   * sequence wider than 53 bits, or times past year 275760, would lose digits: use
   * {@link Layout.decodeExact}).
   * @param {bigint | string | number} id
   */
  decode(id) {
    const x = this.decodeExact(id);
    return {
      timestampMs: Number(x.timestampMs),
      datacenter: Number(x.datacenter),
      worker: Number(x.worker),
      shard: Number(x.shard),
      sequence: Number(x.sequence),
    };
  }

  toString() {
    return this.name === 'custom' ? this.spec : this.name;
  }
}

/** @type {Map<string, Layout>} */
const cache = new Map();

/**
 * The parts of an ID: `{timestampMs, datacenter, worker, shard, sequence}` (Unix milliseconds at
 * the start of the ID's tick; 0 for a field the layout has not).
 * @param {bigint | string | number} id an ID: bigint, decimal string, or safe integer
 * @param {string | Layout} [layout] a layout spec or preset name; default `snowflake`
 */
export function decode(id, layout = 'snowflake') {
  return Layout.parse(layout).decode(id);
}

/** @param {bigint | string | number} id @returns {bigint} */
function toBigInt(id) {
  let v;
  if (typeof id === 'bigint') {
    v = id;
  } else if (typeof id === 'string') {
    const t = id.trim();
    if (!/^-?[0-9]{1,20}$/.test(t)) {
      throw new IdmintArgumentError(`ID '${id}' is not a decimal integer`);
    }
    v = BigInt(t);
  } else if (typeof id === 'number') {
    if (!Number.isSafeInteger(id)) {
      throw new IdmintArgumentError(`ID ${id} is not a safe integer; pass IDs as bigint or decimal string`);
    }
    v = BigInt(id);
  } else {
    throw new IdmintArgumentError(`ID must be a bigint, decimal string or safe integer, got ${typeof id}`);
  }
  if (v < -(1n << 63n) || v >= TWO_64) {
    throw new IdmintArgumentError(`ID ${v} does not fit in 64 bits`);
  }
  return v;
}

/** @param {string} spec @param {string | null} [presetName] */
function parseSpec(spec, presetName = null) {
  if (spec.trim() === '') {
    throw new IdmintArgumentError("layout spec is empty; use a preset name such as 'snowflake' "
      + "or fields such as 'time=41,datacenter=5,worker=5,sequence=12'");
  }
  const trimmed = spec.trim();
  const head = trimmed.split(',', 1)[0].trim().toLowerCase();
  if (head.includes('=')) return parseFields(trimmed, null);
  const base = PRESETS.find((p) => p.name === head);
  if (!base) {
    throw new IdmintArgumentError(`unknown layout preset '${head}'; presets are ${PRESETS.map((p) => p.name).join(', ')}`);
  }
  const comma = trimmed.indexOf(',');
  const rest = comma >= 0 ? trimmed.slice(comma + 1) : '';
  if (rest.trim() === '') return base;
  /** @type {Record<string, string>} */
  const overrides = {};
  for (const part of rest.split(',')) {
    const eq = part.indexOf('=');
    const key = (eq >= 0 ? part.slice(0, eq) : part).trim().toLowerCase();
    if (eq < 0 || !(key === 'tick' || key === 'epoch')) {
      throw new IdmintArgumentError(`layout '${spec}': a preset takes only 'epoch=' and 'tick=' after its name, not '${part.trim()}'; write all fields instead to change widths`);
    }
    if (key in overrides) throw new IdmintArgumentError(`layout '${spec}': ${key} given twice`);
    overrides[key] = part.slice(eq + 1).trim();
  }
  let fields = base.fields.map((f) => `${f}=${base.bits(f)},`).join('');
  fields += `tick=${overrides.tick ?? formatTick(base.tickMs)}`;
  fields += `,epoch=${overrides.epoch ?? String(base.epochMs)}`;
  try {
    return parseFields(fields, null);
  } catch (e) {
    throw new IdmintArgumentError(String(/** @type {Error} */ (e).message).replace(fields, spec));
  }
}

/** @param {string} spec @param {string | null} presetName @returns {Layout} */
function parseFields(spec, presetName) {
  /** @type {string[]} */
  const order = [];
  /** @type {Record<string, number>} */
  const widths = {};
  let tick = 1;
  let epoch = DEFAULT_EPOCH_MS;
  let tickSeen = false;
  let epochSeen = false;
  for (const raw of spec.split(',')) {
    const part = raw.trim();
    const eq = part.indexOf('=');
    if (eq <= 0) throw new IdmintArgumentError(`layout '${spec}': expected key=value, got '${part}'`);
    const key = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim();
    if (key === 'tick') {
      if (tickSeen) throw new IdmintArgumentError(`layout '${spec}': tick given twice`);
      tickSeen = true;
      tick = parseTick(spec, value);
    } else if (key === 'epoch') {
      if (epochSeen) throw new IdmintArgumentError(`layout '${spec}': epoch given twice`);
      epochSeen = true;
      epoch = parseEpoch(spec, value);
    } else {
      const field = Object.hasOwn(ALIASES, key) ? ALIASES[/** @type {keyof ALIASES} */ (key)] : undefined;
      if (!field) {
        throw new IdmintArgumentError(`layout '${spec}': unknown key '${key}'; keys are time, datacenter, worker, shard, sequence, tick, epoch`);
      }
      if (field in widths) throw new IdmintArgumentError(`layout '${spec}': field '${field}' given twice`);
      const w = /^[+-]?[0-9]{1,10}$/.test(value) ? Number(value) : NaN;
      if (!Number.isInteger(w) || w > 2147483647 || w < -2147483648) {
        throw new IdmintArgumentError(`layout '${spec}': width of '${field}' is not a whole number: '${value}'`);
      }
      if (w < 0 || w > 63) throw new IdmintArgumentError(`layout '${spec}': width of '${field}' must be 0..63, got ${w}`);
      widths[field] = w;
      order.push(field);
    }
  }
  return validated(spec, presetName, order, widths, tick, epoch);
}

/**
 * @param {string} spec @param {string | null} presetName @param {string[]} order
 * @param {Record<string, number>} widths @param {number} tick @param {number} epoch
 */
function validated(spec, presetName, order, widths, tick, epoch) {
  if (!widths.time) throw new IdmintArgumentError(`layout '${spec}': needs a 'time' field of at least 1 bit`);
  if (order[0] !== 'time') {
    throw new IdmintArgumentError(`layout '${spec}': 'time' must be the first (most significant) field, so that IDs sort by time`);
  }
  if (!('sequence' in widths)) throw new IdmintArgumentError(`layout '${spec}': needs a 'sequence' field`);
  const total = Object.values(widths).reduce((a, b) => a + b, 0);
  if (total > 64) {
    throw new IdmintArgumentError(`layout '${spec}': fields add up to ${total} bits; at most 64 fit in an ID (63 for IDs that idmint mints, whose sign bit stays 0)`);
  }
  for (const f of FIELDS) {
    if (f !== 'time' && f !== 'sequence' && (widths[f] ?? 0) > 31) {
      throw new IdmintArgumentError(`layout '${spec}': '${f}' may be at most 31 bits wide, got ${widths[f]}`);
    }
  }
  const kept = order.filter((f) => widths[f] > 0 || f === 'sequence');
  // The time field must run out at a representable instant (Java: a long of milliseconds).
  const ticks = 1n << BigInt(widths.time);
  if (ticks > (MAX_LONG - BigInt(epoch)) / BigInt(tick)) {
    throw new IdmintArgumentError(`layout '${spec}': the time field outlasts any representable date; use fewer time bits or a shorter tick`);
  }
  const layout = new Layout(presetName, kept, widths, tick, epoch);
  if (presetName === null && PRESETS) {
    const same = PRESETS.find((p) => p.spec === layout.spec);
    if (same) return same;
  }
  return layout;
}

/** @param {string} spec @param {string} value */
function parseTick(spec, value) {
  const v = value.toLowerCase();
  let factor;
  let digits;
  if (v.endsWith('ms')) {
    factor = 1;
    digits = v.slice(0, -2);
  } else if (v.endsWith('s')) {
    factor = 1000;
    digits = v.slice(0, -1);
  } else {
    throw new IdmintArgumentError(`layout '${spec}': tick '${value}' needs a unit, e.g. 1ms, 10ms or 1s`);
  }
  if (!/^[+-]?[0-9]{1,19}$/.test(digits)) {
    throw new IdmintArgumentError(`layout '${spec}': tick '${value}' is not a whole number of ms or s`);
  }
  const n = Number(digits);
  if (n < 1 || n > 86400000 / factor) {
    throw new IdmintArgumentError(`layout '${spec}': tick '${value}' must be between 1ms and one day`);
  }
  return n * factor;
}

const ISO = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|[+-][0-9]{2}:[0-9]{2})$/i;

/** @param {string} spec @param {string} value */
function parseEpoch(spec, value) {
  const bad = () => new IdmintArgumentError(`layout '${spec}': epoch '${value}' is neither Unix milliseconds nor an ISO-8601 instant such as 2026-01-01T00:00:00Z`);
  let millis;
  if (/^[0-9]+$/.test(value)) {
    const big = BigInt(value);
    if (big > MAX_LONG) throw bad();
    if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw bad(); // past any date a JS number holds exactly
    millis = Number(big);
  } else {
    const m = ISO.exec(value);
    if (!m) throw bad();
    const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
    if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) throw bad();
    const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
    const dt = new Date(0);
    dt.setUTCFullYear(y, mo - 1, d); // also years 0..99, which Date.UTC would move to 19xx
    dt.setUTCHours(h, mi, s, ms);
    if (dt.getUTCDate() !== d || dt.getUTCMonth() !== mo - 1) throw bad();
    millis = dt.getTime();
    const off = m[8].toUpperCase();
    if (off !== 'Z') {
      const sign = off[0] === '-' ? -1 : 1;
      const oh = Number(off.slice(1, 3));
      const om = Number(off.slice(4, 6));
      if (oh > 18 || om > 59) throw bad();
      millis -= sign * (oh * 60 + om) * 60000;
    }
  }
  if (millis < 0) throw new IdmintArgumentError(`layout '${spec}': epoch '${value}' is before 1970`);
  return millis;
}

/** @param {number} tickMs */
function formatTick(tickMs) {
  return tickMs % 1000 === 0 ? `${tickMs / 1000}s` : `${tickMs}ms`;
}

/** An instant as Java's Instant.toString writes it (no fraction when whole seconds). @param {number} ms */
function formatInstant(ms) {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(ms);
  const iso = d.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/** @type {Layout[]} */
let PRESETS = /** @type {any} */ (null);
PRESETS = [
  ['snowflake', 'time=41,datacenter=5,worker=5,sequence=12'],
  ['region', 'time=41,datacenter=3,worker=10,sequence=9'],
  ['instagram', 'time=41,shard=13,sequence=9'],
  ['sonyflake', 'time=39,sequence=8,worker=16,tick=10ms'],
  ['uid-generator', 'time=28,worker=22,sequence=13,tick=1s'],
  ['js-safe', 'time=41,worker=5,sequence=7'],
  ['leaf', `time=41,worker=10,sequence=12,epoch=${TWITTER_EPOCH_MS}`],
  ['twitter', `time=41,datacenter=5,worker=5,sequence=12,epoch=${TWITTER_EPOCH_MS}`],
  ['discord', 'time=42,datacenter=5,worker=5,sequence=12,epoch=2015-01-01T00:00:00Z'],
  ['sonyflake-2014', 'time=39,sequence=8,worker=16,tick=10ms,epoch=2014-09-01T00:00:00Z'],
  ['uid-generator-2016', 'time=28,worker=22,sequence=13,tick=1s,epoch=1463673600000'],
].map(([name, spec]) => parseFields(spec, name));
Object.freeze(PRESETS);
