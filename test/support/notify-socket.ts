// A stand-in for systemd's notification socket ($NOTIFY_SOCKET): a unix datagram socket, which Node cannot open, so
// a small python3 process binds it and prints each datagram it receives as one JSON line. File descriptors that
// come with a message (systemd-notify's barrier) are closed at once, as the manager does, so the sender returns.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const listener = String.raw`
import array, json, os, socket, sys
path = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
os.chmod(path, 0o777)
print(json.dumps({"listening": path}), flush=True)
while True:
    data, ancdata, flags, addr = s.recvmsg(65536, socket.CMSG_SPACE(16 * 4) + socket.CMSG_SPACE(12))
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds = array.array("i")
            fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
            for fd in fds:
                os.close(fd)
    print(json.dumps({"message": data.decode("utf-8", "replace")}), flush=True)
`;

export interface NotifySocket {
  readonly path: string;
  /** Every datagram so far, as received (`READY=1\nSTATUS=...`). */
  readonly messages: string[];
  /** Resolves with the first datagram (from now or earlier) that `match` accepts. */
  waitFor(match: (message: string) => boolean, timeoutMs: number, what: string): Promise<string>;
  close(): Promise<void>;
}

/** A notification socket at `<dir>/<name>`; `dir` must be reachable by the processes that send to it. */
export async function openNotifySocket(dir: string, name = 'notify.sock'): Promise<NotifySocket> {
  const path = join(dir, name);
  const child: ChildProcess = spawn('python3', ['-c', listener, path], { stdio: ['ignore', 'pipe', 'pipe'] });
  const messages: string[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  let listening!: () => void;
  const bound = new Promise<void>((resolve) => (listening = resolve));
  lines.on('line', (line) => {
    const parsed = JSON.parse(line) as { listening?: string; message?: string };
    if (parsed.listening) listening();
    if (parsed.message !== undefined) {
      messages.push(parsed.message);
      for (const wake of [...waiters]) wake();
    }
  });
  const exited = once(child, 'exit');
  await Promise.race([bound, exited.then(() => Promise.reject(new Error(`the notify socket listener exited: ${stderr}`)))]);
  return {
    path,
    messages,
    waitFor(match, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match);
          if (found === undefined) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${what} on ${path} within ${timeoutMs} ms; received: ${JSON.stringify(messages)}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
