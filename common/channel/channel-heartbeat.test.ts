import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChannelHeartbeat, RecentMean, type HeartbeatFrame } from './channel-heartbeat.ts';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function heartbeat(overrides: { unresponsiveMs?: number; sendWhile?: () => boolean; exempt?: () => boolean } = {}) {
  let clock = 1000;
  const sent: HeartbeatFrame[] = [];
  const roundTrips: number[] = [];
  const silences: number[] = [];
  const beat = new ChannelHeartbeat(
    { sendIntervalMs: 10, checkIntervalMs: 10, unresponsiveMs: overrides.unresponsiveMs ?? 500, now: () => clock },
    {
      send: (frame) => sent.push(frame),
      silent: (ms) => silences.push(ms),
      roundTrip: (ms) => roundTrips.push(ms),
      ...(overrides.sendWhile ? { sendWhile: overrides.sendWhile } : {}),
      ...(overrides.exempt ? { exempt: overrides.exempt } : {}),
    },
  );
  return { beat, sent, roundTrips, silences, advance: (ms: number) => (clock += ms) };
}

test('an hb is answered with its sentAt; only the echo of one of ours is a round trip; other frames are not heartbeats', () => {
  const { beat, sent, roundTrips, advance } = heartbeat();
  assert.equal(beat.receive({ type: 'hb', sentAt: 12.5 }), true);
  assert.deepEqual(sent, [{ type: 'hbAck', sentAt: 12.5 }]);
  assert.equal(beat.receive({ type: 'hb', sentAt: 'soon' }), true);
  assert.deepEqual(sent[1], { type: 'hbAck', sentAt: 0 });
  advance(30);
  for (const sentAt of ['yesterday', 5, 1000 + 60_000, Number.NaN]) beat.receive({ type: 'hbAck', sentAt });
  assert.deepEqual(roundTrips, [], 'not numbers, from before the channel, from the future: not ours');
  beat.receive({ type: 'hbAck', sentAt: 1010 });
  assert.deepEqual(roundTrips, [20]);
  assert.equal(beat.receive({ type: 'router.links' }), false);
  assert.equal(beat.receive('not a frame'), false);
});

test('silence past the limit is reported once, on the injected monotonic clock; hearing anything resets it; an exempt channel is never silent', async () => {
  const quiet = heartbeat();
  quiet.beat.start();
  quiet.advance(400);
  await wait(40);
  assert.deepEqual(quiet.silences, []);
  quiet.beat.receive({ type: 'router.links' });
  quiet.advance(400);
  await wait(40);
  assert.deepEqual(quiet.silences, [], 'a frame heard 400 ms ago: alive');
  quiet.advance(200);
  await wait(60);
  assert.deepEqual(quiet.silences, [600]);
  quiet.advance(5000);
  await wait(40);
  assert.equal(quiet.silences.length, 1, 'reported once, then stopped');
  assert.ok(quiet.sent.every((frame) => frame.type === 'hb'));

  let paused = true;
  const exempt = heartbeat({ exempt: () => paused });
  exempt.beat.start();
  exempt.advance(10_000);
  await wait(40);
  assert.deepEqual(exempt.silences, []);
  paused = false;
  await wait(40);
  assert.equal(exempt.silences.length, 1);
  exempt.beat.stop();
});

test('heartbeats go out every interval only while sendWhile holds, and none after stop', async () => {
  let welcomed = false;
  const gated = heartbeat({ sendWhile: () => welcomed });
  gated.beat.start();
  await wait(50);
  assert.equal(gated.sent.length, 0);
  welcomed = true;
  await wait(60);
  assert.ok(gated.sent.length >= 2, `${gated.sent.length} heartbeats`);
  gated.beat.stop();
  const count = gated.sent.length;
  await wait(40);
  assert.equal(gated.sent.length, count);
});

test('RecentMean averages the last few samples, rounded to microseconds', () => {
  const mean = new RecentMean(3);
  assert.equal(mean.mean, null);
  for (const sample of [100, 1, 2, 3.0004]) mean.add(sample);
  assert.equal(mean.size, 3);
  assert.equal(mean.mean, 2);
});
