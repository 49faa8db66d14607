import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer as createNetServer, connect as netConnect, type Socket } from 'node:net';
import { test } from 'node:test';
import { createServer as createTlsServer, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { createTestPki } from '../links/link-test-support.ts';
import { resetSocket } from './socket-reset.ts';

/** What the client sees when the server side is reset: an ECONNRESET error, or a plain close. */
async function clientSees(client: Socket): Promise<string> {
  const error = new Promise<string>((resolve) => client.once('error', (e: Error & { code?: string }) => resolve(e.code ?? 'error')));
  const closed = once(client, 'close').then(() => 'close');
  return Promise.race([error, closed]);
}

test('a plain TCP connection is reset', async () => {
  const server = createNetServer((socket) => resetSocket(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = netConnect((server.address() as { port: number }).port, '127.0.0.1');
  assert.equal(await clientSees(client), 'ECONNRESET');
  server.close();
});

test('a TLS connection is cut off without throwing or crashing (a TLS socket has no TCP handle of its own)', async () => {
  const pki = await createTestPki();
  const tls = await pki.routerTls('router-a');
  const server = createTlsServer({ cert: tls.serverCertPem, key: tls.serverKeyPem }, (socket: TLSSocket) => resetSocket(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = tlsConnect({ port: (server.address() as { port: number }).port, host: '127.0.0.1', rejectUnauthorized: false });
  const seen = await clientSees(client);
  assert.ok(seen === 'ECONNRESET' || seen === 'close', seen);
  server.close();
  await pki.dispose();
});
