// Command-line arguments of the alerts tools: positionals, and options that each take one value, written
// `--name value` or `--name=value`. Every problem is a message for the user (the command then exits 2).

export type OptionArgs =
  | { readonly ok: true; readonly positionals: readonly string[]; readonly options: ReadonlyMap<string, string> }
  | { readonly ok: false; readonly message: string };

export function parseOptionArgs(args: readonly string[], valueOptions: readonly string[]): OptionArgs {
  const positionals: string[] = [];
  const options = new Map<string, string>();
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') {
      positionals.push(...args.slice(index + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = equals < 0 ? arg.slice(2) : arg.slice(2, equals);
    if (!valueOptions.includes(name)) {
      const known = valueOptions.map((option) => `--${option}`).join(', ');
      return { ok: false, message: `unknown option --${name}${known ? ` (options: ${known})` : ''}` };
    }
    let value: string | undefined;
    if (equals >= 0) value = arg.slice(equals + 1);
    else if (index + 1 < args.length && !args[index + 1]!.startsWith('--')) value = args[++index];
    if (value === undefined || value === '') return { ok: false, message: `--${name} needs a value` };
    if (options.has(name)) return { ok: false, message: `--${name} is given twice` };
    options.set(name, value);
  }
  return { ok: true, positionals, options };
}
