import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDocument, stringify } from 'yaml';
import { yamlTextShapeProblem } from './yaml-text-shape.ts';

const unlimited = 1_000_000_000;

/** The depth the scan finds: the smallest limit it accepts. */
function scannedDepth(text: string): number {
  for (let depth = 0; depth < 1000; depth++) if (!yamlTextShapeProblem(text, { maxDepth: depth, maxMembers: unlimited })) return depth;
  throw new Error('deeper than 1000');
}

/** The members the scan finds: the smallest limit it accepts. */
function scannedMembers(text: string): number {
  for (let members = 0; members < 100_000; members++) if (!yamlTextShapeProblem(text, { maxDepth: unlimited, maxMembers: members })) return members;
  throw new Error('more than 100000');
}

/** How deep the parsed data nests (a collection is a level, empty or not), and its keys and items in all. */
function measured(text: string): { depth: number; members: number } {
  const doc = parseDocument(text);
  assert.deepEqual(doc.errors, [], text);
  let depth = 0;
  let members = 0;
  const pending: Array<{ value: unknown; level: number }> = [{ value: doc.toJS(), level: 0 }];
  while (pending.length > 0) {
    const { value, level } = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    depth = Math.max(depth, level + 1);
    const children = Object.values(value);
    members += children.length;
    for (const child of children) pending.push({ value: child, level: level + 1 });
  }
  return { depth, members };
}

test('the scan measures the nesting and members the parser will build, in every style YAML writes them', () => {
  const texts = [
    'a: 1\n',
    'a:\n  b:\n    c: 1\n',
    'a:\n- b\n- c:\n    d: 1\n',
    'a:\n  - b: 1\n    c:\n      d: [1, {e: 2}]\n',
    '- - - x\n  - y\n- z\n',
    'a: |\n  [[[ { "unclosed\n  more ]]\nb:\n  c: 1\n',
    'a: >-\n    folded [\n\n    text {\nb: [1, 2]\n',
    "a: 'it''s [ not flow'\nb: \"{ nor this\" # [ [ [\nc: [x, 'y]', \"z}\"]\n",
    'a: [\n  1,\n  [2, 3],\n  {b: [4]}\n]\nc: d\n',
    '? complex\n: value\nk: v\n',
    'x: &anchor\n  y: 1\nz: *anchor\n',
    'plain: this is\n  a long plain\n  scalar\nnext:\n  - 1\n',
  ];
  for (const text of texts) {
    const { depth, members } = measured(text);
    assert.equal(scannedDepth(text), depth, `depth of ${JSON.stringify(text)}`);
    // Aliases expand only after parsing; everything else is counted exactly.
    if (!text.includes('*')) assert.equal(scannedMembers(text), members, `members of ${JSON.stringify(text)}`);
  }
});

test('the scan agrees with the parser on random documents, block, flow and mixed', () => {
  let seed = 20_261_125;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const build = (level: number): unknown => {
    const roll = random();
    if (level > 7 || roll < 0.25) return roll < 0.12 ? `s${Math.floor(random() * 100)}` : Math.floor(random() * 100);
    const size = Math.floor(random() * 4);
    if (roll < 0.6) return Array.from({ length: size }, () => build(level + 1));
    return Object.fromEntries(Array.from({ length: size }, (_, i) => [`k${i}`, build(level + 1)]));
  };
  for (let round = 0; round < 150; round++) {
    const value = { root: build(0) };
    for (const options of [{}, { flowLevel: 2 }, { indentSeq: false }, { indent: 4 }, { collectionStyle: 'flow' as const }]) {
      const text = stringify(value, options);
      const { depth, members } = measured(text);
      assert.equal(scannedDepth(text), depth, `depth of\n${text}`);
      assert.equal(scannedMembers(text), members, `members of\n${text}`);
    }
  }
});

test('a document past the limits is found on its text, at the line where it passes them, without parsing it', () => {
  const limits = { maxDepth: 64, maxMembers: 100_000 };
  const flow = yamlTextShapeProblem(`a: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`, limits);
  assert.deepEqual(flow, { limit: 'depth', line: 1, reason: 'nests deeper than 64 levels of mappings and sequences' });
  const block = Array.from({ length: 200 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
  assert.equal(yamlTextShapeProblem(block, limits)?.line, 65);
  const sequences = `a: ${'- '.repeat(100)}x\n`;
  assert.equal(yamlTextShapeProblem(`x: 1\n${sequences}`, limits)?.limit, 'depth');
  // Nesting written where a flow collection would hide it from a naive bracket count: closers in a comment.
  const hidden = `a: ${Array.from({ length: 100 }, () => '[ # ]\n').join('')}`;
  assert.equal(yamlTextShapeProblem(hidden, limits)?.limit, 'depth');
  const wide = `a: [${'1,'.repeat(100_000)}1]\n`;
  assert.equal(yamlTextShapeProblem(wide, limits)?.limit, 'members');
  const long = `a:\n${'- 1\n'.repeat(100_001)}`;
  assert.deepEqual(yamlTextShapeProblem(long, limits), { limit: 'members', line: 100_001, reason: 'has more than 100000 keys and items in all' });
});
