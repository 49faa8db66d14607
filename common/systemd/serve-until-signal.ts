// A long-running service after it has started: tell systemd it is ready (then watchdog pings), and on SIGINT or
// SIGTERM tell systemd it is stopping, stop it, and exit 0 (or 1 when it does not stop cleanly). The alerts daemon
// and the status page run this way; what keeps the process alive until the signal is the service itself.
import type { Logger } from '../log/logger.ts';
import { serviceNotifier } from './service-notifier.ts';

/** A stopped service whose process is still alive after this long (a socket left open) exits anyway. */
const exitLimitMs = 5000;

export interface RunningService {
  stop(): Promise<void>;
}

export function serveUntilSignal(service: RunningService, options: { readonly name: string; readonly readyStatus: string; readonly logger: Logger; readonly stderr: (text: string) => void }): void {
  const notifier = serviceNotifier({ onError: (message) => options.logger.warn('systemd notification not sent', { error: message }) });
  notifier.ready(options.readyStatus);
  const shutdown = () => {
    notifier.stopping();
    service.stop().then(
      () => {
        process.exitCode = 0;
        setTimeout(() => process.exit(0), exitLimitMs).unref();
      },
      (error: Error) => {
        options.stderr(`error: the ${options.name} did not stop cleanly: ${error.message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
