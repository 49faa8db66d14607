import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EdgeModel } from '../../common/control-channel/control-messages.ts';
import { interceptPlan } from './intercept-plan.ts';
import { nftDeleteScript, nftElementsScript, nftReplaceScript, nftTableName } from './nft-ruleset.ts';

const intercept = (addresses: string[], protocols = ['tcp'], portRanges = [{ low: 80, high: 80 }]) => ({ 'intercept.v1': { protocols, addresses, portRanges } });

const model: EdgeModel = {
  services: [
    { id: 's1', name: 'web', roleAttributes: ['web'], configs: intercept(['Web.Ziti', '*.apps.ziti', '10.0.0.7', '10.1.0.0/16', 'fd00::1']) },
    { id: 's2', name: 'dns-only', roleAttributes: ['web'], configs: intercept(['dns.ziti'], ['udp']) },
    { id: 's3', name: 'no-config', roleAttributes: ['web'] },
    { id: 's4', name: 'not-dialable', roleAttributes: ['private'], configs: intercept(['private.ziti']) },
  ],
  identities: [],
  servicePolicies: [{ id: 'p1', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#clients'], serviceRoles: ['#web'] }],
  edgeRouters: [
    { id: 'r1', name: 'r1', roleAttributes: ['clients'], isTunnelerEnabled: true },
    { id: 'r2', name: 'r2', roleAttributes: ['clients'], isTunnelerEnabled: false },
  ],
};

describe('the tproxy intercept plan', () => {
  it('takes the tcp intercepts of the services the router may Dial, sorting names, wildcards and IPv4 apart', () => {
    assert.deepEqual(interceptPlan('r1', model), [
      { serviceId: 's1', serviceName: 'web', hostnames: ['web.ziti'], wildcards: ['apps.ziti'], ipv4: ['10.0.0.7', '10.1.0.0/16'], ports: [{ low: 80, high: 80 }], skipped: ['fd00::1'] },
    ]);
  });

  it('intercepts nothing for a router that is not tunneler-enabled or unknown', () => {
    assert.deepEqual(interceptPlan('r2', model), []);
    assert.deepEqual(interceptPlan('r9', model), []);
  });

  it('writes one redirect rule per service into a table replaced whole, and a delete', () => {
    const table = nftTableName('a.b-C');
    assert.equal(table, 'edgeward_a_b_C');
    const script = nftReplaceScript(table, [
      { service: 'web "x"', addresses: ['100.64.0.3', '10.1.0.0/16'], ports: [{ low: 80, high: 80 }, { low: 8000, high: 8080 }], listenPort: 40001 },
      { service: 'empty', addresses: [], ports: [{ low: 1, high: 1 }], listenPort: 40002 },
    ]);
    assert.equal(
      script,
      [
        'table ip edgeward_a_b_C',
        'delete table ip edgeward_a_b_C',
        'table ip edgeward_a_b_C {',
        '  chain output {',
        '    type nat hook output priority -100; policy accept;',
        '    ip daddr { 100.64.0.3, 10.1.0.0/16 } tcp dport { 80, 8000-8080 } redirect to :40001 comment "web _x_"',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    assert.equal(nftDeleteScript(table), 'table ip edgeward_a_b_C\ndelete table ip edgeward_a_b_C\n');
  });

  it('keeps the addresses of names under wildcards in a named set, changed element by element', () => {
    const script = nftReplaceScript('edgeward_r1', [
      { service: 'web', addresses: ['100.64.0.3'], ports: [{ low: 80, high: 80 }], listenPort: 40001, wildcardSet: { name: 'w0', addresses: ['100.64.0.4', '100.64.0.5'] } },
      { service: 'api', addresses: [], ports: [{ low: 443, high: 443 }], listenPort: 40002, wildcardSet: { name: 'w1', addresses: [] } },
    ]);
    assert.equal(
      script,
      [
        'table ip edgeward_r1',
        'delete table ip edgeward_r1',
        'table ip edgeward_r1 {',
        '  set w0 {',
        '    type ipv4_addr',
        '    elements = { 100.64.0.4, 100.64.0.5 }',
        '  }',
        '  set w1 {',
        '    type ipv4_addr',
        '  }',
        '  chain output {',
        '    type nat hook output priority -100; policy accept;',
        '    ip daddr { 100.64.0.3 } tcp dport { 80 } redirect to :40001 comment "web"',
        '    ip daddr @w0 tcp dport { 80 } redirect to :40001 comment "web"',
        '    ip daddr @w1 tcp dport { 443 } redirect to :40002 comment "api"',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    assert.equal(
      nftElementsScript('edgeward_r1', [{ set: 'w0', add: ['100.64.0.6'], remove: ['100.64.0.4'] }, { set: 'w1', add: [], remove: [] }]),
      'delete element ip edgeward_r1 w0 { 100.64.0.4 }\nadd element ip edgeward_r1 w0 { 100.64.0.6 }\n',
    );
    assert.equal(nftElementsScript('edgeward_r1', [{ set: 'w0', add: [], remove: [] }]), '');
  });
});
