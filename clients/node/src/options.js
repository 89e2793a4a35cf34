// Options and endpoints of IdClient.connect: checked at once, each bad value refused naming it.

import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { IdmintArgumentError } from './errors.js';

/** The defaults, as the Java client's (docs/client.md, "Knobs"). */
export const DEFAULTS = Object.freeze({
  bufferSize: 65536,
  deadlineMs: 5000,
  callTimeoutMs: 1000,
  segmentBatch: 100,
  maxBatch: 10000,
});

const KNOWN = new Set(['bufferSize', 'deadlineMs', 'callTimeoutMs', 'segmentBatch', 'maxBatch',
  'caFile', 'certFile', 'keyFile', 'tls', 'token']);

/**
 * @typedef {object} EndpointSpec
 * @property {string} given the endpoint as the caller wrote it (the key of `failures`)
 * @property {boolean} secure https
 * @property {string} host without brackets
 * @property {number} port
 */

/**
 * @typedef {object} Settings
 * @property {EndpointSpec[]} endpoints
 * @property {number} bufferSize
 * @property {number} deadlineMs
 * @property {number} callTimeoutMs
 * @property {number} segmentBatch
 * @property {number} maxBatch
 * @property {string | undefined} token
 * @property {{ca?: Buffer, cert?: Buffer, key?: Buffer}} tlsFiles
 */

/**
 * Checks the endpoints and options of a client.
 * @param {unknown} endpoints
 * @param {Record<string, unknown> | undefined} options
 * @returns {Settings}
 * @throws {IdmintArgumentError} naming the bad value
 */
