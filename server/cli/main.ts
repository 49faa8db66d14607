// `./edgeward <command>`: the one command-line entry. Each command lives in its own module; this file dispatches.
import { currentVersion } from '../../common/version/version-info.ts';
import { reportOutcome } from '../../common/cli/command-line.ts';
import { suggestKey } from '../../common/config/suggest-key.ts';
import { versionCommandLine } from './command-lines.ts';

type CommandRunner = (args: string[], io: CliIo) => Promise<number>;

// Each command's module is loaded only when that command runs: loading them all (the controller, the router, the
// generators, the status page) made every quick command pay seconds of start-up for code it never used.
const commands: Readonly<Record<string, () => Promise<CommandRunner>>> = {
  controller: async () => (await import('./controller-command.ts')).runControllerCommand,
  router: async () => (await import('../../router/cli/router-command.ts')).runRouterCommand,
  agent: async () => (await import('./agent-command.ts')).runAgentCommand,
  alerts: async () => (await import('../../alerts/cli/alerts-command.ts')).runAlertsCommand,
  dashboard: async () => (await import('../../dashboard/cli/dashboard-command.ts')).runDashboardCommand,
  raft: async () => (await import('./raft-command.ts')).runRaftCommand,
  pki: async () => {
    const { runPkiCommand } = await import('../../common/pki/pki-command.ts');
    return (args, io) => runPkiCommand(args, { stdout: io.stdout, stderr: io.stderr });
  },
  demo: async () => (await import('./demo-command.ts')).runDemoCommand,
  gen: async () => (await import('./gen-command.ts')).runGenCommand,
  edge: async () => (await import('./edge/edge-command.ts')).runEdgeCommand,
  tunnel: async () => (await import('../../tunnel/tunnel-command.ts')).runTunnelCommand,
  install: async () => (await import('./install/install-command.ts')).runInstallCommand,
  uninstall: async () => (await import('./install/install-command.ts')).runUninstallCommand,
  pack: async () => (await import('./install/install-command.ts')).runPackCommand,
};

const usage = `edgeward: identity overlay-network controller and router, shipped as an observability-first appliance

Usage: ./edgeward <command> [arguments]

Set-up (demo, test and install first install whatever is missing, under a lock; '--help' installs nothing):
  demo [--data <dir>]                 start the local appliance in the foreground (default data dir ./.edgeward-demo)
  test [<file.test.ts>...]            typecheck, lint and run every test
  install [--root DIR] [--prefix DIR] install the appliance as systemd services (docs/install.md)
  uninstall [--root DIR] [--purge]    remove the installed appliance (--purge: its data and configuration too)
  pack [--out FILE]                   build a release tarball to install on another machine

Controller:
  controller run <ctrl.yml>           run a controller
  controller validate <ctrl.yml> [--json] [--strict]
                                      print every problem in a controller config in file order (exit 1 on errors)
  controller restore <ctrl.yml> <backup-file>
                                      seed a new one-member cluster from a backup (stopped, empty data folder)
  controller recover <ctrl.yml>       make a stopped survivor of a lost majority the only voter

Router:
  router enroll <router.yml> --jwt <file>
                                      enroll with an edge router's one-time JWT: key, certificates, endpoints file
  router run <router.yml>             run a router: control channel, links, health checks, metrics
  router validate <router.yml> [--effective] [--json] [--strict]
                                      print every problem in a router config in file order (exit 1 on errors, 0 with
                                      only warnings); --effective also prints the config with defaults filled in;
                                      --json one JSON report; --strict unknown keys are errors

Operator:
  agent status [--socket <path>]                      the local controller's id, version, raft index and role
  agent controller init --username <u> --password-file <f> [--name <n>] [--socket <path>]
                                                      start a new cluster with this controller and create the default admin
  agent controller snapshot [--out <file>] [--json]   write a backup of the model while the controller serves
  agent cluster list [--json]                         the member table (Id, Address, Voter, Leader, Version, Connected, Preferred)
  agent cluster add tls:<host>:<port> [--voter=false] add a controller (or, on a new empty one, ask that member to add it: cluster.allowJoinRequests)
  agent cluster remove <id>                           remove a member
  agent cluster transfer-leadership [<id>]            hand leadership to <id> or the most caught-up voter
  pki init|controller|client|show ...                 the service's own PKI (./edgeward pki --help)

Edge Management API, in the manner of 'ziti edge' (./edgeward edge --help):
  edge login <url> -u <user> [--password-file <f>] [--ca <pem>]
                                                      log in as an administrator and keep the session
  edge enroll <jwt file> [--out <id.json>]            enroll an identity and write OpenZiti's identity file
  edge list <entities> ['<filter>'] [--json|--yaml]   list identities, services, service-policies, ...
  edge create|update|delete <entity> ...              create, change and delete entities
  edge mfa reset <identity>                           remove an identity's MFA enrollment

Tunneler (docs/sdk-and-tunnel.md):
  tunnel run <identity.json> [--proxy <service>:<port> ...]
                                                      offer each service the identity may dial on a local port

Alerts:
  alerts run <alerts.yml>                             the alerts daemon: tails controller logs and event files, polls
                                                      health and metrics, pages and warns through Alertmanager
  alerts validate <alerts.yml>                        print every problem in an alerts daemon config (exit 1 on errors)
  alerts pager --listen <host:port> --log <file>      a local receiver for Alertmanager's webhook notifications

Status page:
  dashboard run <dashboard.yml>                       the status page: every controller's health, leader, members,
                                                      commit lag, events, firing alerts and charts, live
  dashboard validate <dashboard.yml>                  print every problem in a status page config (exit 1 on errors)
  dashboard build [--force]                           build the page (next build) ahead of its first run

Generators:
  gen rules <dir> [--runbook-base <url>]              Prometheus alert and recording rules, with their promtool tests
  gen alertmanager <dir> [--pager-url <url>] [--warning-url <url>] ...
                                                      Alertmanager routing (./edgeward gen --help)
  gen dashboards <dir> [--datasource-url <url>] ...   Grafana dashboards and provisioning files

Raft:
  raft sim [--seeds <n>] [--first <seed>] [--steps <k>] [--nodes <m>]   run the seeded fault simulator
  raft sim --seed <s> --trace                                            replay one seed with its events
  raft mutants [--only <name>] [--seeds <n>]                             check the simulator catches planted bugs

  version                             print the version
  --help                              this text

'./edgeward <command> --help' describes a command. Exit codes: 0 done, 1 failed, 2 a wrong command line.
`;

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

