import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseYamlConfig } from './parse-config.ts';
import { s } from './schema.ts';

const schema = s.object({
  v: s.integer({ enum: [3] }).required(),
  dataDir: s.path().required(),
  listener: s.address({ protocols: ['tls'] }).required(),
  timeout: s.duration({ min: '1s' }).default('30s'),
});
const file = '/etc/edgeward/router.yml';

describe('parseYamlConfig', () => {
  it('expands env vars in string values before validating, and resolves paths against the file', () => {
    const text = ['v: 3', 'dataDir: ${DATA}/router', 'listener: tls:$HOST:6262'].join('\n');
    const { config, problems } = parseYamlConfig(schema, text, { file, env: { DATA: 'state', HOST: '10.0.0.1' } });
    assert.deepEqual(problems, []);
    assert.deepEqual(config, { v: 3, dataDir: '/etc/edgeward/state/router', listener: { protocol: 'tls', host: '10.0.0.1', port: 6262 }, timeout: 30_000 });
  });

  it('reports an unset variable by what it leaves behind', () => {
    const { config, problems } = parseYamlConfig(schema, ['v: 3', 'dataDir: ${DATA}', 'listener: tls:${HOST}:6262'].join('\n'), { file, env: {} });
    assert.equal(config, undefined);
    assert.deepEqual(problems.map((p) => [p.line, p.path, p.rule]), [
      [2, 'dataDir', 'path'],
      [3, 'listener', 'address'],
    ]);
  });

  it('stops at YAML syntax errors', () => {
    const { config, problems } = parseYamlConfig(schema, 'v: 3\nv: 3\n', { file, env: {} });
    assert.equal(config, undefined);
    assert.deepEqual(problems.map((p) => [p.line, p.rule]), [[2, 'yaml-syntax']]);
  });

  it('returns the config alongside warnings', () => {
    const { config, problems } = parseYamlConfig(schema, 'v: 3\ndataDir: d\nlistener: tls:h:1\nextra: 1\n', { file, env: {}, unknownKeys: 'warning' });
    assert.ok(config);
    assert.deepEqual(problems.map((p) => [p.severity, p.line, p.path]), [['warning', 4, 'extra']]);
  });
});
