// Every `./edgeward` command's command line, gathered lazily (each is loaded only when asked for), for the tests that
// walk the whole command tree and check every command line the docs show. `test` is answered by the ./edgeward
// script itself (scripts/run-tests.sh); its command line is described here, and a test compares the two help texts.
import { commandLineOf, parseCommand, type CommandLine, type ParseOutcome } from '../../common/cli/command-line.ts';

/** `./edgeward test --help`: the ./edgeward script prints exactly this (a test compares them). */
export const testUsage = `Usage: ./edgeward test [<file.test.ts>...]

Installs whatever is missing (Debian packages, npm packages), then typechecks, lints the module boundaries and runs
every test (or only the files given) with Node's test runner. '--help' installs nothing.
`;

export const testCommandLine: CommandLine = commandLineOf('test', { usage: testUsage, flags: [], arguments: ['file.test.ts'], min: 0, max: Infinity, example: ['test/cli-consistency.test.ts'] });

export const versionCommandLine: CommandLine = commandLineOf('version', { usage: 'Usage: ./edgeward version\n\nPrints the version.\n', flags: [], arguments: [], min: 0, max: 0, example: [] });

/** Each top-level command's name and how to load its command line, in the order of the top-level usage. */
export const commandLineLoaders: Readonly<Record<string, () => Promise<CommandLine>>> = {
  demo: async () => (await import('./demo-command.ts')).demoCommandLine,
  test: async () => testCommandLine,
  install: async () => (await import('./install/install-command.ts')).installCommandLine,
  uninstall: async () => (await import('./install/install-command.ts')).uninstallCommandLine,
  pack: async () => (await import('./install/install-command.ts')).packCommandLine,
  controller: async () => (await import('./controller-command.ts')).controllerCommandLine,
  router: async () => (await import('../../router/cli/router-command.ts')).routerCommandLine,
  agent: async () => (await import('./agent-command.ts')).agentCommandLine,
  pki: async () => (await import('../../common/pki/pki-command.ts')).pkiCommandLine,
  edge: async () => (await import('./edge/edge-command.ts')).edgeCommandLine,
  tunnel: async () => (await import('../../tunnel/tunnel-command.ts')).tunnelCommandLine,
  alerts: async () => (await import('../../alerts/cli/alerts-command.ts')).alertsCommandLine,
  dashboard: async () => (await import('../../dashboard/cli/dashboard-command.ts')).dashboardCommandLine,
  gen: async () => (await import('./gen-command.ts')).genCommandLine,
  raft: async () => (await import('./raft-command.ts')).raftCommandLine,
  version: async () => versionCommandLine,
};

export const commandNames: readonly string[] = Object.keys(commandLineLoaders);

/** Every command's command line. */
export async function allCommandLines(): Promise<CommandLine[]> {
  return Promise.all(Object.values(commandLineLoaders).map((load) => load()));
}

/**
 * The words after `./edgeward` as the command would read them: the top-level help, an unknown command (a usage
 * error), or the command's own parse.
 */
export async function parseEdgewardCommandLine(words: readonly string[]): Promise<ParseOutcome> {
  const [name, ...rest] = words;
  if (name === undefined) return { kind: 'usage-error', command: '', reason: 'missing a command' };
  if (name === '--help' || name === '-h' || name === 'help') return { kind: 'help', text: 'top-level usage' };
  if (name === '--version') return parseCommand('version', { usage: '', flags: [], arguments: [], min: 0, max: 0, example: [] }, rest);
  const load = Object.hasOwn(commandLineLoaders, name) ? commandLineLoaders[name] : undefined;
  if (!load) return { kind: 'usage-error', command: '', reason: `unknown command '${name}'` };
  return (await load()).parse(rest);
}
