// Help text quoted in the docs is the help the command prints today: every fenced block that starts with
// `$ ./edgeward <words> --help` must hold exactly what that command writes on stdout.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const root = join(import.meta.dirname, '..');
const run = promisify(execFile);

interface QuotedHelp {
  readonly file: string;
  readonly line: number;
  readonly args: string[];
  readonly text: string;
}

function quotedHelp(): QuotedHelp[] {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
  const found: QuotedHelp[] = [];
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^```\w*$/.test(lines[i]!)) continue;
      const first = /^\$ \.\/edgeward((?: [\w-]+)*) --help$/.exec(lines[i + 1] ?? '');
      const end = lines.indexOf('```', i + 1);
      if (first && end > i) found.push({ file, line: i + 2, args: [...first[1]!.trim().split(' ').filter(Boolean), '--help'], text: `${lines.slice(i + 2, end).join('\n')}\n` });
      if (end > i) i = end;
    }
  }
  return found;
}

describe('help text quoted in the docs', () => {
  const quotes = quotedHelp();

  it('is quoted somewhere (the top-level help in the operator guide at least)', () => {
    assert.ok(quotes.some((quote) => quote.file === 'docs/operator-guide.md' && quote.args.length === 1), 'the operator guide quotes ./edgeward --help');
  });

  for (const quote of quotes) {
    it(`${quote.file}:${quote.line}: ./edgeward ${quote.args.join(' ')}`, async () => {
      const { stdout } = await run(join(root, 'edgeward'), quote.args, { cwd: root, timeout: 60_000 });
      assert.equal(quote.text, stdout, `${quote.file}:${quote.line} is not what './edgeward ${quote.args.join(' ')}' prints: paste its output`);
    });
  }
});
