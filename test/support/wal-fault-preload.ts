// Loaded into a real controller process by a test (`--import`, see ControllerFixture's nodeArgs) to make its disk
// fail on demand: after the process receives SIGUSR2, every write to a raft write-ahead-log segment
// (`raft.db/wal-*.log`) fails with EIO, as a failing disk's would. The controller's own code runs unchanged: the
// fault comes from the fs.write call its WAL makes (wal-segments.ts writeAt). The WAL runs on the controller's raft
// thread, which the preload reaches too (common/threads/module-worker.ts imports it there); signals reach only
// the main thread, so the main thread's copy arms the others over a BroadcastChannel.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { BroadcastChannel, isMainThread } from 'node:worker_threads';

let armed = false;
const arming = new BroadcastChannel('edgeward-wal-fault');
arming.unref();
if (isMainThread) {
  process.on('SIGUSR2', () => {
    armed = true;
    arming.postMessage('arm');
  });
} else {
  arming.onmessage = () => {
    armed = true;
  };
}

const walSegment = /\/raft\.db\/wal-\d{10}\.log$/;

function isWalSegment(fd: unknown): boolean {
  if (typeof fd !== 'number') return false;
  try {
    return walSegment.test(fs.readlinkSync(`/proc/self/fd/${fd}`));
  } catch {
    return false;
  }
}

const realWrite = fs.write;
const faultyWrite = function (this: unknown, fd: number, ...rest: unknown[]): void {
  if (armed && isWalSegment(fd)) {
    const callback = rest[rest.length - 1] as (error: NodeJS.ErrnoException) => void;
    const error: NodeJS.ErrnoException = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO', errno: -5, syscall: 'write' });
    process.nextTick(callback, error);
    return;
  }
  (realWrite as (...args: unknown[]) => void).call(this, fd, ...rest);
};
(fs as { write: unknown }).write = faultyWrite;
// ES modules that import { write } from 'node:fs' see the patched function too.
syncBuiltinESMExports();
