// docs/alerts.md against the schema: its example file is valid and spells out every default, and its reference
// table names every key.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Schema } from '../../common/config/schema.ts';
import { parseAlertsConfig } from './alerts-config.ts';
import { alertsSchema } from './alerts-config-schema.ts';

const doc = readFileSync(new URL('../../docs/alerts.md', import.meta.url), 'utf8');

function exampleYaml(): string {
  const section = doc.slice(doc.indexOf('\n## Example\n'));
  const match = /```yaml\n([\s\S]*?)```/.exec(section);
  assert.ok(match, 'docs/alerts.md has an example under "## Example"');
  return match[1]!;
}

/** Every key path of the schema, with `[]` for items of a list of maps: `controllers[].id`, `rules.peerFlapping.count`. */
function keyPaths(schema: Schema<unknown, 'optional' | 'present'>, prefix = ''): string[] {
  const spec = schema.spec;
  if (spec.kind === 'array') return spec.items.spec.kind === 'object' ? keyPaths(spec.items, `${prefix}[]`) : [prefix];
  if (spec.kind !== 'object') return [prefix];
  return Object.entries(spec.fields).flatMap(([name, field]) => keyPaths(field, prefix === '' ? name : `${prefix}.${name}`));
}

describe('docs/alerts.md', () => {
  it('has an example file that is valid', () => {
    const { config, problems } = parseAlertsConfig(exampleYaml(), { file: '/etc/edgeward/alerts.yml', env: {} });
    assert.deepEqual(problems, []);
    assert.ok(config);
  });

  it('shows every default in the example, as the schema fills it in', () => {
    const example = parseAlertsConfig(exampleYaml(), { file: '/etc/edgeward/alerts.yml', env: {} }).config!;
    const minimal = parseAlertsConfig(['cluster: c', 'controllers: [{ id: a, logFile: a.log }]', 'alertmanager: { urls: [http://am:9093] }', 'stateDir: s'].join('\n'), {
      file: '/etc/edgeward/alerts.yml',
      env: {},
    }).config!;
    assert.deepEqual(example.rules, minimal.rules);
    assert.deepEqual(example.files, minimal.files);
    assert.deepEqual({ ...example.alertmanager, urls: [] }, { ...minimal.alertmanager, urls: [] });
    assert.deepEqual(example.listen, minimal.listen);
  });

  it('names every key of the schema in its reference table', () => {
    const table = doc.slice(doc.indexOf('\n## Configuration reference\n'), doc.indexOf('\n## What it pages and warns on\n'));
    const missing = keyPaths(alertsSchema).filter((path) => !table.includes(`| \`${path}\` |`));
    assert.deepEqual(missing, []);
  });
});
