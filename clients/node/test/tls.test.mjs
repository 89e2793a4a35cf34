// TLS and mTLS against an in-process node:https server, with certificates made by openssl at
// test time (skipped when openssl is missing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdClient, IdServiceUnavailableError } from '../src/index.js';
import { countOf, sendIds } from './helpers.mjs';

function haveOpenssl() {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate, in a temp dir. */
function certificates() {
  const dir = mkdtempSync(join(tmpdir(), 'idmint-tls-'));
  const f = (/** @type {string} */ name) => join(dir, name);
  const ssl = (/** @type {string[]} */ args) => execFileSync('openssl', args, { stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(['req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-subj', '/CN=idmint test CA', '-days', '2']);
  for (const [name, ext] of [['server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n'], ['client', 'extendedKeyUsage=clientAuth\n']]) {
    writeFileSync(f(`${name}.ext`), ext);
    ssl(['req', ...ec, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${name}`]);
    ssl(['x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial',
      '-out', f(`${name}.pem`), '-days', '2', '-extfile', f(`${name}.ext`)]);
  }
  return { dir, f };
}

test('TLS: trusted CA and a client certificate (mTLS); untrusted or certificate-less clients get no ID', { skip: !haveOpenssl() && 'openssl is not installed' }, async () => {
  const { dir, f } = certificates();
  const state = { next: 42n };
  const server = https.createServer({
    key: readFileSync(f('server.key')), cert: readFileSync(f('server.pem')), ca: readFileSync(f('ca.pem')),
    requestCert: true, rejectUnauthorized: true,
  }, (req, res) => sendIds(res, countOf(req), state));
  server.on('tlsClientError', () => {});
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const endpoint = `127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  const clients = [];
  try {
    // A bare host:port is https once a TLS option is set; the token may travel over TLS.
    const good = IdClient.connect([endpoint], { caFile: f('ca.pem'), certFile: f('client.pem'), keyFile: f('client.key'), token: 't' });
    clients.push(good);
    assert.equal(await good.nextId(), 42n);

    const noCert = IdClient.connect([`https://${endpoint}`], { caFile: f('ca.pem'), deadlineMs: 800 });
    clients.push(noCert);
    await assert.rejects(noCert.nextId(), (e) => {
      assert.ok(e instanceof IdServiceUnavailableError);
      assert.notEqual(e.failures[`https://${endpoint}`], 'none');
      return true;
    });

    const untrusted = IdClient.connect([endpoint], { tls: true, deadlineMs: 800 });
    clients.push(untrusted);
    await assert.rejects(untrusted.nextId(), (e) => {
      assert.ok(e instanceof IdServiceUnavailableError);
      assert.match(e.failures[endpoint], /^tls: /);
      return true;
    });
  } finally {
    for (const c of clients) await c.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(() => resolve(undefined)));
    rmSync(dir, { recursive: true, force: true });
  }
});
