// Where `edgeward edge login` keeps its session, as `ziti edge login` keeps its own in ziti-cli.json: the
// Management API's URL, the session token, the CA certificates to trust and who logged in, in one JSON file that
// only its owner can read (mode 0600, in a folder of mode 0700). `logout` removes it.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { EdgeFailure } from './edge-errors.ts';

/** The environment variable that names the session file (the `--cli-config` flag wins over it). */
export const sessionFileVariable = 'EDGEWARD_EDGE_CLI_CONFIG';

export interface StoredSession {
  /** The Management API's base URL: `https://<host>:<port>/edge/management/v1`. */
  readonly controllerUrl: string;
  readonly username: string;
  readonly token: string;
  /** The PEM certificates given with `--ca` at login, so later commands trust the same CA; absent: the system's. */
  readonly caPem?: string;
  /** Where that PEM was read from, for the operator's information. */
  readonly caFile?: string;
  readonly identityId: string;
  readonly identityName: string;
  readonly loggedInAt: string;
}

/** `--cli-config`, else $EDGEWARD_EDGE_CLI_CONFIG, else $XDG_CONFIG_HOME/edgeward/edge-cli.json (default ~/.config). */
export function sessionFilePath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return resolve(flag);
  const fromEnv = env[sessionFileVariable];
  if (fromEnv) return resolve(fromEnv);
  const configHome = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(configHome, 'edgeward', 'edge-cli.json');
}

/** The stored session, or undefined when there is no file. A file that is not a session is a failure that names it. */
export function readSession(file: string): StoredSession | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new EdgeFailure(`cannot read the session file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  const session = data as Partial<StoredSession> | undefined;
  const strings = ['controllerUrl', 'username', 'token', 'identityId', 'identityName', 'loggedInAt'] as const;
  if (!session || typeof session !== 'object' || strings.some((key) => typeof session[key] !== 'string') || (session.caPem !== undefined && typeof session.caPem !== 'string')) {
    throw new EdgeFailure(`the session file ${file} is not an edgeward edge session: log in again with 'edgeward edge login', or remove the file`);
  }
  return session as StoredSession;
}

/** Writes the session with mode 0600 (a new file replaces the old one at once, never readable by others). */
export function writeSession(file: string, session: StoredSession): void {
  const folder = dirname(file);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, file);
  } catch (error) {
    throw new EdgeFailure(`cannot save the session in ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Removes the session file; false when there was none. */
export function removeSession(file: string): boolean {
  try {
    rmSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new EdgeFailure(`cannot remove the session file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
