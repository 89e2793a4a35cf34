// Type declarations of @idmint/client (hand-written; `npm test` checks them with tsc).

/** Options of {@link IdClient.connect}; absent means the default. */
export interface IdClientOptions {
  /** The most IDs buffered, 1000 to 16777216. Default 65536. */
  bufferSize?: number;
  /** The longest `nextId()` (or a segment/serial `next()`) waits before it rejects, ms. Default 5000. */
  deadlineMs?: number;
  /** The longest one server may stay silent before the next is asked, ms. Default 1000. */
  callTimeoutMs?: number;
  /** Segment values fetched per request, per tag, 1 to 10000. Default 100. */
  segmentBatch?: number;
  /** IDs asked per request, 1 to 10000. Default 10000. */
  maxBatch?: number;
  /** PEM file of the CA certificates to trust (instead of the system's); turns TLS on. */
  caFile?: string;
  /** PEM file of a client certificate chain, for mTLS (with `keyFile`); turns TLS on. */
  certFile?: string;
  /** PEM file of the client certificate's private key (with `certFile`). */
  keyFile?: string;
  /** TLS with the system's trusted CAs for bare `host:port` endpoints. Default false. */
  tls?: boolean;
  /** Sent as `Authorization: Bearer <token>`; over plaintext only to a loopback host. */
  token?: string;
}

/** Counters of a client. */
export interface IdClientStats {
  /** IDs fetched and not yet handed out. */
  bufferedIds: number;
  /** IDs fetched but dropped for not being above the last one buffered. */
  droppedIds: number;
  /** Times the order started over from a server far behind. */
  orderingResets: number;
  /** Times the ID refill moved to the next endpoint after a failure. */
  failovers: number;
}

/** The parts of an ID, as {@link decode} reads them (0 for a field the layout has not). */
export interface IdParts {
  /** Unix milliseconds at the start of the ID's tick. */
  timestampMs: number;
  datacenter: number;
  worker: number;
  shard: number;
  sequence: number;
}

/** The parts of an ID, exactly, as bigints. */
export interface ExactIdParts {
  timestampMs: bigint;
  datacenter: bigint;
  worker: bigint;
  shard: bigint;
  sequence: bigint;
}

/** An ID as decode accepts it: a bigint, a decimal string, or a safe integer. */
export type IdInput = bigint | string | number;

/**
 * A client of idmint servers: IDs from a local buffer kept filled over HTTP/1.1 keep-alive
 * from one server at a time, with failover. IDs come out increasing in the order `nextId()`
 * resolves them.
 */
export class IdClient {
  /**
   * A client of these servers, asked in this order: `host:port`, `[v6]:port`,
   * `http://host:port` or `https://host:port`. Throws {@link IdmintArgumentError} at once,
   * naming the value, for a bad endpoint or option. Dials nothing until IDs are asked for.
   */
  static connect(endpoints: readonly string[], options?: IdClientOptions): IdClient;
  /** Same as {@link IdClient.connect}. */
  constructor(endpoints: readonly string[], options?: IdClientOptions);
  /** The next ID, from the buffer (no I/O) unless it is empty. */
  nextId(): Promise<bigint>;
  /** The next ID as a decimal string. */
  nextIdString(): Promise<string>;
  /** Resolves once IDs are buffered; rejects with IdServiceUnavailableError at the deadline. */
  ready(): Promise<void>;
  /** The values of a segment tag, buffered per tag. */
  segment(tag: string): SegmentClient;
  /** The values of a serial, never buffered. */
  serial(name: string): SerialClient;
  stats(): IdClientStats;
  /** Whether close() was called. */
  readonly closed: boolean;
  /** Stops the refill, rejects waiting and later callers, closes connections. */
  close(): Promise<void>;
}

/** The values of one segment tag (from {@link IdClient.segment}). */
export class SegmentClient {
  private constructor();
  readonly tag: string;
  /** The next value; rejects with IdmintArgumentError for a tag a server does not know. */
  next(): Promise<bigint>;
}

/** The values of one serial (from {@link IdClient.serial}); each call asks a server. */
export class SerialClient {
  private constructor();
  readonly name: string;
  /** The serial's next value. */
  next(): Promise<string>;
  /** The serial's next `count` values, in one request. */
  next(count: number): Promise<string[]>;
}

/** No endpoint gave what the caller asked for within the deadline. */
export class IdServiceUnavailableError extends Error {
  readonly code: 'ERR_IDMINT_UNAVAILABLE';
  /**
   * Each endpoint's last failure, keyed by the endpoint as given, in the client's order
   * (`"none"` for one that has not failed), e.g. `"503: not ready: no lease (retry after 2 s)"`,
   * `"timeout: no answer within 1000 ms"`, `"connection refused"`.
   */
  readonly failures: Readonly<Record<string, string>>;
}

/** The client was closed before or while the caller waited. */
export class IdClientClosedError extends Error {
  readonly code: 'ERR_IDMINT_CLOSED';
}

/** Bad input (named in the message), or a segment tag or serial a server does not know. */
export class IdmintArgumentError extends Error {
  readonly code: 'ERR_IDMINT_INVALID_ARGUMENT';
}

/** The bit layout of an ID (a port of idmint's Layout). */
export class Layout {
  private constructor();
  /** A preset name (optionally with `,epoch=…`, `,tick=…`) or fields such as `time=41,worker=4,sequence=12`. */
  static parse(spec: string | Layout): Layout;
  static presets(): readonly Layout[];
  /** The preset name, or "custom". */
  readonly name: string;
  /** The fields with a width, most significant first. */
  readonly fields: readonly string[];
  readonly tickMs: number;
  readonly epochMs: number;
  readonly totalBits: number;
  /** All 64 bits used: IDs read as unsigned (`discord`). */
  readonly unsigned: boolean;
  /** The canonical spec. */
  readonly spec: string;
  bits(field: string): number;
  decode(id: IdInput): IdParts;
  decodeExact(id: IdInput): ExactIdParts;
}

/** The parts of an ID for a layout spec or preset name (default `snowflake`). */
export function decode(id: IdInput, layout?: string | Layout): IdParts;

/** The defaults of the options. */
export const DEFAULTS: Readonly<{
  bufferSize: number;
  deadlineMs: number;
  callTimeoutMs: number;
  segmentBatch: number;
  maxBatch: number;
}>;
