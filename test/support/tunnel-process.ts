// `./edgeward tunnel run` and `./edgeward edge enroll` as a user runs them, for cross-process tests: an identity file
// enrolled from a new identity's one-time JWT, the tunneler as a child process whose JSON log lines can be awaited,
// and TCP transfers through its ports (every wait bounded).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { ControllerFixture } from './controller-fixture.ts';
import { edgewardBin, stopChild } from './router-fixture.ts';

/** The tunneler's stderr as JSON lines, with a bounded wait for one that matches. */
export class TunnelProcess {
  readonly lines: Array<Record<string, unknown>> = [];
  private buffered = '';
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.stderr!.on('data', (chunk: Buffer) => {
      this.buffered += chunk.toString('utf8');
      const parts = this.buffered.split('\n');
      this.buffered = parts.pop()!;
      for (const part of parts) {
        try {
          this.lines.push(JSON.parse(part) as Record<string, unknown>);
        } catch {
          this.lines.push({ msg: 'not json', text: part });
        }
      }
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  async line(matches: (line: Record<string, unknown>) => boolean, what: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(matches);
      if (found) return found;
      if (Date.now() > deadline || this.child.exitCode !== null) throw new Error(`no ${what} within ${timeoutMs} ms; the tunneler wrote:\n${this.lines.map((line) => JSON.stringify(line)).join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Resolves once every named service has its `tunnel listening` line; rejects after `timeoutMs` or if it exits. */
  async listening(services: readonly string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const open = new Set(this.lines.filter((line) => line.msg === 'tunnel listening').map((line) => line.service));
      if (services.every((service) => open.has(service))) return;
      if (Date.now() > deadline || this.child.exitCode !== null) {
        throw new Error(`the tunneler did not listen for ${services.filter((service) => !open.has(service)).join(', ')} within ${timeoutMs} ms; it wrote:\n${this.lines.map((line) => JSON.stringify(line)).join('\n')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves with the exit code (null when killed). */
  stop(timeoutMs = 15_000): Promise<number | null> {
    return stopChild(this.child, this.exited, timeoutMs);
  }
}

/** Sends `payload` through 127.0.0.1:`port`, half-closes, and reads until the far side ends (bounded). */
export function transfer(port: number, payload: Buffer, timeoutMs = 60_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end of the transfer within ${timeoutMs} ms (${received.reduce((sum, chunk) => sum + chunk.length, 0)} bytes back)`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.once('end', () => {
      clearTimeout(timer);
      socket.end();
      resolve(Buffer.concat(received));
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.end(payload);
  });
}

/** The first connections may meet a link still forming: retry a small echo until one comes back whole (bounded). */
export async function untilEchoes(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = await transfer(port, Buffer.from('ping'), 5_000).then((back) => back.toString() === 'ping', () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`no echo through port ${port} within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** `./edgeward tunnel run <identityFile> ...args` as a child process (`env` added to this process's). */
export function startTunnel(identityFile: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): TunnelProcess {
  return new TunnelProcess(spawn(edgewardBin, ['tunnel', 'run', identityFile, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] }));
}

/** A new identity `name` (roles) with a one-time enrollment, enrolled by `./edgeward edge enroll` into `<dir>/<name>.json`. */
export async function enrolledIdentityFile(controller: ControllerFixture, admin: Record<string, string>, dir: string, name: string, roles: string[]): Promise<{ id: string; file: string }> {
  const created = await controller.http.post(`${controller.managementApi}/identities`, { headers: admin, body: { name, type: 'Device', isAdmin: false, roleAttributes: roles, enrollment: { ott: true } } });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  const detail = await controller.http.get(`${controller.managementApi}/identities/${id}`, { headers: admin });
  const jwtFile = join(dir, `${name}.jwt`);
  writeFileSync(jwtFile, detail.json.data.enrollment.ott.jwt as string);
  const file = join(dir, `${name}.json`);
  const enroll = spawn(edgewardBin, ['edge', 'enroll', jwtFile, '--out', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  enroll.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  enroll.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => enroll.once('exit', resolve));
  assert.equal(code, 0, output);
  return { id, file };
}
