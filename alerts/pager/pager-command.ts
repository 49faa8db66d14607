// `./edgeward alerts pager --listen <host:port> --log <file>`: runs the local pager receiver in the foreground until
// SIGTERM or SIGINT, printing the address it listens on (port 0 takes a free one).
import { isIP } from 'node:net';
import { asksForHelp, parseLeaf, reportOutcome, type LeafCommand } from '../../common/cli/command-line.ts';
import { startPagerServer } from './pager-server.ts';

export interface PagerCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const pagerUsage = `Usage: ./edgeward alerts pager --listen <host:port> --log <file>

Receives Alertmanager webhook notifications (POST application/json, any path but /health) and appends each alert as
one JSON line to <file>, moved to <file>.1 once it would pass 16 MiB. GET /health answers 200. On a loopback address
it answers only a Host naming itself (421 otherwise). Port 0 listens on a free port; the address is printed. Stops on
SIGTERM/SIGINT.
`;

function parseListen(text: string): { host: string; port: number } | string {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!match) return `--listen "${text}" is not <host>:<port> (brackets around an IPv6 address)`;
  const host = match[1] ?? match[2]!;
  const port = Number(match[3]);
  if (match[1] !== undefined && isIP(host) !== 6) return `--listen "${text}": "${host}" is not an IPv6 address`;
  if (port > 65535) return `--listen "${text}": port ${port} is outside 0-65535`;
  return { host, port };
}

/** The pager's command line: both flags required, the address checked before anything listens. */
export const pagerCommand: LeafCommand = {
  usage: pagerUsage,
  flags: [
    { name: 'listen', kind: 'string', required: true },
    { name: 'log', kind: 'string', required: true },
  ],
  arguments: [],
  min: 0,
  max: 0,
  example: ['--listen', '127.0.0.1:0', '--log', 'pager.jsonl'],
  check: ({ flags }) => {
    const listen = parseListen(flags.text('listen')!);
    return typeof listen === 'string' ? listen : undefined;
  },
};

/** Returns -1 once listening (the server keeps the process alive), or an exit code when it cannot start. */
export async function runPagerCommand(args: string[], io: PagerCommandIo): Promise<number> {
  if (asksForHelp(args)) return reportOutcome({ kind: 'help', text: pagerUsage }, io);
  const parsed = parseLeaf(pagerCommand, args);
  if (typeof parsed === 'string') return reportOutcome({ kind: 'usage-error', command: 'alerts pager', reason: parsed }, io);
  const listenText = parsed.flags.text('listen')!;
  const logFile = parsed.flags.text('log')!;
  const listen = parseListen(listenText) as { host: string; port: number };

  let server;
  try {
    server = await startPagerServer({
      host: listen.host,
      port: listen.port,
      logFile,
      onWriteError: (error) => io.stderr(`edgeward alerts pager: cannot write ${logFile}: ${error.message}\n`),
    });
  } catch (error) {
    io.stderr(`edgeward alerts pager: cannot listen on ${listenText}: ${(error as Error).message}\n`);
    return 1;
  }
  const shown = server.host.includes(':') ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`;
  io.stdout(`edgeward alerts pager: listening on http://${shown} (log: ${logFile})\n`);

  const stop = (signal: NodeJS.Signals) => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    server.close().then(
      () => {
        io.stdout(`edgeward alerts pager: stopped (${signal}).\n`);
        process.exitCode = 0;
      },
      (error: Error) => {
        io.stderr(`edgeward alerts pager: ${error.message}\n`);
        process.exitCode = 1;
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return -1;
}
