// Scripted in-process servers for the unit tests (node:http, node:net on 127.0.0.1, port 0).

import http from 'node:http';
import net from 'node:net';

/** IDs as the wire has them: 8-byte big-endian each. @param {bigint[]} ids */
export function id64(ids) {
  const b = Buffer.alloc(ids.length * 8);
  ids.forEach((id, i) => b.writeBigInt64BE(id, i * 8));
  return b;
}

/** @param {http.IncomingMessage} req */
export function countOf(req) {
  return Number(new URL(req.url ?? '/', 'http://x').searchParams.get('count') ?? 1);
}

/** Answers `count` IDs from `next` upward. @param {http.ServerResponse} res @param {number} count @param {{next: bigint}} state */
export function sendIds(res, count, state) {
  const ids = [];
  for (let i = 0; i < count; i++) ids.push(state.next++);
  res.writeHead(200, { 'content-type': 'application/vnd.idmint.id64' });
  res.end(id64(ids));
}

/** @param {http.ServerResponse} res @param {number} status @param {string} detail @param {Record<string, string>} [headers] */
export function problem(res, status, detail, headers = {}) {
  const body = JSON.stringify({ type: 'about:blank', title: http.STATUS_CODES[status], status, detail });
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  res.end(body);
}

/**
 * An HTTP server on 127.0.0.1 with a handler; `requests` logs each request with its time.
 * @param {(req: http.IncomingMessage, res: http.ServerResponse, n: number) => void} handler
 */
export async function scripted(handler) {
  /** @type {{url: string, at: number, headers: http.IncomingHttpHeaders}[]} */
  const requests = [];
  const server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? '', at: performance.now(), headers: req.headers });
    handler(req, res, requests.length);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {net.AddressInfo} */ (server.address()).port;
  return {
    endpoint: `127.0.0.1:${port}`,
    requests,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/** A server that serves IDs from `start` upward. @param {bigint} start */
export function idServer(start) {
  const state = { next: start };
  return scripted((req, res) => sendIds(res, countOf(req), state));
}

/** A server that accepts TCP and never answers (a SIGSTOPped one); counts closed sockets. */
export async function silent() {
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  const stats = { accepted: 0, closed: 0 };
  const server = net.createServer((s) => {
    stats.accepted++;
    sockets.add(s);
    s.on('close', () => {
      stats.closed++;
      sockets.delete(s);
    });
    s.on('error', () => {});
    s.resume(); // read and discard the request, so that the client's close is seen
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {net.AddressInfo} */ (server.address()).port;
  return {
    endpoint: `127.0.0.1:${port}`,
    stats,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/** An endpoint where nothing listens (a port just freed). */
export async function refusedEndpoint() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {net.AddressInfo} */ (server.address()).port;
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  return `127.0.0.1:${port}`;
}
