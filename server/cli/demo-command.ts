// `./edgeward demo [--data <dir>]`: runs the local appliance in the foreground until Ctrl-C.
import { startDemo } from '../demo/demo-appliance.ts';
import { CliUsageError, parseArgs } from './cli-args.ts';
import type { CliIo } from './main.ts';

export async function runDemoCommand(args: string[], io: CliIo): Promise<number> {
  let data: string;
  try {
    const parsed = parseArgs(args, { data: 'string', help: 'boolean' });
    if (parsed.flags.help) {
      io.stdout('Usage: ./edgeward demo [--data <dir>]   (default ./.edgeward-demo)\n');
      return 0;
    }
    if (parsed.positional.length > 0) throw new CliUsageError(`unexpected argument '${parsed.positional[0]}'`);
    data = (parsed.flags.data as string | undefined) ?? '.edgeward-demo';
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n`);
    return 2;
  }

  io.stdout(`edgeward demo: starting the appliance in ${data} ...\n`);
  const demo = await startDemo(data, (line) => io.stdout(`edgeward demo: ${line}\n`));
  const controller = demo.state.controllers[0]!;
  io.stdout(
    [
      '',
      'edgeward demo is up.',
      `  Edge Client API      ${controller.clientApi}`,
      `  Edge Management API  ${controller.managementApi}`,
      `  Health checks        ${controller.healthChecks}`,
      `  Metrics              ${controller.metrics}`,
      `  CA bundle            ${demo.state.caBundle}`,
      `  Admin                username '${demo.state.admin.username}', password in ${demo.state.admin.passwordFile}`,
      `  Controller log       ${controller.logFile}`,
      `  State                ${demo.stateFile}`,
      '',
      `Try: curl --cacert ${demo.state.caBundle} -H 'content-type: application/json' \\`,
      `       -d "{\\"username\\":\\"admin\\",\\"password\\":\\"$(cat ${demo.state.admin.passwordFile})\\"}" \\`,
      `       '${controller.managementApi}/authenticate?method=password'`,
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    void demo.unexpectedExit.then((reason) => resolve(reason));
  });
  io.stdout(`\nedgeward demo: stopping (${signal}) ...\n`);
  await demo.stop();
  io.stdout('edgeward demo: stopped.\n');
  return signal.startsWith('SIG') ? 0 : 1;
}
