// Where `edgeward edge login` keeps its sessions, as `ziti edge login` keeps its own in ziti-cli.json: for each
// named session (`login -i <name>`, default `default`), the Management API's URL, the session token, the CA
// certificates to trust and who logged in; and which one commands use (`edgeward edge use <name>` switches). One
// JSON file that only its owner can read (mode 0600, in a folder of mode 0700). `logout` forgets the session in use;
// the file goes with the last one. A file of the older single-session form reads as one session named `default`.
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
  /** An OIDC session: `token` is its access token (sent as `Authorization: Bearer`), refreshed with these. */
  readonly oidc?: StoredOidc;
}

export interface StoredOidc {
  readonly refreshToken: string;
  /** When the access token expires (ISO 8601). */
  readonly expiresAt: string;
  /** Every controller's Management API URL (from `GET /controllers` at login): where to fail over to. */
  readonly controllers: readonly string[];
}

/** `--cli-config`, else $EDGEWARD_EDGE_CLI_CONFIG, else $XDG_CONFIG_HOME/edgeward/edge-cli.json (default ~/.config). */
export function sessionFilePath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return resolve(flag);
  const fromEnv = env[sessionFileVariable];
  if (fromEnv) return resolve(fromEnv);
  const configHome = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(configHome, 'edgeward', 'edge-cli.json');
}

/** The name a login stores its session under when none is given. */
export const defaultSessionName = 'default';

/** Session names: what a shell argument can carry plainly. */
export const sessionNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Every stored session by name, and the one in use (undefined: none, after its logout). */
export interface SessionBook {
  readonly current: string | undefined;
  readonly sessions: Readonly<Record<string, StoredSession>>;
}

/** The sessions of the file (none when there is no file). A file that is not a session file is a failure that names it. */
export function readSessionBook(file: string): SessionBook {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { current: undefined, sessions: {} };
    throw new EdgeFailure(`cannot read the session file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  const notSessions = () => new EdgeFailure(`the session file ${file} is not an edgeward edge session: log in again with 'edgeward edge login', or remove the file`);
  if (isStoredSession(data)) return { current: defaultSessionName, sessions: { [defaultSessionName]: data } };
  const book = data as { current?: unknown; sessions?: unknown } | null;
  if (!book || typeof book !== 'object' || Array.isArray(book) || !book.sessions || typeof book.sessions !== 'object' || Array.isArray(book.sessions)) throw notSessions();
  const sessions: Record<string, StoredSession> = {};
  for (const [name, session] of Object.entries(book.sessions)) {
    if (!sessionNamePattern.test(name) || !isStoredSession(session)) throw notSessions();
    sessions[name] = session;
  }
  const current = typeof book.current === 'string' && Object.hasOwn(sessions, book.current) ? book.current : undefined;
  return { current, sessions };
}

/** The session named `name` (default: the one in use), or undefined when there is none. */
export function readSession(file: string, name?: string): StoredSession | undefined {
  const book = readSessionBook(file);
  const key = name ?? book.current;
  return key !== undefined && Object.hasOwn(book.sessions, key) ? book.sessions[key] : undefined;
}

/** Makes `name` the session commands use; an unknown name is a failure that lists the known ones. */
export function useSession(file: string, name: string): StoredSession {
  const book = readSessionBook(file);
  const session = Object.hasOwn(book.sessions, name) ? book.sessions[name] : undefined;
  if (!session) {
    const known = Object.keys(book.sessions).sort();
    throw new EdgeFailure(`there is no session named ${name} in ${file}`, [known.length > 0 ? `the sessions are: ${known.join(', ')}` : 'log in first: edgeward edge login <controller url> -u <username> -i <name>']);
  }
  writeBook(file, { current: name, sessions: book.sessions });
  return session;
}

function isStoredSession(value: unknown): value is StoredSession {
  const session = value as Partial<StoredSession> | null;
  const strings = ['controllerUrl', 'username', 'token', 'identityId', 'identityName', 'loggedInAt'] as const;
  return !!session && typeof session === 'object' && strings.every((key) => typeof session[key] === 'string') && (session.caPem === undefined || typeof session.caPem === 'string') && (session.oidc === undefined || isStoredOidc(session.oidc));
}

function isStoredOidc(value: unknown): value is StoredOidc {
  const oidc = value as Partial<StoredOidc> | null;
  return !!oidc && typeof oidc === 'object' && typeof oidc.refreshToken === 'string' && typeof oidc.expiresAt === 'string' && Array.isArray(oidc.controllers) && oidc.controllers.every((url) => typeof url === 'string');
}

/** Stores the session under `name` (default: the one in use, else `default`) and makes it the one in use. */
export function writeSession(file: string, session: StoredSession, name?: string): void {
  const book = readSessionBook(file);
  const key = name ?? book.current ?? defaultSessionName;
  writeBook(file, { current: key, sessions: { ...book.sessions, [key]: session } });
}

/** Writes the file with mode 0600 (a new file replaces the old one at once, never readable by others). */
function writeBook(file: string, book: SessionBook): void {
  const session = book;
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

/**
 * Forgets the session in use: `session` when other sessions stay in the file, `file` when the file went with it (or
 * was not a session file at all), false when there was none.
 */
export function removeSession(file: string): 'session' | 'file' | false {
  let book: SessionBook | undefined;
  try {
    book = readSessionBook(file);
  } catch {
    book = undefined; // not a session file: logout removes it, as it always did
  }
  if (book && book.current === undefined) return false;
  const rest = book ? Object.fromEntries(Object.entries(book.sessions).filter(([name]) => name !== book.current)) : {};
  if (Object.keys(rest).length > 0) {
    writeBook(file, { current: undefined, sessions: rest });
    return 'session';
  }
  try {
    rmSync(file);
    return 'file';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new EdgeFailure(`cannot remove the session file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
