// The operator's agent socket: a unix socket readable only by the controller's user (mode 0600). Commands are
// registered by name; a malformed request gets an error answer, never a crash.
import { chmodSync, existsSync, mkdirSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Logger } from '../../common/log/logger.ts';
import type { AgentRequest, AgentResponse } from './agent-protocol.ts';

export type AgentCommand = (args: Record<string, unknown>) => Promise<unknown>;

const maxRequestBytes = 64 * 1024;

export class AgentServer {
  private server: Server | undefined;

  constructor(
    private readonly socketPath: string,
    private readonly commands: ReadonlyMap<string, AgentCommand>,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    mkdirSync(dirname(this.socketPath), { recursive: true, mode: 0o700 });
    if (existsSync(this.socketPath)) {
      if (await answers(this.socketPath)) throw new Error(`the agent socket ${this.socketPath} is in use by a running controller`);
      unlinkSync(this.socketPath);
    }
    const server = createServer((socket) => this.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.socketPath, () => resolve());
    });
    chmodSync(this.socketPath, 0o600);
    this.server = server;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (existsSync(this.socketPath)) unlinkSync(this.socketPath);
  }

  private serve(socket: Socket): void {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > maxRequestBytes) return this.answer(socket, { ok: false, error: 'request too large' });
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      socket.removeAllListeners('data');
      void this.handle(buffered.slice(0, newline)).then((response) => this.answer(socket, response));
    });
  }

  private async handle(line: string): Promise<AgentResponse> {
    let request: AgentRequest;
    try {
      request = JSON.parse(line) as AgentRequest;
    } catch {
      return { ok: false, error: 'malformed request: expected one JSON object per line' };
    }
    const command = typeof request?.command === 'string' ? this.commands.get(request.command) : undefined;
    if (!command) return { ok: false, error: `unknown agent command: ${String(request?.command)}` };
    try {
      return { ok: true, result: await command(request.args ?? {}) };
    } catch (error) {
      this.logger.info('agent command failed', { command: request.command, error: (error as Error).message });
      return { ok: false, error: (error as Error).message };
    }
  }

  private answer(socket: Socket, response: AgentResponse): void {
    socket.end(`${JSON.stringify(response)}\n`);
  }
}

/** Whether something is listening on a unix socket (a stale file from a crash does not answer). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
