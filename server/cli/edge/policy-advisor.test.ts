import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adviceLines, adviceProblems, type Advice } from './policy-advisor.ts';

const base: Advice = {
  identity: { name: 'alice' },
  service: { name: 'web' },
  isDialAllowed: true,
  isBindAllowed: false,
  identityRouterCount: 2,
  serviceRouterCount: 2,
  commonRouters: [{ isOnline: true }, { isOnline: false }],
};

test('an identity that may dial through an online common router is OKAY, and -q hides it', () => {
  assert.equal(adviceLines(base, false), 'OKAY : alice (2) -> web (2) Common Routers: (1/2) Dial: Y Bind: N\n\n');
  assert.equal(adviceLines(base, true), '');
});

test('each problem of a pair is named, as ziti edge policy-advisor names it', () => {
  assert.deepEqual(adviceProblems({ ...base, isDialAllowed: false }), ['Identity does not have access to service. Adjust service policies.']);
  assert.deepEqual(adviceProblems({ ...base, identityRouterCount: 0, commonRouters: [] }), ['Identity has no edge routers assigned. Adjust edge router policies.']);
  assert.deepEqual(adviceProblems({ ...base, serviceRouterCount: 0, commonRouters: [] }), ['Service has no edge routers assigned. Adjust service edge router policies.']);
  assert.match(adviceProblems({ ...base, commonRouters: [] })[0]!, /^Identity and services have no edge routers in common/);
  assert.match(adviceProblems({ ...base, commonRouters: [{ isOnline: false }] })[0]!, /^Common edge routers are all off-line/);
  assert.equal(
    adviceLines({ ...base, isDialAllowed: false, commonRouters: [{ isOnline: false }] }, true),
    'ERROR: alice (2) -> web (2) Common Routers: (0/1) Dial: N Bind: N\n  - Identity does not have access to service. Adjust service policies.\n  - Common edge routers are all off-line. Bring routers back on-line or adjust edge router policies and/or service edge router policies to increase common router pool.\n\n',
  );
});
