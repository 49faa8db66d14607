// `./edgeward router validate <router.yml> [--effective]`: every error and warning at once, as
// `<file>:<line>: <severity>: <key path>: <message> (rule: <rule>)` on stderr; with --effective, the whole
// configuration with defaults filled in as YAML on stdout. Exit 1 on any error, 0 with only warnings, 2 on misuse.

import { formatProblems } from '../../common/config/format-problems.ts';
import { hasErrors } from '../../common/config/problem.ts';
import type { ConfigProblem } from '../../common/config/problem.ts';
import { checkRouterFiles, readRouterConfig } from '../config-file.ts';
import { renderEffectiveConfig } from '../config/effective-config.ts';

export interface RouterCliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const usage = `Usage:
  ./edgeward router validate <router.yml> [--effective]
      print every error and warning with its line and key path (exit 1 on errors, 0 with only warnings);
      --effective also prints the whole configuration, defaults filled in, as YAML on stdout
`;

export async function runRouterCommand(args: readonly string[], io: RouterCliIo, env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === 'help') {
    io.stdout(usage);
    return action === undefined ? 2 : 0;
  }
  const flags = rest.filter((arg) => arg.startsWith('--'));
  const files = rest.filter((arg) => !arg.startsWith('--'));
  const unknownFlag = flags.find((flag) => flag !== '--effective');
  if (action !== 'validate' || files.length !== 1 || unknownFlag !== undefined) {
    const why = action !== 'validate' ? `unknown router command '${action}'` : unknownFlag !== undefined ? `unknown flag ${unknownFlag}` : 'expected one config file';
    io.stderr(`error: ${why}\n\n${usage}`);
    return 2;
  }
  const file = files[0]!;
  const effective = flags.includes('--effective');

  const parsed = await readRouterConfig(file, env);
  const problems: ConfigProblem[] = [...parsed.problems];
  if (parsed.config) problems.push(...checkRouterFiles(parsed.config, { severity: 'warning', lineOf: parsed.lineOf }));
  const ordered = problems.map((problem, order) => ({ problem, order })).sort((a, b) => (a.problem.line ?? 0) - (b.problem.line ?? 0) || a.order - b.order);
  const report = ordered.map(({ problem }) => problem);

  if (report.length > 0) io.stderr(`${formatProblems(report, file)}\n`);
  const errors = report.filter((problem) => problem.severity === 'error').length;
  const warnings = report.length - errors;
  if (hasErrors(report) || !parsed.config) {
    io.stderr(`${file}: ${errors} error(s), ${warnings} warning(s); the file is not valid\n`);
    return 1;
  }
  const summary = `${file}: valid (${warnings} warning(s))\n`;
  if (effective) {
    io.stderr(summary);
    io.stdout(`# effective router configuration of ${parsed.file}, defaults filled in\n${renderEffectiveConfig(parsed.config)}`);
  } else {
    io.stdout(summary);
  }
  return 0;
}
