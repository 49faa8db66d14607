import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expandEnv, substituteEnv } from './env-substitution.ts';

const env = { HOME: '/home/ew', DATA: '/var/lib/edgeward', PORT: '6262', EMPTY: '', A_1: 'x', '1': 'one' };

describe('expandEnv (Go os.ExpandEnv)', () => {
  it('expands braced and bare names', () => {
    assert.equal(expandEnv('${DATA}/raft', env), '/var/lib/edgeward/raft');
    assert.equal(expandEnv('$HOME/.config', env), '/home/ew/.config');
    assert.equal(expandEnv('tls:0.0.0.0:$PORT', env), 'tls:0.0.0.0:6262');
    assert.equal(expandEnv('$A_1-$A_1', env), 'x-x');
    assert.equal(expandEnv('${HOME}${DATA}', env), '/home/ew/var/lib/edgeward');
  });

  it('turns unset variables into empty strings', () => {
    assert.equal(expandEnv('${NOPE}/x', env), '/x');
    assert.equal(expandEnv('$NOPE', env), '');
    assert.equal(expandEnv('${EMPTY}', env), '');
  });

  it('has no default syntax: ${VAR:-x} names a variable called "VAR:-x"', () => {
    assert.equal(expandEnv('${DATA:-/tmp}', env), '');
    assert.equal(expandEnv('${DATA:-/tmp}', { 'DATA:-/tmp': 'odd' }), 'odd');
  });

  it('has no escape: $$ is the empty special variable "$"', () => {
    assert.equal(expandEnv('pa$$word', env), 'paword');
    assert.equal(expandEnv('$1', env), 'one', 'digits are single-character special names');
    assert.equal(expandEnv('$12', env), 'one2');
  });

  it('keeps a dollar that is not followed by a name', () => {
    assert.equal(expandEnv('cost: 5$', env), 'cost: 5$');
    assert.equal(expandEnv('a $ b', env), 'a $ b');
    assert.equal(expandEnv('$/x', env), '$/x');
  });

  it('drops malformed braces like Go', () => {
    assert.equal(expandEnv('a${}b', env), 'ab');
    assert.equal(expandEnv('a${HOME', env), 'aHOME');
  });

  it('leaves text without dollars untouched', () => {
    assert.equal(expandEnv('plain text', env), 'plain text');
    assert.equal(expandEnv('', env), '');
  });
});

describe('substituteEnv', () => {
  it('expands string values and list items recursively, never keys, numbers or booleans', () => {
    const data = {
      $HOME: '$HOME',
      port: 6262,
      enabled: true,
      nothing: null,
      list: ['${DATA}/a', 7, { nested: '$PORT' }],
    };
    assert.deepEqual(substituteEnv(data, env), {
      $HOME: '/home/ew',
      port: 6262,
      enabled: true,
      nothing: null,
      list: ['/var/lib/edgeward/a', 7, { nested: '6262' }],
    });
  });

  it('leaves substituted numbers as strings', () => {
    assert.deepEqual(substituteEnv({ port: '${PORT}' }, env), { port: '6262' });
  });

  it('does not modify its input', () => {
    const data = { a: ['$HOME'] };
    substituteEnv(data, env);
    assert.deepEqual(data, { a: ['$HOME'] });
  });
});
