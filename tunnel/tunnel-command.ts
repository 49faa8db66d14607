// `edgeward tunnel run <identity.json> [--proxy service:port ...] [--host <addr>] [--poll-interval <duration>]`: a
// client-side tunneler for one enrolled identity: proxy mode for the services it may dial (proxy-tunnel.ts), hosting
// for the host.v1 services it may bind (hosted-services.ts), following service updates until SIGINT or SIGTERM. Logs
// are JSON lines on stderr.
import { createJsonLogger, type Logger } from '../common/log/logger.ts';
import { EdgeSdk } from '../sdk/edge-sdk.ts';
import { EdgeSdkError } from '../sdk/sdk-errors.ts';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode, type FlagValues } from '../common/cli/command-line.ts';
import { parseProxySpecs } from './proxy-ports.ts';
import { HostedServices } from './hosted-services.ts';
import { ProxyTunnel } from './proxy-tunnel.ts';

interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const usage = `Usage: ./edgeward tunnel <subcommand> ...

Subcommands:
  run <identity.json> [--proxy <service>:<port> ...]
                                         offer each service the identity may dial on a local port (proxy mode)

'./edgeward tunnel <subcommand> --help' describes one.
`;

const runUsage = `Usage: ./edgeward tunnel run <identity.json> [--proxy <service>:<port> ...] [--host <address>] [--poll-interval <duration>]

A client-side tunneler for one enrolled identity (docs/sdk-and-tunnel.md), until SIGINT or SIGTERM. Proxy mode: each
service the identity may dial gets a local TCP port, and each connection to it is dialed through the overlay. Each
service it may bind that has a host.v1 config (tcp) is hosted: connections dialed to it reach that address.

  --proxy <service>:<port>     offer this service on this port (repeatable); when given, only the named services
                               are offered; otherwise every dialable service, on its intercept.v1 config's first port
  --host <address>             the local address to listen on (default 127.0.0.1)
  --poll-interval <duration>   how often service updates are polled (default 10s; 1s to 1h)

Logs are JSON lines on stderr. Exit 0 after a signal, 1 when it cannot start, 2 on a wrong command line.
`;

const defaultPollMs = 10_000;

/** `1s`, `500ms`, `2m`, `1h` → milliseconds. */
function durationMs(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
}

function checkRun({ flags }: { readonly flags: FlagValues }): string | undefined {
  try {
    parseProxySpecs(flags.list('proxy'));
  } catch (error) {
    return (error as Error).message;
  }
  const poll = flags.text('poll-interval');
  if (poll !== undefined) {
    const ms = durationMs(poll);
    if (ms === undefined || ms < 1000 || ms > 3_600_000) return `--poll-interval ${poll}: expected a duration from 1s to 1h (e.g. 5s)`;
  }
  return undefined;
}

const tree: CommandNode = {
  usage,
  subcommands: {
    run: {
      usage: runUsage,
      flags: [
        { name: 'proxy', kind: 'list' },
        { name: 'host', kind: 'string' },
        { name: 'poll-interval', kind: 'string' },
      ],
      arguments: ['identity.json'],
      min: 1,
      max: 1,
      example: ['id.json', '--proxy', 'echo:8080'],
      check: checkRun,
    },
  },
};

/** `./edgeward tunnel ...`: its subcommands, and the parse the command runs first. */
export const tunnelCommandLine: CommandLine = commandLineOf('tunnel', tree);

export async function runTunnelCommand(args: string[], io: CliIo): Promise<number> {
  const outcome = parseCommand('tunnel', tree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const { positional, flags } = outcome.value;
  const logger = createJsonLogger({ sink: (line) => io.stderr(`${line}\n`), level: process.env.EDGEWARD_LOG_LEVEL === 'debug' ? 'debug' : 'info', component: 'tunnel' });
  let sdk: EdgeSdk;
  try {
    sdk = EdgeSdk.fromIdentityFile(positional[0]!);
  } catch (error) {
    logger.error('tunnel failed to start', { error: (error as Error).message });
    return 1;
  }
  const poll = flags.text('poll-interval');
  return runTunnel(sdk, logger, { proxies: parseProxySpecs(flags.list('proxy')), host: flags.text('host') ?? '127.0.0.1', pollMs: poll === undefined ? defaultPollMs : durationMs(poll)! });
}

/** Logs in, offers the services, follows updates every `pollMs`, and stops on SIGINT or SIGTERM (exit 0). */
async function runTunnel(sdk: EdgeSdk, logger: Logger, options: { proxies: Map<string, number>; host: string; pollMs: number }): Promise<number> {
  const tunnel = new ProxyTunnel(sdk, logger, options);
  const hosting = new HostedServices(sdk, logger);
  // Proxy ports follow the service list when it moves; hosting is applied every time, so that a listener the router
  // ended is bound again.
  const sync = async (): Promise<void> => {
    const changed = await sdk.refreshServices();
    const services = await sdk.services();
    if (changed) await tunnel.apply(services);
    await hosting.apply(services);
  };
  try {
    const identity = await sdk.login();
    logger.info('tunnel logged in', { identity: identity.name, identityId: identity.id, controller: sdk.identity.controllerUrls[0] });
    await sync();
  } catch (error) {
    logger.error('tunnel failed to start', { error: (error as Error).message, ...(error instanceof EdgeSdkError ? { kind: error.kind } : {}) });
    await tunnel.stop();
    hosting.stop();
    sdk.close();
    return 1;
  }
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    sync()
      .catch((error: Error) => logger.warn('tunnel service update failed', { error: error.message }))
      .finally(() => {
        polling = false;
      });
  }, options.pollMs);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  clearInterval(timer);
  logger.info('tunnel stopping', { signal });
  await tunnel.stop();
  hosting.stop();
  sdk.close();
  logger.info('tunnel stopped');
  return 0;
}
