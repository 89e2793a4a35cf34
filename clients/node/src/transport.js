// One HTTP/1.1 exchange with one endpoint over its keep-alive agent (node:http / node:https,
// one socket per endpoint). A request with no complete answer within its timeout is aborted and
// its socket destroyed, never reused: a stopped server accepts TCP but never answers.

import http from 'node:http';
import https from 'node:https';

/**
 * @typedef {object} Endpoint
 * @property {string} given
 * @property {boolean} secure
 * @property {string} host
 * @property {number} port
 * @property {http.Agent} agent
 */

/**
 * @typedef {object} Answer
 * @property {number} status
 * @property {http.IncomingHttpHeaders} headers
 * @property {Uint8Array} body when `aligned`, a view of a whole ArrayBuffer of its own
 */

/** A request that got no HTTP answer: `failure` says why, as `failures` shows it. */
export class TransportError extends Error {
  /** @param {string} failure @param {unknown} [cause] */
  constructor(failure, cause) {
    super(failure, cause === undefined ? undefined : { cause });
    this.failure = failure;
  }
}

/**
 * The agent of one endpoint: keep-alive, one socket.
 * @param {boolean} secure
 * @param {{ca?: Buffer, cert?: Buffer, key?: Buffer}} tlsFiles
 */
export function agentFor(secure, tlsFiles) {
  const common = { keepAlive: true, maxSockets: 1, maxFreeSockets: 1, keepAliveMsecs: 1000 };
  return secure ? new https.Agent({ ...common, ...tlsFiles }) : new http.Agent(common);
}

/**
 * GETs `path` from `ep`. Resolves with any HTTP answer (the caller judges its status); rejects
 * with {@link TransportError} on a connection or TLS error, or when no complete answer came
 * within `timeoutMs`. A keep-alive socket that the server had closed just before the request
 * (reset before any answer) is tried once more on a new one.
 * @param {Endpoint} ep
 * @param {string} path
 * @param {string} accept
 * @param {number} timeoutMs
 * @param {string | undefined} token
 * @param {boolean} aligned collect the body into an ArrayBuffer of its own (for typed arrays)
 * @param {AbortSignal} [signal] aborts the request (the client's close)
 * @returns {Promise<Answer>}
 */
export function exchange(ep, path, accept, timeoutMs, token, aligned, signal) {
  const started = performance.now();
  return once(ep, path, accept, timeoutMs, token, aligned, signal).catch((e) => {
    if (e instanceof RetryableReset) {
      const left = timeoutMs - (performance.now() - started);
      if (left > 0) {
        return once(ep, path, accept, left, token, aligned, signal, timeoutMs).catch((e2) => {
          throw e2 instanceof RetryableReset ? new TransportError('connection reset', e2.cause) : e2;
        });
      }
      throw new TransportError('connection reset', e.cause);
    }
    throw e;
  });
}

class RetryableReset extends Error {}

/**
 * @param {Endpoint} ep @param {string} path @param {string} accept @param {number} timeoutMs
 * @param {string | undefined} token @param {boolean} aligned @param {AbortSignal | undefined} signal
 * @param {number} [reportedMs]
 * @returns {Promise<Answer>}
 */
function once(ep, path, accept, timeoutMs, token, aligned, signal, reportedMs = timeoutMs) {
  return new Promise((resolve, reject) => {
    /** @type {Record<string, string>} */
    const headers = { accept };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const req = (ep.secure ? https : http).request({
      agent: ep.agent, host: ep.host, port: ep.port, path, method: 'GET', headers, signal,
    });
    let settled = false;
    let answered = false;
    // The clock starts when the request has its socket (the agent hands it over on a later
    // tick, which a caller's long synchronous task can delay), and the timeout acts after the
    // event loop's next poll, so that an answer that came while such a task held the loop is
    // read, not taken for silence.
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    req.once('socket', () => {
      if (settled) return;
      timer = setTimeout(() => setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new TransportError(`timeout: no answer within ${Math.round(reportedMs)} ms`));
        req.destroy(); // the socket too: a silent server's connection is never reused
      }), timeoutMs);
    });
    const fail = (/** @type {any} */ e) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!answered && req.reusedSocket && e?.code === 'ECONNRESET') {
        reject(new RetryableReset('reset', { cause: e }));
      } else {
        reject(new TransportError(describeError(e), e));
      }
    };
    req.on('error', fail);
    req.on('response', (res) => {
      answered = true;
      const length = Number(res.headers['content-length']);
      /** @type {Uint8Array | null} */
      let whole = aligned && Number.isInteger(length) && length > 0 ? new Uint8Array(new ArrayBuffer(length)) : null;
      let filled = 0;
      /** @type {Buffer[]} */
      const chunks = [];
      res.on('data', (/** @type {Buffer} */ chunk) => {
        if (whole !== null && filled + chunk.length <= whole.length) {
          whole.set(chunk, filled);
        } else {
          if (whole !== null) {
            chunks.push(Buffer.from(whole.buffer, 0, filled));
            whole = null;
          }
          chunks.push(chunk);
        }
        filled += chunk.length;
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        let body;
        if (whole !== null && filled === whole.length) {
          body = whole;
        } else if (whole !== null) {
          body = whole.subarray(0, filled);
        } else if (aligned) {
          body = new Uint8Array(new ArrayBuffer(filled));
          let at = 0;
          for (const c of chunks) {
            body.set(c, at);
            at += c.length;
          }
        } else {
          body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        }
        resolve({ status: /** @type {number} */ (res.statusCode), headers: res.headers, body });
      });
      res.on('aborted', () => fail(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' })));
      res.on('error', fail);
    });
    req.end();
  });
}

/**
 * A failure text for a connection error: `connection refused`, `connection reset`,
 * `tls: …`, or the error's code and message.
 * @param {any} e
 */
export function describeError(e) {
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : String(e);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `unknown host: ${message}`;
  if (isTlsError(e)) return `tls: ${message}`;
  return code ? `${code}: ${message}` : message;
}

/** @param {any} e */
function isTlsError(e) {
  const code = typeof e?.code === 'string' ? e.code : '';
  return code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code.startsWith('CERT_')
    || code.startsWith('UNABLE_TO_') || code.includes('SELF_SIGNED') || code === 'HOSTNAME_MISMATCH'
    || typeof e?.library === 'string' || typeof e?.reason === 'string';
}
