// The edge listener over real TLS on loopback, as a client probing it sees it: an unknown service and a forbidden one
// read the same, and a source address refused too often is answered 429 without the controller being asked.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'node:net';
import { connect } from 'node:tls';
import { after, before, test } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { ManualClock } from '../../common/time/clock.ts';
import { controllerPaths, initPki, issueControllerCertificate, pkiPaths } from '../../common/pki/pki-directory.ts';
import { EdgeConnectListeners, type EdgeConnectTarget } from './edge-connect-listener.ts';
import { RefusalBudget } from './refusal-budget.ts';

let root: string;
let caPem: string;
let tls: { certPem: string; keyPem: string };

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'edgeward-edge-listener-'));
  const dir = join(root, 'pki');
  await initPki(dir, { trustDomain: 'edgeward.test' });
  await issueControllerCertificate(dir, { id: 'r1', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  caPem = readFileSync(pkiPaths(dir).bundle, 'utf8');
  tls = { certPem: readFileSync(controllerPaths(dir, 'r1').chain, 'utf8'), keyPem: readFileSync(controllerPaths(dir, 'r1').key, 'utf8') };
});
after(() => rmSync(root, { recursive: true, force: true }));

/** A controller that knows `secret` (which this session may not dial) and nothing else, as the router hears it. */
function controllerAnswers(): EdgeConnectTarget & { dials: string[] } {
  const dials: string[] = [];
  return {
    dials,
    async dial(service, _socket, _listener, options) {
      dials.push(service);
      if (service === 'secret') options.onRefused!('NO_DIAL_POLICY', 'no service policy lets the identity Dial secret');
      else options.onRefused!('SERVICE_NOT_FOUND', 'no such service');
    },
  };
}

async function startListener(budget: RefusalBudget) {
  const target = controllerAnswers();
  const logger = createMemoryLogger();
  const probe = new EdgeConnectListeners([{ host: '127.0.0.1', port: 0 }], tls, target, logger, budget);
  await probe.start();
  const [port] = probe.ports();
  return { target, logger, port: port!, stop: () => probe.stop() };
}

/** One CONNECT from `from` (a loopback address): the answer's status, headers and body. */
function connectFrom(port: number, from: string, target: string): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const tcp = createConnection({ host: '127.0.0.1', port, localAddress: from });
    const socket = connect({ socket: tcp, ca: caPem, servername: 'localhost' }, () => {
      socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\nzt-session: some-session\r\n\r\n`);
    });
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no CONNECT answer: ${text}`));
    }, 10_000);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('end', () => {
      clearTimeout(timer);
      socket.destroy();
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.slice(9, 12)), head: text.slice(0, end), body: text.slice(end + 4) });
    });
  });
}

test('a CONNECT to an unknown service and to one the session may not dial get the same answer', async () => {
  const env = await startListener(new RefusalBudget(new ManualClock()));
  try {
    const unknown = await connectFrom(env.port, '127.0.0.1', 'no-such-service:80');
    const forbidden = await connectFrom(env.port, '127.0.0.1', 'secret:80');
    assert.equal(unknown.status, 404);
    assert.equal(forbidden.status, unknown.status);
    assert.equal(forbidden.body, unknown.body);
    assert.deepEqual(JSON.parse(forbidden.body), { error: { code: 'SERVICE_NOT_FOUND', message: 'no such service, or this identity may not dial it' } });
    assert.deepEqual(env.target.dials, ['no-such-service', 'secret']);
  } finally {
    await env.stop();
  }
});

test('a source refused 10 times is answered 429 with Retry-After, without the controller being asked, until its budget refills', async () => {
  const clock = new ManualClock();
  const env = await startListener(new RefusalBudget(clock));
  try {
    for (let i = 0; i < 10; i++) assert.equal((await connectFrom(env.port, '127.0.0.2', 'secret:80')).status, 404, `refusal ${i + 1}`);
    const limited = await connectFrom(env.port, '127.0.0.2', 'secret:80');
    assert.equal(limited.status, 429);
    assert.match(limited.head, /\r\nRetry-After: 5\r\n/);
    assert.equal(JSON.parse(limited.body).error.code, 'RATE_LIMITED');
    assert.equal(env.target.dials.length, 10, 'the 429 is answered at the router');
    const noSession = await connectFrom(env.port, '127.0.0.2', 'other:80');
    assert.equal(noSession.status, 429, 'every dial from the source waits, whatever it names');
    assert.equal((await connectFrom(env.port, '127.0.0.3', 'secret:80')).status, 404, 'another source is not affected');
    const warnings = env.logger.lines.filter((line) => line.msg === 'edge listener limiting a source: too many refused dials');
    assert.equal(warnings.length, 1, 'one line when the source runs out, not one per dial');
    assert.equal(warnings[0]!.source, '127.0.0.2');
    clock.advance(5000);
    assert.equal((await connectFrom(env.port, '127.0.0.2', 'secret:80')).status, 404, 'one token back after 5 s');
    assert.equal((await connectFrom(env.port, '127.0.0.2', 'secret:80')).status, 429);
  } finally {
    await env.stop();
  }
});
