import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseYamlSource } from './yaml-source.ts';

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
