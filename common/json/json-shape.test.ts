import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonTextShapeProblem, jsonTextWithinShape, valueShapeProblem } from './json-shape.ts';

const limits = { maxDepth: 64, maxMembers: 10_000 };

test('JSON text within the limits passes, whatever its strings hold', () => {
  const body = { name: 'x', tags: { a: [1, 2, { b: '[[[{{{' }], 'k"{': '\\"[' }, list: [] as number[] };
  assert.equal(jsonTextShapeProblem(JSON.stringify(body), limits), undefined);
  assert.equal(jsonTextShapeProblem(JSON.stringify(nested(64)), limits), undefined);
  assert.equal(jsonTextShapeProblem('"just a string"', limits), undefined);
  assert.equal(jsonTextShapeProblem('', limits), undefined);
});

test('deep nesting is found in the text, with the path to where it passes the limit', () => {
  const problem = jsonTextShapeProblem(`{"name":"n","tags":${'{"a":'.repeat(20_000)}{}${'}'.repeat(20_000)}}`, limits);
  assert.equal(problem?.limit, 'depth');
  assert.deepEqual(problem?.path.slice(0, 3), ['tags', 'a', 'a']);
  assert.match(problem!.reason, /deeper than 64/);
  const arrays = jsonTextShapeProblem(`{"x":[1,${'['.repeat(100)}${']'.repeat(100)}]}`, limits);
  assert.deepEqual(arrays?.path.slice(0, 3), ['x', 1, 0]);
  assert.equal(jsonTextShapeProblem('['.repeat(65) + ']'.repeat(65), limits)?.limit, 'depth');
});

test('too many keys or items in all are found, in one object or spread over many', () => {
  const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
  assert.equal(jsonTextShapeProblem(JSON.stringify({ tags: wide }), limits)?.limit, 'members');
  const spread = Array.from({ length: 2000 }, () => ({ a: 1, b: 2, c: 3, d: 4, e: 5 }));
  assert.equal(jsonTextShapeProblem(JSON.stringify(spread), limits)?.limit, 'members');
  const fits = Array.from({ length: 1600 }, () => ({ a: 1, b: 2, c: 3, d: 4, e: 5 }));
  assert.equal(jsonTextShapeProblem(JSON.stringify(fits), limits), undefined);
  assert.equal(jsonTextShapeProblem(JSON.stringify({ tags: wide }), { maxDepth: 64, maxMembers: 100_001 }), undefined);
});

test('a parsed value is held to the same limits, walked without recursion', () => {
  assert.equal(valueShapeProblem({ a: nested(64) }, limits)?.limit, 'depth');
  assert.equal(valueShapeProblem(nested(64), limits), undefined);
  const problem = valueShapeProblem({ tags: nested(200_000) }, limits);
  assert.deepEqual(problem?.path.slice(0, 2), ['tags', 'a']);
  assert.equal(valueShapeProblem(Array.from({ length: 10_001 }, () => 1), limits)?.limit, 'members');
  assert.equal(valueShapeProblem('scalar', limits), undefined);
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  assert.equal(valueShapeProblem(cyclic, limits), undefined);
});

test('the quick check agrees with the full scan at and around every limit', () => {
  const texts = [
    '', '"s"', '[]', '{}', '[[]]', '[1,2,3]', '{"a":[1,{"b":"]]],,,{{"}],"c":{}}', ' [ 1 , [ ] , { } ] ', '[,]', ']]][[', '"\\"[[[', '{"k\\"[":1}',
    JSON.stringify(nested(64)), JSON.stringify(nested(65)), JSON.stringify(Array.from({ length: 10_000 }, () => 0)), JSON.stringify(Array.from({ length: 10_001 }, () => 0)),
    JSON.stringify(Array.from({ length: 3_333 }, () => [])), JSON.stringify(Array.from({ length: 3_334 }, () => [0])), JSON.stringify({ a: Array.from({ length: 9_998 }, () => 'x') }),
  ];
  for (const text of texts) {
    for (const shape of [limits, { maxDepth: 2, maxMembers: 3 }, { maxDepth: 1, maxMembers: 0 }]) {
      assert.equal(jsonTextWithinShape(text, shape), jsonTextShapeProblem(text, shape) === undefined, `${text.slice(0, 40)} with ${JSON.stringify(shape)}`);
    }
  }
});

/** `{a:{a:…{}}}` with `depth` objects. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}
