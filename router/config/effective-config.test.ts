// The effective config: defaults filled in, durations in the spec's notation, and parsing it gives the same config.
// The golden file shows the whole output; EDGEWARD_REWRITE=1 rewrites it with the actual output.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { formatSpecDuration, renderEffectiveConfig } from './effective-config.ts';
import { parseRouterConfig } from './router-config.ts';

const input = new URL('./testdata/full-router.yml', import.meta.url).pathname;
const golden = new URL('./testdata/full-router.effective.yml', import.meta.url).pathname;
// A fixed location, so the absolute paths in the golden file do not depend on the checkout.
const file = '/etc/edgeward/router.yml';

function parseFull() {
  const parsed = parseRouterConfig(readFileSync(input, 'utf8'), { file, env: {} });
  assert.deepEqual(parsed.problems, []);
  assert.ok(parsed.config);
  return parsed.config;
}

describe('formatSpecDuration', () => {
  it('writes each default the way the spec does', () => {
    const cases: [number, string][] = [
      [5000, '5s'],
      [15_000, '15s'],
      [30_000, '30s'],
      [60_000, '1m'],
      [80_000, '80s'],
      [300_000, '5m'],
      [3_600_000, '1h'],
      [86_400_000, '24h'],
      [10, '10ms'],
      [1500, '1500ms'],
      [90_000, '90s'],
      [0, '0s'],
      [0.5, '500µs'],
    ];
    assert.deepEqual(cases.map(([ms]) => formatSpecDuration(ms)), cases.map(([, text]) => text));
  });
});

describe('renderEffectiveConfig', () => {
  it('renders every section with defaults filled in (golden)', () => {
    const text = renderEffectiveConfig(parseFull());
    if (process.env.EDGEWARD_REWRITE === '1') writeFileSync(golden, text);
    assert.equal(text, readFileSync(golden, 'utf8'), 'rerun with EDGEWARD_REWRITE=1 to accept the actual output');
  });

  it('parses back to the same config', () => {
    const config = parseFull();
    const again = parseRouterConfig(renderEffectiveConfig(config), { file, env: {} });
    assert.deepEqual(again.problems, []);
    assert.deepEqual(again.config, config);
  });

  it('writes durations as the spec writes them and addresses with brackets for IPv6', () => {
    const text = renderEffectiveConfig(parseFull());
    for (const line of ['    interval: 30s', '    timeout: 15s', '  reportInterval: 1m', '  intervalAgeThreshold: 2m', '        maxRetryInterval: 90s', '    - tls:[2001:db8::10]:6262', '      advertise: tls:router.example.com:6000']) {
      assert.ok(text.split('\n').includes(line), `missing line ${JSON.stringify(line)}`);
    }
  });

  it('leaves absent optional sections out, so their consequences still show when the output is validated', () => {
    const { config } = parseRouterConfig('v: 3\nidentity: {cert: c, key: k}\nctrl: {endpoint: "tls:c:1"}\n', { file, env: {} });
    assert.ok(config);
    const text = renderEffectiveConfig(config);
    assert.deepEqual(text.split('\n').filter((line) => /^\w/.test(line)).map((line) => line.split(':')[0]), ['v', 'identity', 'ctrl', 'forwarder', 'healthChecks', 'metrics']);
    const again = parseRouterConfig(text, { file, env: {} });
    assert.deepEqual(again.problems.map((p) => p.path), ['dialers', 'edge', 'link', 'listeners']);
  });
});