export function settings(endpoints, options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new IdmintArgumentError(`options must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) {
      throw new IdmintArgumentError(`unknown option '${key}'; options are ${[...KNOWN].join(', ')}`);
    }
  }
  const o = /** @type {Record<string, unknown>} */ (options);
  const bufferSize = intOption(o, 'bufferSize', 1000, 16777216);
  const segmentBatch = intOption(o, 'segmentBatch', 1, 10000);
  const maxBatch = intOption(o, 'maxBatch', 1, 10000);
  const deadlineMs = msOption(o, 'deadlineMs');
  const callTimeoutMs = msOption(o, 'callTimeoutMs');
  const caFile = fileOption(o, 'caFile');
  const certFile = fileOption(o, 'certFile');
  const keyFile = fileOption(o, 'keyFile');
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new IdmintArgumentError(certFile === undefined
      ? `keyFile ${keyFile} needs certFile too (a client certificate for mTLS)`
      : `certFile ${certFile} needs keyFile too (its private key, PEM)`);
  }
  if (o.tls !== undefined && typeof o.tls !== 'boolean') {
    throw new IdmintArgumentError(`tls must be true or false, got ${describe(o.tls)}`);
  }
  if (o.tls === false && (caFile !== undefined || certFile !== undefined)) {
    throw new IdmintArgumentError(`tls: false contradicts ${caFile !== undefined ? `caFile ${caFile}` : `certFile ${certFile}`}`);
  }
  const tls = o.tls === true || caFile !== undefined || certFile !== undefined;
  if (o.token !== undefined && (typeof o.token !== 'string' || o.token.trim() === '' || /[\r\n]/.test(o.token))) {
    throw new IdmintArgumentError(`token must be a non-blank string on one line, got ${typeof o.token === 'string' ? 'a blank or multi-line string' : describe(o.token)}`);
  }
  const token = /** @type {string | undefined} */ (o.token);

  if (!Array.isArray(endpoints) || endpoints.length === 0) {
    throw new IdmintArgumentError(`at least one endpoint is needed, got ${describe(endpoints)}`);
  }
  const parsed = endpoints.map((e) => parseEndpoint(e, tls));
  const seen = new Set();
  for (const e of parsed) {
    if (seen.has(e.given)) throw new IdmintArgumentError(`endpoint ${e.given} is listed twice`);
    seen.add(e.given);
    if (token !== undefined && !e.secure && !isLoopback(e.host)) {
      throw new IdmintArgumentError(`a token would travel in plaintext to ${e.given}: use https:// or set tls, caFile or certFile`);
    }
  }

  /** @type {{ca?: Buffer, cert?: Buffer, key?: Buffer}} */
  const tlsFiles = {};
  if (caFile !== undefined) {
    tlsFiles.ca = readPem('caFile', caFile);
    if (!tlsFiles.ca.includes('-----BEGIN CERTIFICATE-----')) {
      throw new IdmintArgumentError(`caFile ${caFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    }
  }
  if (certFile !== undefined && keyFile !== undefined) {
    tlsFiles.cert = readPem('certFile', certFile);
    tlsFiles.key = readPem('keyFile', keyFile);
  }
  if (caFile !== undefined || certFile !== undefined) {
    try {
      createSecureContext(tlsFiles);
    } catch (e) {
      throw new IdmintArgumentError(`cannot use the TLS files (caFile ${caFile}, certFile ${certFile}, keyFile ${keyFile}): ${/** @type {Error} */ (e).message}`, { cause: e });
    }
  }
  return { endpoints: parsed, bufferSize, deadlineMs, callTimeoutMs, segmentBatch, maxBatch, token, tlsFiles };
}

/**
 * Parses `host:port`, `[v6]:port`, `http://host:port` or `https://host:port` (no path). A bare
 * `host:port` is https when `tls` is set.
 * @param {unknown} endpoint
 * @param {boolean} tls
 * @returns {EndpointSpec}
 */
export function parseEndpoint(endpoint, tls) {
  if (typeof endpoint !== 'string') {
    throw new IdmintArgumentError(`endpoint must be a string such as "host:8080", got ${describe(endpoint)}`);
  }
  const bad = (/** @type {string} */ why) => new IdmintArgumentError(`malformed endpoint '${endpoint}': ${why}`);
  let rest = endpoint;
  let secure = tls;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(endpoint);
  if (scheme) {
    const s = scheme[1].toLowerCase();
    if (s !== 'http' && s !== 'https') throw bad(`unknown scheme '${scheme[1]}' (http or https)`);
    secure = s === 'https';
    rest = endpoint.slice(scheme[0].length);
  }
  let host;
  let portText;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) throw bad('unclosed [ of an IPv6 address');
    host = rest.slice(1, close);
    if (!/^[0-9A-Fa-f:.]+$/.test(host) || !host.includes(':')) throw bad(`'${host}' is not an IPv6 address`);
    if (rest[close + 1] !== ':') {
      throw bad(rest.length === close + 1 ? 'no port (write [v6]:port)' : `unexpected '${rest.slice(close + 1)}' after the address`);
    }
    portText = rest.slice(close + 2);
  } else {
    const colon = rest.lastIndexOf(':');
    if (colon < 0) {
      if (rest.includes('/')) throw bad('a path is not allowed; write host:port');
      throw bad('no port (write host:port)');
    }
    host = rest.slice(0, colon);
    portText = rest.slice(colon + 1);
    if (host.includes(':')) throw bad('an IPv6 address needs brackets: [::1]:8080');
    if (host.includes('/') || portText.includes('/')) throw bad('a path is not allowed; write host:port');
    if (!/^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9_])?$/.test(host)) throw bad(`'${host}' is not a host name or address`);
  }
  if (/[/?#]/.test(portText)) throw bad('a path is not allowed; write host:port');
  if (!/^[0-9]{1,5}$/.test(portText)) throw bad(`port '${portText}' is not a number`);
  const port = Number(portText);
  if (port < 1 || port > 65535) throw bad(`port ${port} is out of range 1..65535`);
  return { given: endpoint, secure, host, port };
}

/**
 * Whether a host names this machine: localhost, 127.x.x.x or ::1.
 * @param {string} host without brackets
 */
export function isLoopback(host) {
  return host.toLowerCase() === 'localhost' || host === '::1'
    || /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(host);
}

/** @param {Record<string, unknown>} o @param {string} name @param {number} min @param {number} max */
function intOption(o, name, min, max) {
  const v = o[name];
  if (v === undefined) return /** @type {Record<string, number>} */ (DEFAULTS)[name];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new IdmintArgumentError(`${name} must be a whole number from ${min} to ${max}, got ${describe(v)}`);
  }
  return v;
}

/** @param {Record<string, unknown>} o @param {string} name */
function msOption(o, name) {
  const v = o[name];
  if (v === undefined) return /** @type {Record<string, number>} */ (DEFAULTS)[name];
  // setTimeout holds at most 2^31-1 ms (24.8 days).
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > 2147483647) {
    throw new IdmintArgumentError(`${name} must be a positive number of milliseconds (at most 2147483647), got ${describe(v)}`);
  }
  return v;
}

/** @param {Record<string, unknown>} o @param {string} name @returns {string | undefined} */
function fileOption(o, name) {
  const v = o[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') {
    throw new IdmintArgumentError(`${name} must be a file path, got ${describe(v)}`);
  }
  return v;
}

/** @param {string} name @param {string} file */
function readPem(name, file) {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new IdmintArgumentError(`${name} ${file} is not readable: ${/** @type {Error} */ (e).message}`, { cause: e });
  }
}

/** @param {unknown} v @returns {string} */
export function describe(v) {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (Array.isArray(v)) return `[${v.map(describe).join(', ')}]`;
  if (v === null || typeof v !== 'object') return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}
