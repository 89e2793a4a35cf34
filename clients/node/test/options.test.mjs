import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdClient, IdmintArgumentError, DEFAULTS } from '../src/index.js';
import { parseEndpoint, isLoopback, settings } from '../src/options.js';

/** Refused at once, as IdmintArgumentError, with a message containing `naming`. */
function refused(fn, naming) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof IdmintArgumentError, `${e}`);
    assert.equal(e.code, 'ERR_IDMINT_INVALID_ARGUMENT');
    assert.ok(e.message.includes(naming), `'${e.message}' should name ${naming}`);
    return true;
  });
}

test('defaults are the Java client\'s', () => {
  const s = settings(['h:1']);
  assert.deepEqual(
    { b: s.bufferSize, d: s.deadlineMs, c: s.callTimeoutMs, s: s.segmentBatch, m: s.maxBatch },
    { b: 65536, d: 5000, c: 1000, s: 100, m: 10000 },
  );
  assert.equal(DEFAULTS.bufferSize, 65536);
});

test('every bad option value is refused naming it', () => {
  const bad = [
    ['bufferSize', 999], ['bufferSize', 16777217], ['bufferSize', 1000.5], ['bufferSize', '65536'],
    ['segmentBatch', 0], ['segmentBatch', 10001], ['maxBatch', 0], ['maxBatch', 10001],
    ['maxBatch', NaN], ['deadlineMs', 0], ['deadlineMs', -5], ['deadlineMs', Infinity],
    ['deadlineMs', '5s'], ['callTimeoutMs', 0], ['callTimeoutMs', 2 ** 31], ['tls', 'yes'],
    ['token', ''], ['token', '  '], ['token', 42], ['token', 'a\nb'], ['caFile', ''], ['caFile', 7],
  ];
  for (const [name, value] of bad) {
    refused(() => IdClient.connect(['127.0.0.1:1'], { [name]: value }), name);
  }
  refused(() => IdClient.connect(['127.0.0.1:1'], { bufersize: 1 }), 'bufersize');
  refused(() => IdClient.connect(['127.0.0.1:1'], /** @type {any} */ ('x')), 'options');
  refused(() => IdClient.connect(['127.0.0.1:1'], { bufferSize: 999 }), '999');
  // Bounds are accepted.
  for (const o of [{ bufferSize: 1000 }, { bufferSize: 16777216 }, { segmentBatch: 1 }, { maxBatch: 10000 }, { deadlineMs: 0.5 }]) {
    IdClient.connect(['127.0.0.1:1'], o).close();
  }
});

test('TLS files: unreadable, unusable, or a certificate without its key are refused naming the file', () => {
  refused(() => IdClient.connect(['h:1'], { caFile: '/nonexistent/ca.pem' }), '/nonexistent/ca.pem');
  const dir = mkdtempSync(join(tmpdir(), 'idmint-'));
  const junk = join(dir, 'junk.pem');
  writeFileSync(junk, 'not a pem');
  refused(() => IdClient.connect(['h:1'], { caFile: junk }), junk);
  refused(() => IdClient.connect(['h:1'], { certFile: junk }), 'keyFile');
  refused(() => IdClient.connect(['h:1'], { keyFile: junk }), 'certFile');
  refused(() => IdClient.connect(['h:1'], { certFile: junk, keyFile: junk }), junk);
  refused(() => IdClient.connect(['h:1'], { tls: false, caFile: junk }), 'tls');
});

test('endpoints: the forms accepted', () => {
  assert.deepEqual(parseEndpoint('h1:8080', false), { given: 'h1:8080', secure: false, host: 'h1', port: 8080 });
  assert.deepEqual(parseEndpoint('h1:8080', true), { given: 'h1:8080', secure: true, host: 'h1', port: 8080 });
  assert.deepEqual(parseEndpoint('http://10.0.0.1:80', true), { given: 'http://10.0.0.1:80', secure: false, host: '10.0.0.1', port: 80 });
  assert.deepEqual(parseEndpoint('https://ids.example.com:443', false), { given: 'https://ids.example.com:443', secure: true, host: 'ids.example.com', port: 443 });
  assert.deepEqual(parseEndpoint('[::1]:8080', false), { given: '[::1]:8080', secure: false, host: '::1', port: 8080 });
  assert.deepEqual(parseEndpoint('HTTPS://[fe80::1]:65535', false), { given: 'HTTPS://[fe80::1]:65535', secure: true, host: 'fe80::1', port: 65535 });
  assert.equal(parseEndpoint('localhost:1', false).port, 1);
});

test('endpoints: malformed ones are refused naming them', () => {
  const bad = ['h1', 'h1:', 'h1:0', 'h1:65536', 'h1:99999999', 'h1:80a', 'http://h1:8080/', 'http://h1:8080/v1',
    'h1:8080/v1', 'ftp://h1:21', 'grpc://h1:9090', '::1:8080', '[::1]', '[::1', '[zz]:80', ':8080', 'h 1:80',
    'http://h1', 'https://:443', 'h1:8080?x=1', ''];
  for (const e of bad) refused(() => IdClient.connect([e]), `'${e}'`);
  refused(() => IdClient.connect([]), 'at least one endpoint');
  refused(() => IdClient.connect(/** @type {any} */ ('h1:80')), 'at least one endpoint');
  refused(() => IdClient.connect(/** @type {any} */ ([42])), '42');
  refused(() => IdClient.connect(['h1:80', 'h1:80']), 'h1:80');
});

test('a token over plaintext to a host that is not loopback is refused naming the endpoint', () => {
  refused(() => IdClient.connect(['127.0.0.1:80', 'ids.example.com:8080'], { token: 't' }), 'ids.example.com:8080');
  refused(() => IdClient.connect(['http://10.1.2.3:80'], { token: 't', tls: true }), 'http://10.1.2.3:80');
  // Loopback, or TLS, is fine.
  for (const e of ['localhost:80', 'LOCALHOST:80', '127.0.0.1:80', '127.9.8.7:80', '[::1]:80']) {
    IdClient.connect([e], { token: 't' }).close();
  }
  IdClient.connect(['https://ids.example.com:443', 'ids2.example.com:443'], { token: 't', tls: true }).close();
  IdClient.connect(['https://ids.example.com:443'], { token: 't' }).close();
  assert.equal(isLoopback('127.0.0.1'), true);
  assert.equal(isLoopback('128.0.0.1'), false);
  assert.equal(isLoopback('127.0.0.1.example.com'), false);
  assert.equal(isLoopback('localhost.example.com'), false);
});

test('segment tags and serial names must not be blank', async () => {
  const ids = IdClient.connect(['127.0.0.1:1']);
  refused(() => ids.segment(''), 'segment tag');
  refused(() => ids.serial('  '), 'serial name');
  refused(() => ids.segment(/** @type {any} */ (undefined)), 'segment tag');
  await assert.rejects(ids.serial('invoice').next(0), IdmintArgumentError);
  await assert.rejects(ids.serial('invoice').next(1.5), IdmintArgumentError);
  await ids.close();
});
