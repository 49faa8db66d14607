import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandLineOf, parseCommand, reportOutcome, usageErrorText, type CommandNode, type ParseOutcome } from './command-line.ts';

const tree: CommandNode = {
  usage: 'group usage\n',
  subcommands: {
    validate: {
      usage: 'validate usage\n',
      flags: [
        { name: 'json', kind: 'boolean' },
        { name: 'out', short: 'o', kind: 'string' },
        { name: 'ip', kind: 'list' },
      ],
      arguments: ['file.yml'],
      min: 1,
      max: 1,
      example: ['file.yml'],
      check: ({ flags }) => (flags.text('out') === 'bad' ? "--out cannot be 'bad'" : undefined),
    },
    init: { usage: 'init usage\n', flags: [{ name: 'dir', kind: 'string', required: true }], arguments: [], min: 0, max: 0, example: ['--dir', 'd'] },
  },
};

const parse = (...args: string[]) => parseCommand('thing', tree, args);
const reason = (outcome: ParseOutcome) => (outcome.kind === 'usage-error' ? `${outcome.command}: ${outcome.reason}` : outcome.kind);

test('--help or -h anywhere before -- is the help of the deepest subcommand reached; `help` is the group help', () => {
  assert.deepEqual(parse('--help'), { kind: 'help', text: 'group usage\n' });
  assert.deepEqual(parse('help'), { kind: 'help', text: 'group usage\n' });
  assert.deepEqual(parse('validate', 'x.yml', '--bogus', '-h'), { kind: 'help', text: 'validate usage\n' });
  assert.deepEqual(parse('nope', '--help'), { kind: 'help', text: 'group usage\n' });
  assert.equal(reason(parse('validate', '--', '--help')), 'run', 'after --, --help is an argument');
});

test('flags: --name value, --name=value, -o value, booleans with =true|false, lists repeated', () => {
  const outcome = parse('validate', '--json=false', 'f.yml', '-o', 'o.txt', '--ip=1.2.3.4', '--ip', '5.6.7.8');
  assert.equal(outcome.kind, 'run');
  if (outcome.kind !== 'run') return;
  assert.deepEqual(outcome.value.path, ['validate']);
  assert.deepEqual(outcome.value.positional, ['f.yml']);
  assert.equal(outcome.value.flags.bool('json'), false);
  assert.equal(outcome.value.flags.text('out'), 'o.txt');
  assert.deepEqual(outcome.value.flags.list('ip'), ['1.2.3.4', '5.6.7.8']);
});

test('each kind of wrong command line is a usage error naming the subcommand', () => {
  assert.equal(reason(parse()), 'thing: missing a subcommand (validate, init)');
  assert.equal(reason(parse('valdate')), "thing: unknown subcommand 'valdate' (did you mean validate?); one of validate, init");
  assert.equal(reason(parse('--json')), "thing: expected a subcommand (validate, init), not '--json'");
  assert.equal(reason(parse('validate')), 'thing validate: missing <file.yml>');
  assert.equal(reason(parse('validate', 'a', 'b')), "thing validate: unexpected argument 'b'");
  assert.equal(reason(parse('validate', 'a', '--jsn')), 'thing validate: unknown flag --jsn (did you mean --json?)');
  assert.equal(reason(parse('validate', 'a', '-x')), 'thing validate: unknown flag -x (flags: --json, --out, --ip)');
  assert.equal(reason(parse('validate', 'a', '--json=yes')), "thing validate: --json takes true or false, not 'yes'");
  assert.equal(reason(parse('validate', 'a', '--out')), 'thing validate: --out needs a value');
  assert.equal(reason(parse('validate', 'a', '--out', 'x', '--out', 'y')), 'thing validate: --out is given more than once');
  assert.equal(reason(parse('validate', 'a', '--out', 'bad')), "thing validate: --out cannot be 'bad'");
  assert.equal(reason(parse('init')), 'thing init: --dir is required');
  assert.equal(reason(parse('init', '--dir', 'd', 'x')), "thing init: takes no arguments, not 'x'");
});

test('help goes to stdout with exit 0; a usage error is two lines on stderr with exit 2', () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text) };
  assert.equal(reportOutcome({ kind: 'help', text: 'usage\n' }, io), 0);
  assert.equal(reportOutcome({ kind: 'usage-error', command: 'thing init', reason: '--dir is required' }, io), 2);
  assert.deepEqual(out, ['usage\n']);
  assert.deepEqual(err, ["edgeward thing init: --dir is required\nRun './edgeward thing init --help' for usage.\n"]);
  assert.equal(usageErrorText('x', 'y'), "edgeward x: y\nRun './edgeward x --help' for usage.\n");
});

test('the command line lists every subcommand, groups included, with arguments that parse', () => {
  const line = commandLineOf('thing', tree);
  assert.deepEqual(
    line.subcommands.map((sub) => [sub.path.join(' '), sub.needsArguments]),
    [
      ['', true],
      ['validate', true],
      ['init', true],
    ],
  );
  for (const sub of line.subcommands.slice(1)) assert.equal(line.parse([...sub.path, ...sub.example]).kind, 'run');
});
