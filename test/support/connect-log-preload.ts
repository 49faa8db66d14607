// Loaded into a real controller process by a test (`--import`, see ControllerFixture's nodeArgs): records every
// outbound TCP connection the process attempts (host and port, one JSON line each) in the file named by
// EDGEWARD_CONNECT_LOG. Every client socket, plain, TLS or HTTP, connects through net.Socket.prototype.connect.
import { appendFileSync } from 'node:fs';
import net from 'node:net';

const logFile = process.env.EDGEWARD_CONNECT_LOG;
if (!logFile) throw new Error('connect-log-preload: EDGEWARD_CONNECT_LOG is not set');

const realConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]): net.Socket {
  const [first, second] = args as [unknown, unknown];
  const target =
    typeof first === 'object' && first !== null && !Array.isArray(first)
      ? { host: (first as { host?: string }).host ?? (first as { path?: string }).path ?? 'localhost', port: (first as { port?: number }).port ?? null }
      : Array.isArray(first)
        ? { host: String((first[0] as { host?: string })?.host ?? '?'), port: (first[0] as { port?: number })?.port ?? null }
        : { host: typeof second === 'string' ? second : 'localhost', port: typeof first === 'number' || typeof first === 'string' ? Number(first) : null };
  appendFileSync(logFile, `${JSON.stringify(target)}\n`);
  return (realConnect as (...rest: unknown[]) => net.Socket).apply(this, args);
} as typeof net.Socket.prototype.connect;
