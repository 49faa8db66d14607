// A small, strict flag parser: `--name value`, `--name=value`, booleans, repeated flags; anything unknown is an
// error that names it.
export interface FlagSpec {
  readonly [name: string]: 'string' | 'boolean' | 'list';
}

export interface ParsedArgs {
  readonly positional: string[];
  readonly flags: Record<string, string | boolean | string[]>;
}

export class CliUsageError extends Error {}

export function parseArgs(args: readonly string[], spec: FlagSpec): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string | boolean | string[]> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const kind = spec[name];
    if (!kind) throw new CliUsageError(`unknown flag --${name}`);
    if (kind === 'boolean') {
      const text = eq < 0 ? 'true' : arg.slice(eq + 1);
      if (text !== 'true' && text !== 'false') throw new CliUsageError(`--${name} takes true or false, not '${text}'`);
      flags[name] = text === 'true';
      continue;
    }
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new CliUsageError(`--${name} needs a value`);
    if (kind === 'list') flags[name] = [...((flags[name] as string[] | undefined) ?? []), value];
    else flags[name] = value;
  }
  return { positional, flags };
}
