// The errors of the idmint client (see README.md and docs/clients.md, "Node.js").

/**
 * Bad input: an option, an endpoint, a layout spec or an ID the caller gave, or a segment tag or
 * serial that a server does not know (the message names the tag and the server). Never retried.
 */
export class IdmintArgumentError extends Error {
  /** @param {string} message @param {ErrorOptions} [options] */
  constructor(message, options) {
    super(message, options);
    this.name = 'IdmintArgumentError';
    /** @readonly */
    this.code = 'ERR_IDMINT_INVALID_ARGUMENT';
  }
}

/**
 * No endpoint gave what a caller asked for within the client's deadline. `failures` holds each
 * endpoint's last failure, keyed by the endpoint as it was given, in the client's order
 * (`"none"` for one that has not failed), e.g.
 * `{"127.0.0.1:18081": "503: not ready: no lease (retry after 2 s)",
 *   "127.0.0.1:18082": "timeout: no answer within 1000 ms", "127.0.0.1:18083": "connection refused"}`.
 */
export class IdServiceUnavailableError extends Error {
  /** @param {string} message @param {Record<string, string>} failures */
  constructor(message, failures) {
    super(message);
    this.name = 'IdServiceUnavailableError';
    /** @readonly */
    this.code = 'ERR_IDMINT_UNAVAILABLE';
    /** @readonly */
    this.failures = failures;
  }
}

/** The client was closed before or while the caller waited. */
export class IdClientClosedError extends Error {
  constructor(message = 'the IdClient is closed') {
    super(message);
    this.name = 'IdClientClosedError';
    /** @readonly */
    this.code = 'ERR_IDMINT_CLOSED';
  }
}
