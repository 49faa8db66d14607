// Starts another edgeward command as a child process, with this process's Node flags (the TypeScript loader) and the
// command's own (node-flags.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeFlagsFor } from '../cli/node-flags.ts';

export const cliEntry = fileURLToPath(new URL('../cli/main.ts', import.meta.url));

/** The program and arguments that run `./edgeward <args>` the way this process runs. */
export function edgewardCommand(args: readonly string[]): { file: string; args: string[] } {
  return { file: process.execPath, args: [...process.execArgv, ...nodeFlagsFor(args), cliEntry, ...args] };
}

export function spawnEdgeward(args: readonly string[], options: { outputFile: string; env?: NodeJS.ProcessEnv }): ChildProcess {
  const output = openSync(options.outputFile, 'a', 0o640);
  const command = edgewardCommand(args);
  return spawn(command.file, command.args, {
    stdio: ['ignore', output, output],
    env: options.env ?? process.env,
  });
}

export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
