import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referencedIds, roleSyntaxProblem, rolesMatch } from './policy-roles.ts';

const alice = { id: 'alice-id', roleAttributes: ['sales', 'emea'] };
const bob = { id: 'bob-id', roleAttributes: ['sales'] };

test('#attr selects entities carrying the attribute', () => {
  assert.equal(rolesMatch(['#emea'], 'AnyOf', alice), true);
  assert.equal(rolesMatch(['#emea'], 'AnyOf', bob), false);
  assert.equal(rolesMatch(['#sales'], 'AllOf', bob), true);
});

test('@id selects exactly that entity', () => {
  assert.equal(rolesMatch(['@bob-id'], 'AnyOf', bob), true);
  assert.equal(rolesMatch(['@bob-id'], 'AnyOf', alice), false);
  assert.equal(rolesMatch(['@bob-id'], 'AllOf', bob), true);
});

test('#all selects everything, whatever the semantic', () => {
  assert.equal(rolesMatch(['#all'], 'AllOf', { id: 'x', roleAttributes: [] }), true);
  assert.equal(rolesMatch(['#all'], 'AnyOf', bob), true);
});

test('AllOf needs every role, AnyOf one of them', () => {
  assert.equal(rolesMatch(['#sales', '#emea'], 'AllOf', alice), true);
  assert.equal(rolesMatch(['#sales', '#emea'], 'AllOf', bob), false);
  assert.equal(rolesMatch(['#sales', '#emea'], 'AnyOf', bob), true);
  assert.equal(rolesMatch(['#emea', '@bob-id'], 'AnyOf', bob), true);
  assert.equal(rolesMatch(['#sales', '@bob-id'], 'AllOf', bob), true);
  assert.equal(rolesMatch(['#sales', '@bob-id'], 'AllOf', alice), false, 'alice is not bob');
  assert.equal(rolesMatch(['@alice-id', '@bob-id'], 'AllOf', alice), false, 'no entity is two ids at once');
});

test('an empty role list selects nothing', () => {
  assert.equal(rolesMatch([], 'AnyOf', alice), false);
  assert.equal(rolesMatch([], 'AllOf', alice), false);
});

test('role syntax: a prefix is required, #all stands alone, and a role names something', () => {
  assert.equal(roleSyntaxProblem([]), undefined);
  assert.equal(roleSyntaxProblem(['#a', '@b']), undefined);
  assert.deepEqual(roleSyntaxProblem(['#a', 'plain', 'other']), {
    reason: 'role entries must prefixed with # (to indicate role attributes) or @ (to indicate a name or id)',
    value: ['plain', 'other'],
  });
  assert.match(roleSyntaxProblem(['#all', '#a'])!.reason, /if using #all, it should be the only role specified/);
  assert.deepEqual(roleSyntaxProblem(['#', '@x'])!.value, ['#']);
});

test('referencedIds lists the @ ids only', () => {
  assert.deepEqual(referencedIds(['#a', '@one', '#all', '@two']), ['one', 'two']);
});
