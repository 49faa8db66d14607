// `./edgeward tunnel run` as a child process of a benchmark: started with an identity file and `--proxy` ports, its
// stderr JSON lines kept so that the benchmark can wait for the ports it opens, stopped like the routers.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const edgewardBin = fileURLToPath(new URL('../edgeward', import.meta.url));

export class TunnelProcess {
  readonly lines: Array<Record<string, unknown>> = [];
  private buffered = '';
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
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

  /** `proxies` maps each service name to the local port it is offered on; `env` adds to this process's. */
  static start(identityFile: string, proxies: Readonly<Record<string, number>>, env: NodeJS.ProcessEnv = {}): TunnelProcess {
    const args = ['tunnel', 'run', identityFile, ...Object.entries(proxies).flatMap(([service, port]) => ['--proxy', `${service}:${port}`])];
    return new TunnelProcess(spawn(edgewardBin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] }));
  }

  /** Resolves once every named service has its `tunnel listening` line; rejects after `timeoutMs` or if it exits. */
  async listening(services: readonly string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const open = new Set(this.lines.filter((line) => line.msg === 'tunnel listening').map((line) => line.service));
      if (services.every((service) => open.has(service))) return;
      if (Date.now() > deadline || this.child.exitCode !== null) {
        throw new Error(`the tunneler did not listen for ${services.filter((s) => !open.has(s)).join(', ')} within ${timeoutMs} ms; it wrote:\n${this.lines.map((line) => JSON.stringify(line)).join('\n')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves with the exit code (null when killed). */
  async stop(timeoutMs = 15_000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
