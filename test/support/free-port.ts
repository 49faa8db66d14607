// A free TCP port on 127.0.0.1, found by binding port 0 and releasing it. Test files run in parallel processes and a
// test may stop a server and start it again on the same port; so that no other process is handed that port in the
// meantime, each port given out is reserved for a while with a file that every test process checks.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const reservations = join(tmpdir(), 'edgeward-test-ports');
const reservedForMs = 15 * 60_000;

function bindEphemeral(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** True when this process now holds the port's reservation (none, or only a stale one, existed). */
function reserve(port: number): boolean {
  mkdirSync(reservations, { recursive: true });
  const file = join(reservations, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    try {
      if (Date.now() - statSync(file).mtimeMs < reservedForMs) return false;
      writeFileSync(file, String(process.pid));
      return true;
    } catch {
      return false;
    }
  }
}

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await bindEphemeral();
    if (reserve(port)) return port;
  }
  return bindEphemeral();
}
