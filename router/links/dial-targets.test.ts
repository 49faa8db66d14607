import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouterInfo } from '../../common/control-channel/control-messages.ts';
import { advertisedLinkListeners, dialTargetsFor } from './dial-targets.ts';
import { linkRouterConfig } from './link-test-support.ts';

const router = (id: string, listeners: Array<[string, string[]]>): RouterInfo => ({
  id,
  name: id,
  linkListeners: listeners.map(([advertise, groups]) => ({ binding: 'transport', advertise, groups })),
});

describe('dial targets', () => {
  it('pairs each dialer with each listener it shares a group with', () => {
    const plan = dialTargetsFor('r1', [{ groups: ['east'] }, { groups: ['default'] }], router('r2', [['tls:10.0.0.2:6000', ['east']], ['tls:10.0.0.2:6001', []]]));
    assert.deepEqual(
      plan.targets.map((target) => target.key),
      ['0/r2/tls:10.0.0.2:6000', '1/r2/tls:10.0.0.2:6001'],
    );
    assert.deepEqual(plan.targets[0]!.address, { host: '10.0.0.2', port: 6000 });
    assert.deepEqual(plan.skipped, []);
  });

  it('never dials itself', () => {
    assert.deepEqual(dialTargetsFor('r1', [{ groups: ['default'] }], router('r1', [['tls:127.0.0.1:6000', ['default']]])).targets, []);
  });

  it('does nothing without dialers', () => {
    assert.deepEqual(dialTargetsFor('r1', [], router('r2', [['tls:127.0.0.1:6000', ['default']]])).targets, []);
  });

  it('skips listeners that are not tls:<host>:<port>, saying why', () => {
    const plan = dialTargetsFor('r1', [{ groups: ['default'] }], router('r2', [['tcp:10.0.0.2:6000', []], ['10.0.0.2:6000', []], ['tls:[::1]:6000', []]]));
    assert.deepEqual(plan.targets.map((target) => target.advertise), ['tls:[::1]:6000']);
    assert.equal(plan.skipped.length, 2);
    assert.match(plan.skipped[0]!.reason, /not allowed/);
    assert.match(plan.skipped[1]!.reason, /missing protocol/);
  });

  it('one target per pair even when a listener is advertised twice', () => {
    const plan = dialTargetsFor('r1', [{ groups: ['default'] }], router('r2', [['tls:h:1', []], ['tls:h:1', ['default']]]));
    assert.equal(plan.targets.length, 1);
  });

  it('tolerates malformed router info from the wire', () => {
    const bad = { id: 'r2', name: 'r2', linkListeners: [{ advertise: 42 }, null] } as unknown as RouterInfo;
    assert.deepEqual(dialTargetsFor('r1', [{ groups: ['default'] }], bad).targets, []);
    const none = { id: 'r2', name: 'r2' } as unknown as RouterInfo;
    assert.deepEqual(dialTargetsFor('r1', [{ groups: ['default'] }], none), { targets: [], skipped: [] });
  });

  it('advertises the listeners with their groups, and the bound port when configured with port 0', () => {
    const config = linkRouterConfig({ listener: { groups: ['east'] } });
    assert.deepEqual(advertisedLinkListeners(config.link, [45678]), [{ binding: 'transport', advertise: 'tls:127.0.0.1:45678', groups: ['east'] }]);
    assert.deepEqual(advertisedLinkListeners(undefined), []);
  });
});
