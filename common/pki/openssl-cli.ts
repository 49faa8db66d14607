// Test support: runs the system openssl, an independent implementation to check our certificates against.
import { spawnSync } from 'node:child_process';

export interface OpensslResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function openssl(args: string[], input?: string): OpensslResult {
  const result = spawnSync('openssl', args, { input, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Runs openssl and fails with its stderr when it exits non-zero. */
export function opensslOk(args: string[], input?: string): string {
  const result = openssl(args, input);
  if (result.status !== 0) throw new Error(`openssl ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}
