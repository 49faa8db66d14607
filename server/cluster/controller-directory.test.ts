import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { apiAddressesOf, ControllerDirectory, describeRequestType, type ControllerDescriptor, type DirectoryMember } from './controller-directory.ts';

const descriptor = (id: string): ControllerDescriptor => ({
  id, name: id, ctrlAddress: `tls:127.0.0.1:${id.length}`, apiAddresses: { 'edge-client': [{ url: `https://${id}/edge/client/v1`, version: 'v1' }] },
  certPem: `cert of ${id}`, fingerprint: 'ab', startedAt: '2026-01-01T00:00:00.000Z',
});
const member = (id: string, connected: boolean): DirectoryMember => ({ id, address: `tls:${id}`, connected, preferred: false });

describe('controller directory', () => {
  it('lists itself, the members it reaches, those the leader relays, and the rest offline', async () => {
    const asked: string[] = [];
    const leader = { ...descriptor('c1'), peers: [descriptor('c3'), descriptor('c2'), { id: 'c4', junk: true }] };
    const directory = new ControllerDirectory(
      descriptor('c2'),
      () => [member('c1', true), member('c2', true), member('c3', false), member('c4', false), member('c5', true)],
      {
        request: async (id, body) => {
          asked.push(id);
          assert.deepEqual(body, { type: describeRequestType });
          if (id === 'c1') return leader;
          throw new Error('timed out');
        },
      },
      new ManualClock(),
    );
    const rows = await directory.list();
    assert.deepEqual(asked.sort(), ['c1', 'c5'], 'only members with a channel are asked');
    assert.deepEqual(rows.map((row) => [row.id, row.isOnline, row.certPem]), [
      ['c1', true, 'cert of c1'],
      ['c2', true, 'cert of c2'],
      ['c3', true, 'cert of c3'],
      ['c4', false, ''],
      ['c5', false, ''],
    ]);
    assert.equal(rows[4]!.ctrlAddress, 'tls:c5');
    assert.deepEqual(directory.describe().peers.map((peer) => peer.id), ['c1'], 'it relays only those it heard from itself');
  });

  it('asks at most once a cacheMs', async () => {
    const clock = new ManualClock();
    let asked = 0;
    const directory = new ControllerDirectory(descriptor('c1'), () => [member('c1', true), member('c2', true)], { request: async () => (asked++, descriptor('c2')) }, clock);
    await directory.list();
    await directory.list();
    assert.equal(asked, 1);
    clock.advance(1000);
    await directory.list();
    assert.equal(asked, 2);
  });

  it('a peer claiming to be another member is not believed', async () => {
    const directory = new ControllerDirectory(descriptor('c1'), () => [member('c1', true), member('c2', true)], { request: async () => descriptor('c9') }, new ManualClock());
    assert.equal((await directory.list())[1]!.isOnline, false);
  });

  it('API addresses are each bound origin with the API path, version v1', () => {
    assert.deepEqual(apiAddressesOf({ 'edge-client': ['https://a:1', 'https://b:2'], 'edge-management': undefined }, { 'edge-client': '/edge/client/v1', 'edge-management': '/edge/management/v1' }), {
      'edge-client': [{ url: 'https://a:1/edge/client/v1', version: 'v1' }, { url: 'https://b:2/edge/client/v1', version: 'v1' }],
    });
  });
});
