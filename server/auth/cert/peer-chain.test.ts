import assert from 'node:assert/strict';
import { constants, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import { verifyClientChain } from './client-chain-verifier.ts';
import { CA_EXTENSIONS, CLIENT_EXTENSIONS, OpensslTestPki, SERVER_EXTENSIONS, type TestCertificate } from './openssl-test-pki.ts';
import { peerChain } from './peer-chain.ts';

describe('peerChain over a real TLS connection', { timeout: 20_000 }, () => {
  let pki: OpensslTestPki;
  let root: TestCertificate;
  let intermediate: TestCertificate;
  let subIntermediate: TestCertificate;
  let server: TestCertificate;
  let alice: TestCertificate; // root → intermediate → alice
  let carol: TestCertificate; // root → intermediate → sub-intermediate → carol

  before(() => {
    pki = new OpensslTestPki();
    root = pki.selfSigned('Peer Root CA');
    intermediate = pki.issue('Peer Intermediate CA', root, CA_EXTENSIONS);
    subIntermediate = pki.issue('Peer Sub CA', intermediate, CA_EXTENSIONS);
    server = pki.issue('controller', root, SERVER_EXTENSIONS);
    alice = pki.issue('alice', intermediate, CLIENT_EXTENSIONS);
    carol = pki.issue('carol', subIntermediate, CLIENT_EXTENSIONS);
  });
  after(() => pki.dispose());

  interface Seen {
    chain: Buffer[];
    resumed: boolean;
  }

  /** Connects `connections` times in a row (reusing the TLS session) and returns what the server saw each time. */
  async function serverSide(serverOptions: tls.TlsOptions, client: TestCertificate | undefined, sent: readonly TestCertificate[], connections = 1): Promise<Seen[]> {
    const tlsServer = tls.createServer({
      key: readFileSync(server.keyFile),
      cert: server.certPem,
      requestCert: true,
      rejectUnauthorized: false,
      ...serverOptions,
    });
    const seen: Seen[] = [];
    tlsServer.on('secureConnection', (socket) => {
      seen.push({ chain: peerChain(socket), resumed: socket.isSessionReused() });
      socket.on('error', () => {});
      socket.end('seen');
    });
    tlsServer.listen(0, '127.0.0.1');
    await once(tlsServer, 'listening');
    const { port } = tlsServer.address() as AddressInfo;
    try {
      let session: Buffer | undefined;
      for (let i = 0; i < connections; i++) {
        const socket = tls.connect({
          host: '127.0.0.1',
          port,
          ca: root.certPem,
          session,
          ...(client ? { key: readFileSync(client.keyFile), cert: sent.map((certificate) => certificate.certPem).join('') } : {}),
        });
        socket.on('session', (ticket: Buffer) => (session = ticket));
        socket.on('error', () => {});
        socket.resume();
        // The server writes (which flushes its TLS 1.3 session tickets) and ends once it has looked at the chain.
        await once(socket, 'close');
      }
    } finally {
      tlsServer.close();
    }
    assert.equal(seen.length, connections);
    return seen;
  }

  const names = (chain: Buffer[]) => chain.map((der) => new X509Certificate(der).subject);

  it('returns leaf then intermediate, as the client sent them', async () => {
    const [seen] = await serverSide({}, alice, [alice, intermediate]);
    assert.deepEqual(names(seen!.chain), ['CN=alice', 'CN=Peer Intermediate CA']);
    assert.ok(seen!.chain[0]!.equals(alice.der));
    assert.ok(seen!.chain[1]!.equals(intermediate.der));
  });

  it("appends the issuer from the server's own ca store, and the result verifies", async () => {
    const [seen] = await serverSide({ ca: root.certPem }, alice, [alice, intermediate]);
    assert.deepEqual(names(seen!.chain), ['CN=alice', 'CN=Peer Intermediate CA', 'CN=Peer Root CA']);
    const result = verifyClientChain(seen!.chain, [{ id: 'root', certificatesPem: root.certPem }], { now: Date.now(), allowExpired: false });
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.commonName, 'alice');
  });

  it('returns an empty chain when the client presents no certificate', async () => {
    const [seen] = await serverSide({ ca: root.certPem }, undefined, []);
    assert.deepEqual(seen!.chain, []);
  });

  it('loses an intermediate the client sent before its subject (Node links the sent list in one forward pass)', async () => {
    const inOrder = await serverSide({}, carol, [carol, subIntermediate, intermediate]);
    assert.deepEqual(names(inOrder[0]!.chain), ['CN=carol', 'CN=Peer Sub CA', 'CN=Peer Intermediate CA']);
    const outOfOrder = await serverSide({}, carol, [carol, intermediate, subIntermediate]);
    assert.deepEqual(names(outOfOrder[0]!.chain), ['CN=carol', 'CN=Peer Sub CA']);
  });

  it('keeps only the leaf on a resumed session, unless the server disables session tickets', async () => {
    const resumed = await serverSide({}, alice, [alice, intermediate], 2);
    assert.deepEqual(resumed.map((seen) => seen.resumed), [false, true]);
    assert.deepEqual(names(resumed[1]!.chain), ['CN=alice']);

    const noTickets = await serverSide({ secureOptions: constants.SSL_OP_NO_TICKET }, alice, [alice, intermediate], 2);
    assert.deepEqual(noTickets.map((seen) => seen.resumed), [false, false]);
    assert.deepEqual(names(noTickets[1]!.chain), ['CN=alice', 'CN=Peer Intermediate CA']);
  });
});
