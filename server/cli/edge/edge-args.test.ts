import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EdgeUsageError, flagHelp, parseFlags, type FlagDef } from './edge-args.ts';

const defs: FlagDef[] = [
  { name: 'username', short: 'u', kind: 'string', value: '<username>', help: 'who' },
  { name: 'admin', short: 'A', kind: 'boolean', help: 'an administrator' },
  { name: 'role-attributes', short: 'a', kind: 'list', help: 'attributes' },
  { name: 'cost', kind: 'integer', help: 'the cost' },
];

test('long and short flags, with the value after a space or an equals sign, anywhere among the arguments', () => {
  const parsed = parseFlags(['alice', '-u', 'admin', '--cost=7', 'extra', '-A', '--role-attributes', 'ops, eu', '-a', 'all'], defs);
  assert.deepEqual(parsed.positional, ['alice', 'extra']);
  assert.equal(parsed.text('username'), 'admin');
  assert.equal(parsed.integer('cost'), 7);
  assert.equal(parsed.bool('admin'), true);
  assert.deepEqual(parsed.list('role-attributes'), ['ops', 'eu', 'all'], 'lists split on commas and add up when repeated');
  assert.equal(parseFlags(['--username=a=b'], defs).text('username'), 'a=b', 'only the first equals sign separates');
});

test('booleans take =true or =false; an empty list clears; -- ends the flags; a lone - is an argument', () => {
  assert.equal(parseFlags(['--admin=false'], defs).bool('admin'), false);
  assert.equal(parseFlags([], defs).bool('admin'), undefined);
  assert.deepEqual(parseFlags(['--role-attributes', ''], defs).list('role-attributes'), []);
  assert.equal(parseFlags(['--role-attributes', ''], defs).has('role-attributes'), true);
  assert.deepEqual(parseFlags(['--', '-u', '--cost'], defs).positional, ['-u', '--cost']);
  assert.deepEqual(parseFlags(['-'], defs).positional, ['-']);
  assert.equal(parseFlags(['--cost', '-3'], defs).integer('cost'), -3, 'a negative number is a value');
});

test('what is wrong is a usage error that names it', () => {
  const refused = (args: string[], message: RegExp) => assert.throws(() => parseFlags(args, defs), (error: unknown) => error instanceof EdgeUsageError && message.test(error.message));
  refused(['--usename', 'x'], /^unknown flag --usename \(did you mean --username\?\)$/);
  refused(['-x'], /^unknown flag -x$/);
  refused(['-uu', 'x'], /^unknown flag -uu$/);
  refused(['--admin=yes'], /^--admin takes true or false, not 'yes'$/);
  refused(['--username'], /^--username needs a value <username>$/);
  refused(['--username', '--admin'], /^--username needs a value/);
  refused(['--cost', 'seven'], /^--cost takes a whole number, not 'seven'$/);
});

test('the flags print as aligned help lines', () => {
  assert.equal(
    flagHelp(defs),
    [
      '  -u, --username <username>         who',
      '  -A, --admin                       an administrator',
      '  -a, --role-attributes <a,b,...>   attributes',
      '      --cost <n>                    the cost',
      '',
    ].join('\n'),
  );
});
