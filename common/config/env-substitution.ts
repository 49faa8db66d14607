// Go `os.ExpandEnv` applied to every string scalar of parsed config data, as OpenZiti's loader does:
// `${VAR}` and `$VAR` expand, unset is empty, there is no `${VAR:-default}` (the whole text is a name) and no
// escape (`$$` is the special variable `$`, which is empty). Keys, numbers and booleans are left alone, so a
// whole value fed by `${PORT}` stays a string.

export type Env = Readonly<Record<string, string | undefined>>;

/** Go `os.Expand(text, mapping)` with `mapping = name => env[name] ?? ''`. */
export function expandEnv(text: string, env: Env): string {
  let out = '';
  let copiedUpTo = 0;
  for (let j = 0; j < text.length; j++) {
    if (text[j] !== '$' || j + 1 >= text.length) continue; // a trailing `$` is kept
    out += text.slice(copiedUpTo, j);
    const { name, width } = shellName(text.slice(j + 1));
    if (name === '' && width > 0) {
      // bad syntax (`${}` or an unclosed `${`): Go drops those characters
    } else if (name === '') {
      out += '$'; // `$` not followed by a name stays as is
    } else {
      out += env[name] ?? '';
    }
    j += width;
    copiedUpTo = j + 1;
  }
  return out + text.slice(copiedUpTo);
}

/** Returns a copy of `data` with every string scalar expanded (map values and list items, recursively). */
export function substituteEnv(data: unknown, env: Env): unknown {
  if (typeof data === 'string') return expandEnv(data, env);
  if (Array.isArray(data)) return data.map((item) => substituteEnv(item, env));
  if (isPlainObject(data)) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data)) out[key] = substituteEnv(value, env);
    return out;
  }
  return data;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

// Port of Go's os.getShellName: the variable name after a `$` and how many characters it spans.
function shellName(s: string): { name: string; width: number } {
  if (s[0] === '{') {
    if (s.length > 2 && isShellSpecial(s[1]!) && s[2] === '}') return { name: s[1]!, width: 3 };
    for (let i = 1; i < s.length; i++) {
      if (s[i] === '}') return i === 1 ? { name: '', width: 2 } : { name: s.slice(1, i), width: i + 1 };
    }
    return { name: '', width: 1 };
  }
  if (isShellSpecial(s[0]!)) return { name: s[0]!, width: 1 };
  let i = 0;
  while (i < s.length && isAlphaNum(s[i]!)) i++;
  return { name: s.slice(0, i), width: i };
}

function isShellSpecial(c: string): boolean {
  return '*#$@!?-0123456789'.includes(c);
}

function isAlphaNum(c: string): boolean {
  return /^[A-Za-z0-9_]$/.test(c);
}
