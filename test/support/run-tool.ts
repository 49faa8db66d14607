// Runs a command-line tool (openssl, curl) asynchronously with a hard time limit, as a user would in a shell.
import { execFile } from 'node:child_process';

export interface ToolOutput {
  readonly stdout: string;
  readonly stderr: string;
}

/** Resolves with the output of a zero exit; rejects (with stderr) on a non-zero exit or after `timeoutMs`. */
export function runTool(command: string, args: readonly string[], timeoutMs = 15_000): Promise<ToolOutput> {
  return new Promise((resolve, reject) => {
    execFile(command, [...args], { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 8 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed (${error.killed ? `killed after ${timeoutMs} ms` : `exit ${String(error.code)}`}): ${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}
