// `./edgeward <command>`: the one command-line entry. Each command lives in its own module; this file dispatches.
import { currentVersion } from '../web/version-info.ts';

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
    const { runPkiCommand } = await import('../pki/pki-command.ts');
    return (args, io) => runPkiCommand(args, { stdout: io.stdout, stderr: io.stderr });
  },
  demo: async () => (await import('./demo-command.ts')).runDemoCommand,
  gen: async () => (await import('../../alerts/cli/gen-command.ts')).runGenCommand,
  edge: async () => (await import('./edge/edge-command.ts')).runEdgeCommand,
};

const usage = `edgeward: identity overlay-network controller and router, shipped as an observability-first appliance

Usage: ./edgeward <command> [arguments]

Set-up (each installs whatever is missing first):
  demo [--data <dir>]                 start the local appliance in the foreground (default data dir ./.edgeward-demo)
  test [<file.test.ts>...]            typecheck, lint and run every test

Controller:
  controller run <ctrl.yml>           run a controller
  controller validate <ctrl.yml>      print every problem in a controller config (exit 1 when any is an error)

Router:
  router enroll <router.yml> --jwt <file>
                                      enroll with an edge router's one-time JWT: key, certificates, endpoints file
  router run <router.yml>             run a router: control channel, links, health checks, metrics
  router validate <router.yml> [--effective]
                                      print every problem in a router config (exit 1 on errors, 0 with only warnings);
                                      --effective also prints the config with defaults filled in, as YAML

Operator:
  agent status [--socket <path>]                      the local controller's id, version, raft index and role
  agent controller init --username <u> --password-file <f> [--name <n>] [--socket <path>]
                                                      start a new cluster with this controller and create the default admin
  agent cluster list [--json]                         the member table (Id, Address, Voter, Leader, Version, Connected, Preferred)
  agent cluster add tls:<host>:<port> [--voter=false] add a controller (or, on a new empty one, ask that member to add it: cluster.allowJoinRequests)
  agent cluster remove <id>                           remove a member
  agent cluster transfer-leadership [<id>]            hand leadership to <id> or the most caught-up voter
  pki init|controller|client|show ...                 the service's own PKI (./edgeward pki --help)

Edge Management API, in the manner of 'ziti edge' (./edgeward edge --help):
  edge login <url> -u <user> [--password-file <f>] [--ca <pem>]
                                                      log in as an administrator and keep the session
  edge list <entities> ['<filter>'] [--json|--yaml]   list identities, services, service-policies, ...
  edge create|update|delete <entity> ...              create, change and delete entities
  edge mfa reset <identity>                           remove an identity's MFA enrollment

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

  version                             print the version
  --help                              this text
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
    case '--help':
    case '-h':
    case 'help':
      io.stdout(usage);
      return command === undefined ? 2 : 0;
    case 'version':
    case '--version':
      io.stdout(`${currentVersion().version}\n`);
      return 0;
    default: {
      const load = Object.hasOwn(commands, command) ? commands[command] : undefined;
      if (!load) {
        io.stderr(`edgeward: unknown command '${command}'\n\n${usage}`);
        return 2;
      }
      return (await load())(rest, io);
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // Long-running commands (controller run, demo) keep the loop alive themselves and set exitCode when they stop.
    if (code !== -1) process.exitCode = code;
  },
  (error: Error) => {
    io.stderr(`edgeward: ${error.message}\n`);
    process.exitCode = 1;
  },
);