// A reader that closes the pipe early (`| head`) ends the command quietly, not with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const io: CliIo = { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      io.stderr(usage);
      return 2;
    case '--help':
    case '-h':
    case 'help':
      io.stdout(usage);
      return 0;
    case 'version':
    case '--version': {
      const outcome = versionCommandLine.parse(rest);
      if (outcome.kind !== 'run') return reportOutcome(outcome, io);
      io.stdout(`${currentVersion().version}\n`);
      return 0;
    }
    default: {
      const load = Object.hasOwn(commands, command) ? commands[command] : undefined;
      if (!load) {
        const hint = suggestKey(command, Object.keys(commands));
        io.stderr(`edgeward: unknown command '${command}'${hint ? ` (did you mean ${hint}?)` : ''}\nRun './edgeward --help' for usage.\n`);
        return 2;
      }
      return (await load())(rest, io);
    }
  }
}

/**
 * With EDGEWARD_CHECK_COMMAND_LINE=1 (what the ./edgeward script sets before `demo` and `install` install anything),
 * only the command line is parsed: exit 0 silently when it would run; otherwise the help (exit 10) or the usage error
 * (exit 2) is printed as the command would, and nothing is installed.
 */
async function checkCommandLine(argv: string[]): Promise<number> {
  const { parseEdgewardCommandLine } = await import('./command-lines.ts');
  const outcome = await parseEdgewardCommandLine(argv);
  if (outcome.kind === 'run') return 0;
  if (outcome.kind === 'help' || outcome.command === '') return (await main(argv)) === 0 ? 10 : 2;
  return reportOutcome(outcome, io);
}

(process.env['EDGEWARD_CHECK_COMMAND_LINE'] === '1' ? checkCommandLine : main)(process.argv.slice(2)).then(
  (code) => {
    // Long-running commands (controller run, demo) keep the loop alive themselves and set exitCode when they stop.
    if (code !== -1) process.exitCode = code;
  },
  (error: Error) => {
    io.stderr(`edgeward: ${error.message}\n`);
    process.exitCode = 1;
  },
);
