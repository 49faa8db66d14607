// OpenZiti's identity file (the `ziti.Config` JSON that `ziti edge enroll` and `ziti-edge-tunnel enroll` write and
// every OpenZiti SDK loads): where the controller is (`ztAPI`, `ztAPIs`) and the identity's key, certificate chain
// and CA bundle inline with the `pem:` prefix. `ztAPI` is the controller's root, https://host:port: the C SDK sends
// `GET /version` and `POST /authenticate` there and follows `/version` to the client API's path.
import { open, rename, unlink } from 'node:fs/promises';

export interface IdentityFileContent {
  /** https://host:port of the controller. */
  readonly controllerOrigin: string;
  /** Every controller origin the identity may use (the controller itself first). */
  readonly controllerOrigins: readonly string[];
  /** PEM; absent for a password (updb) identity, which has no certificate. */
  readonly keyPem?: string;
  readonly certPem?: string;
  readonly caPem: string;
}

/** The file's JSON text, keys in OpenZiti's order, with a trailing newline as Go's encoder writes it. */
export function identityFileText(content: IdentityFileContent): string {
  const id: Record<string, string> = {};
  if (content.keyPem !== undefined) id.key = `pem:${content.keyPem}`;
  if (content.certPem !== undefined) id.cert = `pem:${content.certPem}`;
  id.ca = `pem:${content.caPem}`;
  const document = { ztAPI: content.controllerOrigin, ztAPIs: [...content.controllerOrigins], configTypes: null, id, enableHa: false };
  return `${JSON.stringify(document, null, 2)}\n`;
}

export class IdentityFileExistsError extends Error {}

/** An identity file about to be written: its temporary file already exists, so a folder that cannot take it is
 * found before the one-time token is spent. */
export interface PendingIdentityFile {
  commit(text: string): Promise<void>;
  abandon(): Promise<void>;
}

/**
 * Opens the way to `path` (mode 0600: it holds the private key): an existing file is kept unless `force`; the text
 * goes to a temporary file beside it, renamed into place by commit, so a failure leaves no half file.
 */
export async function prepareIdentityFile(path: string, force: boolean): Promise<PendingIdentityFile> {
  if (!force && (await exists(path))) throw new IdentityFileExistsError(`${path} exists: give --force to overwrite it, or another --out`);
  const temporary = `${path}.tmp-${process.pid}`;
  const handle = await open(temporary, 'wx', 0o600);
  const abandon = async () => {
    await handle.close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
  };
  return {
    abandon,
    commit: async (text) => {
      try {
        await handle.writeFile(text);
        await handle.chmod(0o600);
        await handle.close();
        await rename(temporary, path);
      } catch (error) {
        await abandon();
        throw error;
      }
    },
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await (await open(path, 'r')).close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
