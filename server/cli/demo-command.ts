// `./edgeward demo [--data <dir>]`: runs the local appliance (a cluster of three controllers and two routers linked
// to each other, watched by Prometheus, Alertmanager, the alerts daemon and a local pager receiver, shown on the
// status page) in the foreground until Ctrl-C or SIGTERM.
import { startDemo } from '../demo/demo-appliance.ts';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode } from '../../common/cli/command-line.ts';
import type { CliIo } from './main.ts';

const usage = `Usage: ./edgeward demo [--data <dir>]

Starts the local appliance in the foreground until Ctrl-C or SIGTERM: three controllers in one cluster, two linked
routers, Prometheus, Alertmanager, the alerts daemon, a pager receiver and the status page. Its files, logs and
state live in <dir> (default ./.edgeward-demo). Run through ./edgeward, it first installs what is missing (Debian
packages, npm packages); '--help' installs nothing.
`;

const tree: CommandNode = { usage, flags: [{ name: 'data', kind: 'string' }], arguments: [], min: 0, max: 0, example: ['--data', '.edgeward-demo'] };

/** `./edgeward demo ...`: its flags, and the parse the command runs first. */
export const demoCommandLine: CommandLine = commandLineOf('demo', tree);

export async function runDemoCommand(args: string[], io: CliIo): Promise<number> {
  const outcome = parseCommand('demo', tree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const data = outcome.value.flags.text('data') ?? '.edgeward-demo';

  // Signals are ours from the start: Ctrl-C while the controllers and routers come up stops them too.
  let signalled: string | undefined;
  let onSignal: (name: string) => void = () => undefined;
  const aborter = new AbortController();
  const handlers = {
    SIGINT: () => onSignal('SIGINT'),
    SIGTERM: () => onSignal('SIGTERM'),
  };
  onSignal = (name) => {
    signalled ??= name;
    aborter.abort();
  };
  process.on('SIGINT', handlers.SIGINT);
  process.on('SIGTERM', handlers.SIGTERM);
  const release = () => {
    process.off('SIGINT', handlers.SIGINT);
    process.off('SIGTERM', handlers.SIGTERM);
  };

  io.stdout(`edgeward demo: starting the appliance in ${data} ...\n`);
  const log = (line: string) => io.stdout(`edgeward demo: ${line}\n`);
  let demo;
  try {
    demo = await startDemo(data, log, { signal: aborter.signal });
  } catch (error) {
    release();
    if (signalled) {
      io.stdout(`\nedgeward demo: stopped (${signalled}) before it was up.\n`);
      return 0;
    }
    io.stderr(`edgeward demo: error: ${(error as Error).message}\n`);
    return 1;
  }

  const { state } = demo;
  const first = state.controllers[0]!;
  const lines = ['', `edgeward demo is up: a cluster of ${state.controllers.length} controllers (leader ${demo.leader}) and ${demo.routers.length} linked routers.`];
  for (const controller of state.controllers) {
    lines.push(
      `  ${controller.id} (pid ${controller.pid})`,
      `    Edge Client API      ${controller.clientApi}`,
      `    Edge Management API  ${controller.managementApi}`,
      `    Health checks        ${controller.healthChecks}`,
      `    Metrics              ${controller.metrics}`,
      `    Agent socket         ${controller.agentSocket}`,
      `    Log                  ${controller.logFile}`,
    );
  }
  for (const router of demo.routers) {
    lines.push(
      `  ${router.name} (id ${router.entry.id}, pid ${router.entry.pid})`,
      `    Health checks        ${router.entry.healthChecks}`,
      `    Link listener        ${router.linkAddress}`,
      `    Config               ${router.entry.config}`,
      `    Log                  ${router.logFile}`,
    );
  }
  lines.push(
    `  Data plane             ${state.dataPlane.service}: router1 proxies ${state.dataPlane.proxy} to the echo server ${state.dataPlane.upstream} behind router2`,
    `  SDK path               ./edgeward tunnel run as ${state.dataPlane.sdkIdentity} (${state.dataPlane.sdkIdentityFile}) proxies ${state.dataPlane.sdkProxy} to ${state.dataPlane.service}`,
    `  Status page            ${state.dashboard.url}   (pid ${state.dashboard.pid})`,
    `  Prometheus             ${state.prometheus.url}   (rules: ${demo.stack.files.rules})`,
    `  Alertmanager           ${state.alertmanager.url}   (config: ${demo.stack.files.alertmanagerConfig})`,
    `  Alerts daemon          ${state.alerts.metrics} (pid ${state.alerts.pid}; config: ${demo.stack.files.alertsConfig})`,
    `  Pager log              ${state.pager.log}   (pages and warnings as JSON lines, from the pager receiver on ${demo.stack.urls.pager ?? '-'})`,
    `  CA bundle              ${state.caBundle}`,
    `  Admin                  username '${state.admin.username}', password in ${state.admin.passwordFile}`,
    `  State                  ${demo.stateFile}`,
    '',
    `Try: curl --cacert ${state.caBundle} -H 'content-type: application/json' \\`,
    `       -d "{\\"username\\":\\"admin\\",\\"password\\":\\"$(cat ${state.admin.passwordFile})\\"}" \\`,
    `       '${first.managementApi}/authenticate?method=password'`,
    `     ./edgeward agent cluster list --socket ${first.agentSocket}`,
    ...(demo.routers[0] ? [`     curl --cacert ${state.caBundle} ${demo.routers[0].entry.healthChecks}`] : []),
    `     curl http://${state.dataPlane.proxy}/hello/overlay; curl --data-binary @/etc/os-release http://${state.dataPlane.proxy}/echo-body`,
    `     curl http://${state.dataPlane.sdkProxy}/hello/sdk   (through ./edgeward tunnel run, an SDK client of the overlay)`,
    `     curl -s '${state.prometheus.url}/api/v1/alerts'; curl -s ${state.alertmanager.url}/api/v2/alerts; tail -f ${state.pager.log}`,
    `     open ${state.dashboard.url} in a browser: every controller, the leader, commit lag, events and alerts, live`,
    '',
    'A process that fails is restarted after 1 s (at most 5 times a minute).',
    'Press Ctrl-C to stop.',
    '',
  );
  io.stdout(lines.join('\n'));

  const reason = await new Promise<string>((resolve) => {
    if (signalled) return resolve(signalled);
    onSignal = (name) => {
      signalled ??= name;
      resolve(name);
    };
    void demo.unexpectedExit.then((why) => resolve(why));
  });
  io.stdout(signalled ? `\nedgeward demo: stopping (${reason}) ...\n` : `\nedgeward demo: stopping: ${reason}\n`);
  await demo.stop();
  release();
  io.stdout('edgeward demo: stopped.\n');
  return signalled ? 0 : 1;
}
