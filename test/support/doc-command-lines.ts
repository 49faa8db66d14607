// The `./edgeward ...` command lines a Markdown file shows, in fenced code blocks and inline code spans, as words:
// `\` continuations joined, `$ ` prompts, `sudo` and `VAR=value` prefixes dropped, quotes removed, a trailing
// `# comment`, a pipe or a redirection cut off, and `<placeholders>` kept whole. A line written as a synopsis
// (`[optional]` parts, `a|b` alternatives, `...`) is marked so, to be checked for its command path and flag names only.

export interface DocCommand {
  readonly file: string;
  readonly line: number;
  /** The command as the file writes it, from `edgeward` on. */
  readonly text: string;
  /** The words after `edgeward`, unquoted. */
  readonly words: readonly string[];
  readonly synopsis: boolean;
  /** From an inline code span (prose may name a command without its arguments), not a code block. */
  readonly inline: boolean;
  /** Written as a path to the script (`./edgeward`), not the bare name `edgeward` (which prose also uses for names). */
  readonly explicit: boolean;
  /** In a code block, the two lines after the command: what it prints, when the docs show that. */
  readonly next?: readonly string[];
}

interface Token {
  readonly text: string;
  /** Written without quotes (so `#`, `|`, `[` mean what they mean to a shell or a synopsis). */
  readonly bare: boolean;
}

/** Shell-like words; `<...>` and `[...]` are not split at spaces inside them. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let current = '';
  let bare = true;
  let started = false;
  let angle = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      const stop = end < 0 ? text.length : end;
      current += text.slice(i + 1, stop);
      bare = false;
      started = true;
      i = stop;
      continue;
    }
    if (c === '<') angle++;
    if (c === '>' && angle > 0) angle--;
    if (/\s/.test(c) && angle === 0) {
      if (started) tokens.push({ text: current, bare });
      current = '';
      bare = true;
      started = false;
      continue;
    }
    current += c;
    started = true;
  }
  if (started) tokens.push({ text: current, bare });
  return tokens;
}

const start = /^(?:\$\s+)?(?:sudo\s+(?:-\S+\s+)*)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:\S*\/)?edgeward\s/;

/** The command a logical line (or code span) holds, if it starts with `edgeward` or `./edgeward`. */
export function commandOf(raw: string, file: string, line: number, inline: boolean, next?: readonly string[]): DocCommand[] {
  const out: DocCommand[] = [];
  // Commands joined with && or ; are looked at one by one.
  for (const segment of raw.split(/\s(?:&&|\|\||;)\s|;\s/)) {
    const text = segment.trim();
    const match = start.exec(`${text} `);
    if (!match) continue;
    const from = match[0].lastIndexOf('edgeward');
    const tokens = tokenize(text.slice(from));
    const words: string[] = [];
    let synopsis = false;
    let depth = 0;
    for (const token of tokens.slice(1)) {
      if (token.bare) {
        if (token.text.startsWith('#')) break;
        if (depth === 0 && (token.text === '|' || /^\d?>>?/.test(token.text) || token.text === '&')) break;
        if (/[[\]|()]|\.\.\.|…/.test(token.text)) synopsis = true;
        depth += (token.text.match(/[[(]/g) ?? []).length - (token.text.match(/[\])]/g) ?? []).length;
      }
      words.push(token.text);
    }
    if (depth !== 0) synopsis = true;
    // `edgeward gen: ...` is a command's output, not a command; a bare `./edgeward` names the program.
    if (words.length === 0 || words.slice(0, 3).some((word) => word.endsWith(':'))) continue;
    out.push({ file, line, text: text.slice(from), words, synopsis, inline, explicit: match[0][from - 1] === '/', ...(next ? { next } : {}) });
  }
  return out;
}

export function docCommands(markdown: string, file: string): DocCommand[] {
  const lines = markdown.split('\n');
  const out: DocCommand[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = /^\s*(```+|~~~+)/.exec(line);
    if (marker) {
      if (fence === undefined) fence = marker[1]![0]!;
      else if (marker[1]![0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) {
      let logical = line;
      const first = i;
      while (/\\\s*$/.test(logical) && i + 1 < lines.length) logical = `${logical.replace(/\\\s*$/, ' ')}${lines[++i]!.trim()}`;
      out.push(...commandOf(logical.trim(), file, first + 1, false, lines.slice(i + 1, i + 3)));
      continue;
    }
    // In a table, `\|` is a pipe character.
    for (const span of line.matchAll(/(?<!`)`([^`]+)`(?!`)/g)) out.push(...commandOf(span[1]!.replaceAll('\\|', '|').trim(), file, i + 1, true));
  }
  return out;
}

/** A value for a `<placeholder>`, so a command shown with placeholders parses as a real one would. */
export function sampleFor(name: string): string {
  const key = name.toLowerCase();
  if (key === 'host:port' || key === 'host>:<port') return '127.0.0.1:9096';
  if (key === 'host') return '127.0.0.1';
  if (key === 'port') return '6262';
  if (key.includes('url')) return 'https://127.0.0.1:1280';
  if (/^(n|k|m|s|seed|seeds|count|number|steps|nodes|seconds|cost)$/.test(key)) return '1';
  if (key.includes('filter')) return 'name = "x"';
  return key.replace(/[^a-z0-9.]+/g, '-').replace(/^-|-$/g, '') || 'x';
}

export function withSamples(word: string): string {
  return word.replace(/<([^<>]+)>/g, (_, name: string) => sampleFor(name));
}
