import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startEchoServer } from '../test/support/echo-server.ts';
import { freePort } from '../test/support/free-port.ts';
import { stopChild } from './child-processes.ts';
import { startStunnelPair, type StunnelService } from './stunnel-pair.ts';

/** Sends `payload` through `port` and resolves what comes back once as many bytes have. */
function echoed(port: number, payload: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let received = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${received} of ${payload.length} bytes echoed within 20 s`));
    }, 20_000);
    socket.once('connect', () => socket.write(payload));
    socket.on('data', (data: Buffer) => {
      chunks.push(data);
      received += data.length;
      if (received < payload.length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks));
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

async function withPair(run: (context: { dir: string; service: StunnelService; probePort: number; children: ChildProcess[] }) => Promise<void>): Promise<void> {
  const echo = await startEchoServer();
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-stunnel-pair-test-'));
  const children: ChildProcess[] = [];
  try {
    const service: StunnelService = { name: 'echo', acceptPort: await freePort(), tlsPort: await freePort(), upstreamPort: echo.port };
    await run({ dir, service, probePort: await freePort(), children });
  } finally {
    await Promise.all(children.map((child) => stopChild(child)));
    await echo.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the stunnel pair relays bytes intact through one TLS 1.3 hop whose certificate relay A verifies, and says what it negotiated', async () => {
  await withPair(async ({ dir, service, probePort, children }) => {
    const pair = await startStunnelPair({ dir, services: [service], probe: { port: probePort, via: service }, track: (child) => void children.push(child) });
    assert.equal(children.length, 2);
    assert.match(pair.version, /^stunnel \d+\.\d+/);
    assert.equal(pair.protocol, 'TLSv1.3');
    assert.match(pair.cipher, /^TLS_(AES|CHACHA20)_/);
    assert.notEqual(pair.keyExchange, 'not logged');
    const payload = Buffer.alloc(1 << 20);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 31) & 0xff;
    assert.ok((await echoed(service.acceptPort, payload)).equals(payload), 'the echo came back as sent');
    // The measured service went through B's TLS port, and A checked B's certificate on it.
    assert.match(readFileSync(pair.logs.a, 'utf8'), /Service \[echo\] accepted connection[\s\S]*Certificate accepted at depth=0: CN=localhost/);
    assert.match(readFileSync(pair.logs.b, 'utf8'), /Service \[echo\] accepted connection/);
  });
});

test('relay A refuses a relay B whose certificate it does not trust: the pair does not start', async () => {
  await withPair(async ({ dir, service, probePort, children }) => {
    // A trusts some other self-signed certificate, not B's.
    const stranger = join(dir, 'stranger.pem');
    const other = await otherCertificate(dir);
    writeFileSync(stranger, other);
    await assert.rejects(
      startStunnelPair({ dir, services: [service], probe: { port: probePort, via: service }, track: (child) => void children.push(child), trust: stranger, timeoutMs: 10_000 }),
      /stunnel's probe through port \d+ (failed|closed after 0 bytes)/,
    );
    assert.match(readFileSync(join(dir, 'stunnel-a.log'), 'utf8'), /certificate verify failed|CERT: Verification error|self[- ]signed/i);
  });
});

/** A second throwaway certificate, made the way the pair makes its own, in a folder of its own. */
async function otherCertificate(dir: string): Promise<string> {
  const { spawnSync } = await import('node:child_process');
  const cert = join(dir, 'other-cert.pem');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'other-key.pem'), '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(made.status, 0, made.stderr);
  return readFileSync(cert, 'utf8');
}
