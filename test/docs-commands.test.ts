// Every `./edgeward ...` command line the README and docs/*.md show parses as the command would parse it: a command
// a reader copies never meets a usage error. Synopses (`[optional]`, `a|b`, `...`) are checked for their command path
// and flag names.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { usageErrorText, type CommandLine, type SubcommandInfo } from '../common/cli/command-line.ts';
import { commandLineLoaders, parseEdgewardCommandLine } from '../server/cli/command-lines.ts';
import { docCommands, tokenize, withSamples, type DocCommand } from './support/doc-command-lines.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));

function docFiles(): string[] {
  const docs = join(repo, 'docs');
  return ['README.md', ...(existsSync(docs) ? readdirSync(docs).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`) : [])];
}

const isGroup = (line: CommandLine, sub: SubcommandInfo) => line.subcommands.some((other) => other.path.length > sub.path.length && sub.path.every((word, i) => other.path[i] === word));

/** The subcommand the leading words name (the longest path that matches), and the words after it. */
function subcommandOf(line: CommandLine, words: readonly string[]): { sub: SubcommandInfo; rest: string[] } {
  let best = line.subcommands.find((sub) => sub.path.length === 0) ?? line.subcommands[0]!;
  for (const sub of line.subcommands) if (sub.path.length > best.path.length && sub.path.every((word, i) => words[i] === word)) best = sub;
  return { sub: best, rest: words.slice(best.path.length) };
}

/** What is wrong with a synopsis line: a command path or a flag that does not exist. */
async function synopsisProblem(command: DocCommand): Promise<string | undefined> {
  const [name, ...after] = command.words;
  if (name === undefined || /^[<[]/.test(name) || name === '--help' || name === '-h') return undefined;
  const load = Object.hasOwn(commandLineLoaders, name) ? commandLineLoaders[name] : undefined;
  if (!load) return `unknown command '${name}'`;
  const line = await load();
  const plain: string[] = [];
  for (const word of after) {
    if (/^[-<[('"]|^\.\.\.|…/.test(word)) break;
    plain.push(word);
  }
  // `init|controller|client`: each alternative in turn.
  const alternatives = plain.length > 0 && plain.at(-1)!.includes('|') ? plain.at(-1)!.split('|').map((last) => [...plain.slice(0, -1), last]) : [plain];
  for (const path of alternatives) {
    const { sub, rest } = subcommandOf(line, path);
    if (isGroup(line, sub) && rest.length > 0) return `'${[name, ...sub.path].join(' ')}' has no subcommand '${rest[0]}'`;
    const leaves = isGroup(line, sub) ? line.subcommands.filter((candidate) => !isGroup(line, candidate) && sub.path.every((word, i) => candidate.path[i] === word)) : [sub];
    const flags = new Set([...command.text.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])\b/g)].map((match) => match[1]!));
    for (const flag of flags) {
      const known = leaves.some((leaf) => {
        const outcome = line.parse([...leaf.path, ...leaf.example, flag, 'x']);
        return !(outcome.kind === 'usage-error' && new RegExp(`^unknown flag ${flag}(?![\\w-])`).test(outcome.reason));
      });
      if (!known) return `'${[name, ...sub.path].join(' ')}' has no flag ${flag}`;
    }
  }
  return undefined;
}

test('every ./edgeward command line in the README and docs/*.md parses', async () => {
  const problems: string[] = [];
  let checked = 0;
  for (const file of docFiles()) {
    for (const command of docCommands(readFileSync(join(repo, file), 'utf8'), file)) {
      const where = `${command.file}:${command.line}: ${command.text}`;
      const [name] = command.words;
      if (command.inline && !command.explicit && !Object.hasOwn(commandLineLoaders, name!) && !name!.startsWith('-')) continue;
      checked++;
      if (command.synopsis || command.words.some((word) => /^<[^>]*>$/.test(word) && word === command.words[0])) {
        const problem = await synopsisProblem(command);
        if (problem) problems.push(`${where}\n    ${problem}`);
        continue;
      }
      const words = command.words.map(withSamples);
      const outcome = await parseEdgewardCommandLine(words);
      if (outcome.kind !== 'usage-error') continue;
      // Prose names a command by its path alone (`./edgeward router enroll`); a code block shows a whole command.
      if (command.inline) {
        const line = Object.hasOwn(commandLineLoaders, name!) ? await commandLineLoaders[name!]!() : undefined;
        if (line?.subcommands.some((sub) => sub.path.join(' ') === words.slice(1).join(' '))) continue;
      }
      // A code block may show a wrong command on purpose, with what it prints: the two lines must be the real ones.
      const printed = usageErrorText(outcome.command, outcome.reason);
      if (command.next && `${command.next.join('\n')}\n` === printed) continue;
      problems.push(`${where}\n    ${printed.trimEnd().replace('\n', '\n    ')}`);
    }
  }
  assert.ok(checked > 100, `checked ${checked} command lines`);
  assert.deepEqual(problems, [], `${problems.length} command line(s) in the docs do not parse:\n${problems.join('\n')}`);
});

test('the extraction reads continuations, prompts, comments, quotes, pipes and placeholders as a shell reader would', () => {
  const markdown = [
    'Run `./edgeward demo --data /tmp/x` first; the `edgeward Prometheus` datasource is a name.',
    '```sh',
    "$ ./edgeward edge create service-policy web-dial Dial --identity-roles '#ops' \\",
    "    --service-roles '@web'   # a comment",
    'sudo EDGEWARD_LOG_LEVEL=debug ./edgeward router run router.yml 2>&1 | tee log',
    'edgeward gen: rules: missing <dir>',
    './edgeward pki init|controller|client [--force]',
    '```',
  ].join('\n');
  const found = docCommands(markdown, 'x.md');
  assert.deepEqual(
    found.map((command) => [command.line, command.words, command.synopsis, command.inline, command.explicit]),
    [
      [1, ['demo', '--data', '/tmp/x'], false, true, true],
      [1, ['Prometheus'], false, true, false],
      [3, ['edge', 'create', 'service-policy', 'web-dial', 'Dial', '--identity-roles', '#ops', '--service-roles', '@web'], false, false, true],
      [5, ['router', 'run', 'router.yml'], false, false, true],
      [7, ['pki', 'init|controller|client', '[--force]'], true, false, true],
    ],
  );
  assert.deepEqual(tokenize('login <controller url> -u "a b"').map((token) => token.text), ['login', '<controller url>', '-u', 'a b']);
  assert.equal(withSamples('tls:<host>:<port>'), 'tls:127.0.0.1:6262');
});
