// systemd's service notification protocol (sd_notify(3)) for a Type=notify unit: READY=1 once the process serves,
// WATCHDOG=1 every half of WatchdogSec= from the event loop (a blocked loop misses it and systemd restarts the
// service), STOPPING=1 when it begins to shut down.
//
// The protocol is a datagram on the unix socket named by $NOTIFY_SOCKET. Node cannot send unix datagrams (node:dgram
// is UDP only), and the npm `sd-notify` package is a native addon that needs libsystemd's headers and a compiler at
// install time; so each notification is one run of systemd's own `systemd-notify`, which the unit allows with
// NotifyAccess=all. Since systemd 246 `systemd-notify` waits until the manager has read the message (a barrier), so a
// READY=1 is not lost when the short-lived sender is gone before systemd looks at it. One run takes ~10 ms (measured:
// 10 runs in 0.10 s wall, 0.10 s CPU); with WatchdogSec=30s that is one run every 15 s. Without $NOTIFY_SOCKET (not started by systemd) nothing is sent.
import { spawn } from 'node:child_process';

export interface ServiceNotifier {
  /** Whether notifications are sent at all ($NOTIFY_SOCKET is set). */
  readonly enabled: boolean;
  /** READY=1 (with a STATUS= line), and from then on WATCHDOG=1 every half of $WATCHDOG_USEC. */
  ready(status?: string): void;
  /** STATUS=<text>: shown by `systemctl status`. */
  status(text: string): void;
  /** STOPPING=1, and no more watchdog pings. */
  stopping(status?: string): void;
  /** Resolves once every notification handed over so far has been sent (or failed). */
  flush(): Promise<void>;
}

export interface NotifierOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The `systemd-notify` program (looked up on PATH by default). */
  readonly program?: string;
  /** The process whose readiness is reported (this one by default). */
  readonly pid?: number;
  /** Told when a notification could not be sent (once per kind of failure). */
  readonly onError?: (message: string) => void;
}

/** The watchdog interval asked for by systemd, in ms (half of $WATCHDOG_USEC), or undefined when there is none. */
export function watchdogIntervalMs(env: Readonly<Record<string, string | undefined>>, pid: number): number | undefined {
  const usec = Number(env.WATCHDOG_USEC);
  if (!Number.isFinite(usec) || usec <= 0) return undefined;
  // WATCHDOG_PID names the process meant to ping; another process (a child that inherited the variable) must not.
  if (env.WATCHDOG_PID !== undefined && env.WATCHDOG_PID !== '' && Number(env.WATCHDOG_PID) !== pid) return undefined;
  return Math.max(1, Math.floor(usec / 2000));
}

/** A notifier for this process from its environment ($NOTIFY_SOCKET, $WATCHDOG_USEC, $WATCHDOG_PID). */
export function serviceNotifier(options: NotifierOptions = {}): ServiceNotifier {
  const env = options.env ?? process.env;
  const socket = env.NOTIFY_SOCKET;
  const pid = options.pid ?? process.pid;
  const program = options.program ?? 'systemd-notify';
  const reported = new Set<string>();
  const report = (message: string) => {
    if (reported.has(message)) return;
    reported.add(message);
    options.onError?.(message);
  };
  let queue: Promise<void> = Promise.resolve();
  let watchdog: NodeJS.Timeout | undefined;
  let stopped = false;

  const send = (fields: readonly string[]) => {
    if (!socket) return;
    queue = queue.then(
      () =>
        new Promise<void>((resolve) => {
          // Only what systemd-notify needs. Typed as the whole environment: Next.js's types (the status page's
          // typecheck) declare NODE_ENV on it.
          const childEnv: Record<string, string> = { PATH: env.PATH ?? '/usr/bin:/bin', NOTIFY_SOCKET: socket };
          const child = spawn(program, [`--pid=${pid}`, ...fields], {
            env: childEnv as NodeJS.ProcessEnv,
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let stderr = '';
          child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
          // A manager that never answers the barrier must not hold the queue for ever.
          const limit = setTimeout(() => child.kill('SIGKILL'), 10_000);
          limit.unref();
          child.on('error', (error) => {
            clearTimeout(limit);
            report(`cannot run ${program} to notify systemd: ${error.message}`);
            resolve();
          });
          child.on('close', (code, signal) => {
            clearTimeout(limit);
            if (code !== 0) report(`${program} ${fields[0] ?? ''} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`);
            resolve();
          });
        }),
    );
  };

  return {
    enabled: Boolean(socket),
    ready(status) {
      if (stopped) return;
      send(['READY=1', ...(status ? [`STATUS=${status}`] : [])]);
      const interval = watchdogIntervalMs(env, pid);
      if (socket && interval !== undefined && !watchdog) {
        // The first ping goes out at once, so the watchdog's first period runs from readiness.
        send(['WATCHDOG=1']);
        watchdog = setInterval(() => send(['WATCHDOG=1']), interval);
        watchdog.unref();
      }
    },
    status(text) {
      send([`STATUS=${text}`]);
    },
    stopping(status) {
      stopped = true;
      if (watchdog) clearInterval(watchdog);
      watchdog = undefined;
      send(['STOPPING=1', ...(status ? [`STATUS=${status}`] : [])]);
    },
    flush: () => queue,
  };
}
