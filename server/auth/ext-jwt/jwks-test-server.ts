// Test support: a real HTTPS server on 127.0.0.1 with a throwaway CA made by the openssl CLI, standing in for an
// external issuer's JWKS endpoint. It counts requests so tests can prove how often the cache fetches.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opensslOk } from '../../../common/pki/openssl-cli.ts';

export interface TestTlsMaterial {
  readonly caPem: string;
  readonly serverKeyPem: string;
  readonly serverCertPem: string;
}

/** A host name the test server's certificate also holds: no DNS knows it, so a test must resolve it itself. */
export const testJwksHostname = 'jwks.idp.test';

/** A CA and a server certificate for IP 127.0.0.1 (and testJwksHostname) signed by it (EC P-256, so generation is quick). */
export function makeTestTlsMaterial(): TestTlsMaterial {
  const dir = mkdtempSync(join(tmpdir(), 'ext-jwt-tls-'));
  try {
    const at = (name: string) => join(dir, name);
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    opensslOk(['req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-subj', '/CN=ext-jwt test CA', '-days', '1']);
    opensslOk(['req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=127.0.0.1']);
    writeFileSync(at('server.ext'), `subjectAltName=IP:127.0.0.1,DNS:${testJwksHostname}\nextendedKeyUsage=serverAuth\n`);
    opensslOk(['x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at('server.pem'), '-days', '1', '-extfile', at('server.ext')]);
    return { caPem: readFileSync(at('ca.pem'), 'utf8'), serverKeyPem: readFileSync(at('server.key'), 'utf8'), serverCertPem: readFileSync(at('server.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type TestHandler = (request: IncomingMessage, response: ServerResponse) => void;

export interface JwksTestServer {
  readonly caPem: string;
  /** The https:// URL of `path` on this server. */
  url(path?: string): string;
  /** Requests received so far. */
  readonly requests: number;
  respondWith(handler: TestHandler): void;
  serveJson(document: unknown): void;
  close(): Promise<void>;
}

export async function startJwksServer(tls: TestTlsMaterial = makeTestTlsMaterial()): Promise<JwksTestServer> {
  let handler: TestHandler = (_request, response) => response.writeHead(404).end();
  let requests = 0;
  const server = createServer({ key: tls.serverKeyPem, cert: tls.serverCertPem }, (request, response) => {
    requests++;
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    caPem: tls.caPem,
    url: (path = '/.well-known/jwks.json') => `https://127.0.0.1:${port}${path}`,
    get requests() {
      return requests;
    },
    respondWith(next) {
      handler = next;
    },
    serveJson(document) {
      const body = JSON.stringify(document);
      handler = (_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
