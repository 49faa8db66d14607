import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultLinkGroup, effectiveGroups, sharesGroup } from './link-groups.ts';

describe('link groups', () => {
  it('a link end without groups is in the group "default"', () => {
    assert.equal(defaultLinkGroup, 'default');
    assert.deepEqual(effectiveGroups(undefined), ['default']);
    assert.deepEqual(effectiveGroups([]), ['default']);
    assert.deepEqual(effectiveGroups(['east']), ['east']);
  });

  it('matches when at least one group is shared', () => {
    assert.equal(sharesGroup(['east', 'west'], ['west']), true);
    assert.equal(sharesGroup(['east'], ['west', 'north']), false);
  });

  it('two ends without groups match each other through "default"', () => {
    assert.equal(sharesGroup(undefined, []), true);
    assert.equal(sharesGroup(['default'], undefined), true);
  });

  it('an end in named groups (and none unnamed) does not match an end without groups', () => {
    assert.equal(sharesGroup(['east'], undefined), false);
    assert.equal(sharesGroup([], ['east']), false);
    assert.equal(sharesGroup(['east', 'default'], []), true);
  });

  it('group names are compared exactly (case matters)', () => {
    assert.equal(sharesGroup(['East'], ['east']), false);
  });
});
