// OpenZiti's identity file (the fact sheet's §6.3), as `ziti edge enroll` and `edgeward edge enroll` write it:
// `ztAPI` (or the `ztAPIs` list that supersedes it) and `id.cert` / `id.key` / `id.ca`, each either `pem:<PEM>` or
// `file://<path>` (relative to the identity file's folder). Bad input is an EdgeSdkError naming the key at fault.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { EdgeSdkError } from './sdk-errors.ts';

/** What an SDK needs of an enrolled identity: the Edge Client API to log in to and the TLS material. */
export interface EdgeIdentity {
  /** Client API base URLs (`https://host:port/edge/client/v1`), in the file's order. */
  readonly controllerUrls: readonly string[];
  readonly cert: string;
  readonly key: string;
  readonly ca: string;
}

const clientApiPath = '/edge/client/v1';

/** The client API base of a `ztAPI` value: the root URL (as the C SDK writes it) or the versioned path. */
export function clientApiBase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EdgeSdkError('identity-file', `identity file: controller URL ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'https:') throw new EdgeSdkError('identity-file', `identity file: controller URL ${JSON.stringify(url)} is not https`);
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.origin}${path.endsWith(clientApiPath) ? path : `${path}${clientApiPath}`}`;
}

function material(value: unknown, key: string, baseDir: string, readText: (path: string) => string): string {
  if (typeof value !== 'string' || value.length === 0) throw new EdgeSdkError('identity-file', `identity file: ${key} is missing`);
  if (value.startsWith('pem:')) return value.slice('pem:'.length);
  if (value.startsWith('file://')) {
    const path = decodeURIComponent(value.slice('file://'.length));
    const full = isAbsolute(path) ? path : join(baseDir, path);
    try {
      return readText(full);
    } catch (error) {
      throw new EdgeSdkError('identity-file', `identity file: ${key} names ${full}, which cannot be read: ${(error as Error).message}`, { cause: error });
    }
  }
  if (value.startsWith('-----BEGIN')) return value;
  throw new EdgeSdkError('identity-file', `identity file: ${key} is neither pem: nor file:// (${JSON.stringify(value.slice(0, 16))}...)`);
}

/** Reads an identity file's text; `baseDir` resolves relative `file://` values, `readText` reads them. */
export function parseIdentityFile(text: string, baseDir: string, readText: (path: string) => string = (path) => readFileSync(path, 'utf8')): EdgeIdentity {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new EdgeSdkError('identity-file', `identity file: not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new EdgeSdkError('identity-file', 'identity file: not a JSON object');
  const file = json as Record<string, unknown>;
  const list = Array.isArray(file.ztAPIs) && file.ztAPIs.length > 0 ? file.ztAPIs : file.ztAPI === undefined || file.ztAPI === null ? [] : [file.ztAPI];
  if (list.length === 0) throw new EdgeSdkError('identity-file', 'identity file: ztAPI (or ztAPIs) is missing');
  const controllerUrls = list.map((url) => {
    if (typeof url !== 'string') throw new EdgeSdkError('identity-file', `identity file: controller URL ${JSON.stringify(url)} is not a string`);
    return clientApiBase(url);
  });
  const id = file.id;
  if (typeof id !== 'object' || id === null || Array.isArray(id)) throw new EdgeSdkError('identity-file', 'identity file: id is missing');
  const ids = id as Record<string, unknown>;
  return {
    controllerUrls,
    cert: material(ids.cert, 'id.cert', baseDir, readText),
    key: material(ids.key, 'id.key', baseDir, readText),
    ca: material(ids.ca, 'id.ca', baseDir, readText),
  };
}

/** Reads the identity file at `path` (its `file://` values relative to its folder). */
export function readIdentityFile(path: string): EdgeIdentity {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new EdgeSdkError('identity-file', `identity file ${path} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  return parseIdentityFile(text, dirname(path));
}
