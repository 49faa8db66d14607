import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agreedLeader, countPrefixBody, etcdArgs, etcdEnv, prefixRangeEnd, putBody, rangeCount, type EtcdMemberSpec } from './etcd-member.ts';

const member = (n: number): EtcdMemberSpec => ({ name: `etcd${n}`, dataDir: `/tmp/x/etcd${n}.data`, clientPort: 4000 + n, peerPort: 5000 + n, logFile: `/tmp/x/etcd${n}.log` });

test('a member runs on loopback with the default, durable settings stated explicitly', () => {
  const cluster = [member(1), member(2), member(3)];
  const args = etcdArgs(cluster[1]!, cluster, 'token-1');
  assert.ok(args.includes('--name=etcd2'));
  assert.ok(args.includes('--listen-client-urls=http://127.0.0.1:4002'));
  assert.ok(args.includes('--listen-peer-urls=http://127.0.0.1:5002'));
  assert.ok(args.includes('--initial-cluster=etcd1=http://127.0.0.1:5001,etcd2=http://127.0.0.1:5002,etcd3=http://127.0.0.1:5003'));
  assert.ok(args.includes('--heartbeat-interval=100'));
  assert.ok(args.includes('--election-timeout=1000'));
  assert.ok(args.includes('--data-dir=/tmp/x/etcd2.data'));
  assert.ok(!args.some((arg) => arg.includes('unsafe') || arg.includes('fsync') || arg.includes('snapshot-count')), 'fsync and snapshots keep their defaults');
});

test('etcd gets no ETCD_* variables, which it would read as flags', () => {
  assert.deepEqual(etcdEnv({ PATH: '/bin', ETCD_DATA_DIR: '/var/lib/etcd', HOME: '/root' }), { PATH: '/bin', HOME: '/root' });
});

test('gateway bodies carry keys and values in base64', () => {
  assert.deepEqual(JSON.parse(putBody('bench-a-1', 'vv')), { key: Buffer.from('bench-a-1').toString('base64'), value: Buffer.from('vv').toString('base64') });
  const range = JSON.parse(countPrefixBody('bench-x-')) as { key: string; range_end: string; count_only: boolean };
  assert.equal(Buffer.from(range.key, 'base64').toString(), 'bench-x-');
  assert.equal(Buffer.from(range.range_end, 'base64').toString(), 'bench-x.');
  assert.equal(range.count_only, true);
});

test('a prefix range ends at the prefix with its last byte below 0xff raised by one', () => {
  assert.deepEqual(prefixRangeEnd('ab'), Buffer.from('ac'));
  assert.deepEqual(prefixRangeEnd(Buffer.from([0x61, 0xff])), Buffer.from('b'));
  assert.deepEqual(prefixRangeEnd(Buffer.from([0xff, 0xff])), Buffer.from([0]));
  assert.deepEqual(prefixRangeEnd(''), Buffer.from([0]));
});

test('range counts come as strings, and a zero count is left out', () => {
  assert.equal(rangeCount({ header: {}, count: '1234' }), 1234);
  assert.equal(rangeCount({ header: {} }), 0);
  assert.throws(() => rangeCount({ count: 'many' }), /count/);
});

test('the leader is the member every member names, and only when all answer alike', () => {
  const status = (id: string, leader: string) => ({ header: { member_id: id }, leader });
  assert.equal(agreedLeader([status('11', '22'), status('22', '22'), status('33', '22')]), 1);
  assert.equal(agreedLeader([status('11', '22'), status('22', '22'), undefined]), undefined, 'a member not answering');
  assert.equal(agreedLeader([status('11', '22'), status('22', '33'), status('33', '33')]), undefined, 'members disagreeing');
  assert.equal(agreedLeader([status('11', '0'), status('22', '0'), status('33', '0')]), undefined, 'no leader yet');
  assert.equal(agreedLeader([status('11', '44'), status('22', '44'), status('33', '44')]), undefined, 'a leader that is not among them');
});
