import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { kindNamed } from './edge-entities.ts';
import { ApiFailure, EdgeFailure } from './edge-errors.ts';
import { cellText, renderApiFailure, renderData, renderFailure, renderList } from './edge-output.ts';

const identities = [
  { id: 'CKy.B2fxXQ', name: 'alice', typeId: 'Default', isAdmin: false, roleAttributes: ['ops', 'eu'], authPolicy: { id: 'default', name: 'Default' }, isMfaEnabled: true, disabled: false },
  { id: 'dd1gDsmtOg', name: 'Default Admin', typeId: 'Default', isAdmin: true, roleAttributes: [], authPolicy: { id: 'default', name: 'Default' }, isMfaEnabled: false, disabled: false },
];

test('the identity list is a rounded-box table with the real CLI footer (golden)', () => {
  assert.equal(
    renderList(kindNamed('identity').columns, identities, 12, 0),
    [
      '╭────────────┬───────────────┬─────────┬───────┬────────────┬─────────────┬───────┬──────────╮',
      '│ ID         │ NAME          │ TYPE    │ ADMIN │ ATTRIBUTES │ AUTH-POLICY │ MFA   │ DISABLED │',
      '├────────────┼───────────────┼─────────┼───────┼────────────┼─────────────┼───────┼──────────┤',
      '│ CKy.B2fxXQ │ alice         │ Default │ false │ ops,eu     │ Default     │ true  │ false    │',
      '│ dd1gDsmtOg │ Default Admin │ Default │ true  │            │ Default     │ false │ false    │',
      '╰────────────┴───────────────┴─────────┴───────┴────────────┴─────────────┴───────┴──────────╯',
      'results: 1-2 of 12',
      '',
    ].join('\n'),
  );
  assert.equal(renderList(kindNamed('identity').columns, [], 0), 'results: none\n');
  assert.equal(renderList(kindNamed('identity').columns, [], 3, 5), 'results: none (of 3)\n', 'a skip past the end');
  assert.match(renderList(kindNamed('identity').columns, identities.slice(0, 1), 3, 2), /^results: 3-3 of 3$/m);
});

test('service policies show their roles by name, as the API displays them', () => {
  const policy = {
    id: 'k2Jd9sPq1x', name: 'finance-dial', type: 'Dial', semantic: 'AnyOf',
    identityRolesDisplay: [{ role: '#finance', name: '#finance' }, { role: '@CKy.B2fxXQ', name: '@alice' }],
    serviceRolesDisplay: [{ role: '@Qm3r8Vd0pL', name: '@payroll' }],
    postureCheckRolesDisplay: [],
  };
  assert.match(renderList(kindNamed('service-policy').columns, [policy], 1), /│ k2Jd9sPq1x │ finance-dial │ Dial │ AnyOf +│ #finance,@alice +│ @payroll +│ +│/);
});

test('cells: lists joined, null empty, objects as JSON, never a line break', () => {
  assert.equal(cellText(['a', 'b']), 'a,b');
  assert.equal(cellText(null), '');
  assert.equal(cellText(undefined), '');
  assert.equal(cellText(0), '0');
  assert.equal(cellText(false), 'false');
  assert.equal(cellText({ a: 1 }), '{"a":1}');
  assert.equal(cellText('two\nlines'), 'two lines');
});

test("JSON and YAML print the API's data as it came", () => {
  const data = [{ id: 'x', roleAttributes: ['a'], externalId: null }];
  assert.deepEqual(JSON.parse(renderData(data, 'json')), data);
  assert.deepEqual(parseYaml(renderData(data, 'yaml')), data);
  assert.ok(renderData({}, 'json').endsWith('\n'));
});

test("the API's error envelope prints as code, message, cause and request id", () => {
  const field = new ApiFailure(400, 'COULD_NOT_VALIDATE', 'The supplied request contains an invalid document', 'iMjsvQu', { field: 'name', reason: "duplicate value 'bob' in unique index on identities store", value: 'bob' }, undefined);
  assert.equal(
    renderApiFailure(field),
    "error: COULD_NOT_VALIDATE: The supplied request contains an invalid document\n  cause: name: duplicate value 'bob' in unique index on identities store (value: bob)\n  request id: iMjsvQu\n",
  );
  const nested = new ApiFailure(404, 'NOT_FOUND', 'The resource requested was not found or is no longer available', 'iMjsvQx', { code: 'UNHANDLED', message: 'identity with id nope not found' }, undefined);
  assert.equal(renderApiFailure(nested), 'error: NOT_FOUND: The resource requested was not found or is no longer available\n  cause: UNHANDLED: identity with id nope not found\n  request id: iMjsvQx\n');
  const bare = new ApiFailure(401, 'INVALID_AUTH', 'The authentication request failed', undefined, undefined, undefined);
  assert.equal(renderApiFailure(bare), 'error: INVALID_AUTH: The authentication request failed\n');
  const listValue = new ApiFailure(400, 'COULD_NOT_VALIDATE', 'm', undefined, { field: 'identityRoles', reason: 'no identities found with the given ids', value: ['x', 'y'] }, undefined);
  assert.match(renderApiFailure(listValue), /cause: identityRoles: no identities found with the given ids \(value: \["x","y"\]\)/);
});

test('a failure on this side prints its message and details', () => {
  assert.equal(renderFailure(new EdgeFailure('not logged in', ['log in first'])), 'error: not logged in\n  log in first\n');
});

test('a 401 says whether the session token itself was refused', () => {
  const failure = (challenge: string | undefined, status = 401) => new ApiFailure(status, 'UNAUTHORIZED', 'm', undefined, undefined, challenge);
  assert.equal(failure('zt-session realm="zt-session" error="expired" error_description="token expired"').sessionProblem, 'expired');
  assert.equal(failure('zt-session realm="zt-session" error="invalid" error_description="token is invalid"').sessionProblem, 'invalid');
  assert.equal(failure('zt-session realm="zt-session" error="missing" error_description="no matching token was provided", Bearer realm="openziti-oidc" error="missing"').sessionProblem, 'missing');
  assert.equal(failure(undefined).sessionProblem, undefined, 'a non-administrator gets no challenge');
  assert.equal(failure('zt-session realm="zt-session" error="expired"', 403).sessionProblem, undefined);
});
