// The command line of `edgeward edge`, parsed the way `ziti edge` (cobra) reads it: long flags (`--name value`,
// `--name=value`), one-letter short flags (`-u admin`), booleans that take `=true`/`=false`, lists given
// comma-separated or repeated, flags anywhere among the positional arguments, and `--` to end the flags. Anything
// unknown is a usage error that names it. Pure: text in, values or a usage error out.
import { suggestKey } from '../../../common/config/suggest-key.ts';

export type FlagKind = 'string' | 'boolean' | 'list' | 'integer';

export interface FlagDef {
  /** The long name, without `--`. */
  readonly name: string;
  /** A one-letter short name, without `-`. */
  readonly short?: string;
  readonly kind: FlagKind;
  /** The placeholder shown in help, such as `<file>`. */
  readonly value?: string;
  readonly help: string;
}

/** A usage error: what is wrong, and which --help to read, on stderr; exit code 2. */
export class EdgeUsageError extends Error {}

export class ParsedFlags {
  constructor(
    readonly positional: readonly string[],
    private readonly values: ReadonlyMap<string, string | boolean | number | string[]>,
  ) {}

  has(name: string): boolean {
    return this.values.has(name);
  }

  text(name: string): string | undefined {
    const value = this.values.get(name);
    return typeof value === 'string' ? value : undefined;
  }

  bool(name: string): boolean | undefined {
    const value = this.values.get(name);
    return typeof value === 'boolean' ? value : undefined;
  }

  integer(name: string): number | undefined {
    const value = this.values.get(name);
    return typeof value === 'number' ? value : undefined;
  }

  list(name: string): string[] | undefined {
    const value = this.values.get(name);
    return Array.isArray(value) ? [...value] : undefined;
  }
}

export function parseFlags(args: readonly string[], defs: readonly FlagDef[]): ParsedFlags {
  const byName = new Map(defs.map((def) => [def.name, def]));
  const byShort = new Map(defs.filter((def) => def.short).map((def) => [def.short!, def]));
  const positional: string[] = [];
  const values = new Map<string, string | boolean | number | string[]>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      positional.push(arg);
      continue;
    }
    const long = arg.startsWith('--');
    const eq = arg.indexOf('=');
    const key = arg.slice(long ? 2 : 1, eq < 0 ? undefined : eq);
    const def = long ? byName.get(key) : key.length === 1 ? byShort.get(key) : undefined;
    const written = long ? `--${key}` : `-${key}`;
    if (!def) {
      const hint = long ? suggestKey(key, byName.keys()) : undefined;
      throw new EdgeUsageError(`unknown flag ${written}${hint ? ` (did you mean --${hint}?)` : ''}`);
    }
    if (def.kind === 'boolean') {
      const text = eq < 0 ? 'true' : arg.slice(eq + 1);
      if (text !== 'true' && text !== 'false') throw new EdgeUsageError(`${written} takes true or false, not '${text}'`);
      values.set(def.name, text === 'true');
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      value = args[++i];
      if (value === undefined || value.startsWith('--')) throw new EdgeUsageError(`${written} needs a value${def.value ? ` ${def.value}` : ''}`);
    }
    if (def.kind === 'integer') {
      if (!/^-?\d+$/.test(value.trim())) throw new EdgeUsageError(`${written} takes a whole number, not '${value}'`);
      values.set(def.name, Number.parseInt(value, 10));
    } else if (def.kind === 'list') {
      const items = value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
      values.set(def.name, [...((values.get(def.name) as string[] | undefined) ?? []), ...items]);
    } else {
      values.set(def.name, value);
    }
  }
  return new ParsedFlags(positional, values);
}

/** The flags as help lines: `  -u, --username <name>   the username ...`, aligned. */
export function flagHelp(defs: readonly FlagDef[]): string {
  const heads = defs.map((def) => {
    const value = def.kind === 'boolean' ? '' : ` ${def.value ?? (def.kind === 'list' ? '<a,b,...>' : def.kind === 'integer' ? '<n>' : '<value>')}`;
    return `${def.short ? `-${def.short}, ` : '    '}--${def.name}${value}`;
  });
  const width = Math.max(0, ...heads.map((head) => head.length));
  return defs.map((def, i) => `  ${heads[i]!.padEnd(width)}   ${def.help}\n`).join('');
}
