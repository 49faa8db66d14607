import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseYamlSource, yamlLimits } from './yaml-source.ts';

const text = [
  'v: 3', //                                  1
  'web:', //                                  2
  '  - name: client', //                      3
  '    bindPoints:', //                       4
  '      - interface: 127.0.0.1:1280', //     5
  '        address: 127.0.0.1:1280', //       6
  '      - interface: 0.0.0.0:1281', //       7
  '', //                                      8
  '        address: example.com:1281', //     9
  '  - name: second', //                      10
  '    apis: [ { binding: edge-client }, { binding: metrics } ]', // 11
  'events:', //                               12
  '  "odd.name":', //                         13
  '    handler: { type: stdout }', //         14
].join('\n');

describe('parseYamlSource', () => {
  it('returns plain data', () => {
    const source = parseYamlSource(text);
    assert.deepEqual(source.problems, []);
    assert.deepEqual(source.data, {
      v: 3,
      web: [
        {
          name: 'client',
          bindPoints: [
            { interface: '127.0.0.1:1280', address: '127.0.0.1:1280' },
            { interface: '0.0.0.0:1281', address: 'example.com:1281' },
          ],
        },
        { name: 'second', apis: [{ binding: 'edge-client' }, { binding: 'metrics' }] },
      ],
      events: { 'odd.name': { handler: { type: 'stdout' } } },
    });
  });

  it('finds the line of nested keys and list items, by text or by segments', () => {
    const source = parseYamlSource(text);
    assert.equal(source.lineOf('v'), 1);
    assert.equal(source.lineOf('web'), 2);
    assert.equal(source.lineOf('web[0]'), 3);
    assert.equal(source.lineOf('web[0].bindPoints[0].address'), 6);
    assert.equal(source.lineOf('web[0].bindPoints[1]'), 7);
    assert.equal(source.lineOf('web[0].bindPoints[1].address'), 9);
    assert.equal(source.lineOf(['web', 1, 'name']), 10);
    assert.equal(source.lineOf('web[1].apis[1].binding'), 11);
    assert.equal(source.lineOf('events["odd.name"].handler.type'), 14);
  });

  it('has no line for paths that are not in the file', () => {
    const source = parseYamlSource(text);
    assert.equal(source.lineOf('web[2]'), undefined);
    assert.equal(source.lineOf('web[0].options'), undefined);
    assert.equal(source.lineOf('v.x'), undefined);
    assert.equal(source.lineOf('web.name'), undefined);
    assert.equal(source.lineOf('not a path'), undefined);
    assert.equal(source.lineOf(''), undefined);
  });

  it('gives a scalar as written, which the data cannot tell apart (3.0 and 3)', () => {
    const source = parseYamlSource('v: 3.0\nw: 3\nq: "3"\nlist: [0x3, a]\nmap: {a: 1}\n');
    assert.deepEqual(source.data, { v: 3, w: 3, q: '3', list: [3, 'a'], map: { a: 1 } });
    assert.equal(source.sourceOf('v'), '3.0');
    assert.equal(source.sourceOf('w'), '3');
    assert.equal(source.sourceOf('q'), '3');
    assert.equal(source.sourceOf('list[0]'), '0x3');
    assert.equal(source.sourceOf('map'), undefined);
    assert.equal(source.sourceOf('absent'), undefined);
  });

  it('follows aliases and merge keys', () => {
    const source = parseYamlSource(['base: &base', '  timeout: 5s', 'one:', '  <<: *base', '  extra: 1', 'two: *base'].join('\n'));
    assert.deepEqual(source.data, { base: { timeout: '5s' }, one: { timeout: '5s', extra: 1 }, two: { timeout: '5s' } });
    assert.equal(source.lineOf('one.extra'), 5);
    assert.equal(source.lineOf('one.timeout'), 2);
    assert.equal(source.lineOf('two.timeout'), 2);
  });

  it('reports syntax errors with their lines and no data', () => {
    const source = parseYamlSource(['a: 1', 'b: [1, 2', 'a: 2'].join('\n'));
    assert.equal(source.data, undefined);
    assert.ok(source.problems.length >= 1);
    for (const problem of source.problems) {
      assert.equal(problem.severity, 'error');
      assert.equal(problem.rule, 'yaml-syntax');
      assert.equal(typeof problem.line, 'number');
    }
  });

  it('reports duplicate keys on the line of the second key', () => {
    const source = parseYamlSource(['cluster:', '  dataDir: a', '  dataDir: b'].join('\n'));
    assert.equal(source.data, undefined);
    assert.equal(source.problems.length, 1);
    assert.equal(source.problems[0]!.line, 3);
    assert.match(source.problems[0]!.message, /unique/);
  });

  it('reports an empty document as null data', () => {
    assert.equal(parseYamlSource('').data, null);
    assert.equal(parseYamlSource('# only a comment\n').data, null);
  });
});

