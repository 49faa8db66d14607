import assert from 'node:assert/strict';
import { test } from 'node:test';
import { longFunctions } from './function-length.ts';

const body = (lines: number) => Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`).join('\n');

test('a function over the limit is reported with its name, first line and length, nested ones counted in it', () => {
  const source = [`export function short() {\n${body(3)}\n}`, `export async function startThing() {\n  const inner = () => {\n${body(6)}\n  };\n${body(2)}\n}`].join('\n');
  assert.deepEqual(longFunctions('x.ts', source, 8), [{ name: 'startThing', line: 6, lines: 12 }]);
});

test('methods, constructors, arrow functions and function expressions are measured too', () => {
  const source = `class A {\n  constructor() {\n${body(5)}\n  }\n  run() {\n${body(5)}\n  }\n}\nconst go = async () => {\n${body(5)}\n};\nconst table = { apply: function () {\n${body(5)}\n} };\n`;
  assert.deepEqual(
    longFunctions('x.ts', source, 6).map(({ name, lines }) => [name, lines]),
    [['constructor', 7], ['run', 7], ['go', 7], ['apply', 7]],
  );
});

test('a function at the limit is not reported; declarations without a body are not functions', () => {
  const source = `declare function outside(): void;\ninterface I { m(): void }\nfunction exact() {\n${body(4)}\n}\n`;
  assert.deepEqual(longFunctions('x.ts', source, 6), []);
});
