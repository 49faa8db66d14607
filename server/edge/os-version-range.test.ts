import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareVersions, parseVersion, parseVersionRange, type VersionRange } from './os-version-range.ts';

function range(text: string): VersionRange {
  const parsed = parseVersionRange(text);
  assert.equal(typeof parsed, 'function', `${text}: ${JSON.stringify(parsed)}`);
  return parsed as VersionRange;
}
const holds = (text: string, version: string) => range(text)(parseVersion(version)!);

test('versions are full semantic versions: MAJOR.MINOR.PATCH, no leading zeroes, build ignored', () => {
  assert.deepEqual(parseVersion('10.0.19041'), { major: 10, minor: 0, patch: 19041, prerelease: [] });
  assert.deepEqual(parseVersion('1.2.3-beta.1+abc'), { major: 1, minor: 2, patch: 3, prerelease: ['beta', '1'] });
  for (const bad of ['10.0', '10', '01.0.0', '1.2.3.4', 'v1.2.3', '', '1.2.3-01']) assert.equal(parseVersion(bad), undefined, bad);
  assert.equal(compareVersions(parseVersion('1.2.3-beta')!, parseVersion('1.2.3')!), -1, 'a prerelease comes first');
  assert.equal(compareVersions(parseVersion('1.2.3-beta.2')!, parseVersion('1.2.3-beta.11')!), -1, 'numeric identifiers compare as numbers');
  assert.equal(compareVersions(parseVersion('1.2.3+a')!, parseVersion('1.2.3+b')!), 0);
});

test('comparators, AND by spaces, OR by ||', () => {
  assert.ok(holds('>=10.0.19041', '10.0.19045'));
  assert.ok(!holds('>=10.0.19041', '10.0.18363'));
  assert.ok(holds('10.0.19041', '10.0.19041'));
  assert.ok(holds('=10.0.19041', '10.0.19041'));
  assert.ok(holds('==10.0.19041', '10.0.19041'));
  assert.ok(!holds('!=10.0.19041', '10.0.19041'));
  assert.ok(holds('!10.0.19041', '10.0.19042'));
  assert.ok(holds('>1.0.0 <2.0.0', '1.5.0'));
  assert.ok(!holds('>1.0.0 <2.0.0', '2.0.0'));
  assert.ok(holds('<=1.0.0', '1.0.0'));
  assert.ok(holds('<2.0.0 || >=3.0.0', '3.1.0'));
  assert.ok(!holds('<2.0.0 || >=3.0.0', '2.5.0'));
  assert.ok(holds('>1.0.0 <2.0.0 || >3.0.0 !4.2.1', '4.2.2'));
  assert.ok(!holds('>1.0.0 <2.0.0 || >3.0.0 !4.2.1', '4.2.1'));
});

test('x wildcards stand for the span they cover', () => {
  assert.ok(holds('10.x', '10.0.22000'));
  assert.ok(!holds('10.x', '11.0.0'));
  assert.ok(holds('10.0.x', '10.0.5'));
  assert.ok(!holds('10.0.x', '10.1.0'));
  assert.ok(holds('>=10.x', '12.0.0'));
  assert.ok(!holds('<10.x', '10.0.0'));
  assert.ok(holds('<=10.x', '10.9.9'));
  assert.ok(!holds('>10.x', '10.9.9'));
  assert.ok(holds('>10.x', '11.0.0'));
});

test('a malformed range is an error naming the part that is wrong', () => {
  for (const bad of ['', '>=10', 'abc', '>=1.0.0 ||', '=>1.0.0']) {
    const parsed = parseVersionRange(bad);
    assert.equal(typeof parsed, 'object', bad);
    assert.match((parsed as { error: string }).error, /range|version/, bad);
  }
});