describe('parseYamlSource limits', () => {
  const errors = (yaml: string, limits = yamlLimits) => parseYamlSource(yaml, limits).problems.filter((problem) => problem.severity === 'error');

  it('refuses a file over the byte limit before parsing it', () => {
    const source = parseYamlSource(`a: "${'é'.repeat(600_000)}"\n`);
    assert.equal(source.data, undefined);
    assert.deepEqual(source.problems, [{ severity: 'error', path: '', rule: 'yaml-max-bytes', message: `the file is 1200006 bytes, over the limit of ${1024 * 1024}; it was not parsed` }]);
  });

  it('refuses text that nests too deep or holds too much before parsing it, naming the line; lets through what is within', () => {
    // At the limit (the mapping and 63 sequences: 64 levels), with aliases: through unchanged. One level more: refused.
    const within = `a: ${'['.repeat(63)}${']'.repeat(63)}\nb: &x {c: 1}\nd: [*x, *x]\n`;
    assert.deepEqual(errors(within), []);
    assert.deepEqual(parseYamlSource(within).data, { a: JSON.parse(`${'['.repeat(63)}${']'.repeat(63)}`), b: { c: 1 }, d: [{ c: 1 }, { c: 1 }] });
    assert.equal(errors(`a: ${'['.repeat(64)}${']'.repeat(64)}\n`)[0]?.rule, 'yaml-max-depth');
    const flow = `v: 3\na: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`;
    assert.deepEqual(errors(flow), [{ severity: 'error', path: '', line: 2, rule: 'yaml-max-depth', message: 'the document nests deeper than 64 levels of mappings and sequences; it was not parsed' }]);
    const block = Array.from({ length: 300 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
    assert.equal(errors(block)[0]?.line, 65);
    const wide = `a: [${'1,'.repeat(150_000)}1]\n`;
    assert.equal(errors(wide)[0]?.rule, 'yaml-max-members');
  });

  it('refuses data that aliases make too deep or too large, with the key path and line', () => {
    const nested = (depth: number) => `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`;
    const deep = `v: 3\nbase: &deep ${nested(40)}\nuse:\n  more: ${nested(30).replace('1', '*deep')}\n`;
    const [problem] = errors(deep);
    assert.equal(problem?.rule, 'yaml-max-depth');
    assert.match(problem!.path, /^use\.more\.a\.a\.a/);
    assert.equal(problem?.line, 4);
    assert.match(problem!.message, /nests deeper than 64 levels of objects and arrays once its aliases are expanded/);

    const items = Array.from({ length: 2000 }, (_, i) => i).join(', ');
    const wide = `list: &items [${items}]\ncopies: [${Array.from({ length: 60 }, () => '*items').join(', ')}]\n`;
    const [members] = errors(wide);
    assert.equal(members?.rule, 'yaml-max-members');
    assert.match(members!.message, /more than 100000 keys and items in all once its aliases are expanded/);
  });

  it('refuses an alias that refers to its own collection', () => {
    assert.deepEqual(errors('v: 3\nloop: &self [1, *self]\n').map((problem) => [problem.rule, problem.path, problem.line, problem.message]), [
      ['yaml-max-depth', 'loop[1][1][1][1][1][1][1][1][1][1][1][1][1][1][1]', 2, 'an alias refers to the collection that holds it, so the data nests without end'],
    ]);
  });
});
