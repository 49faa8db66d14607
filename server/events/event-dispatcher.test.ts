import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventDispatcher, type EventSubscription } from './event-dispatcher.ts';
import type { EventSink } from './event-sinks.ts';

const memorySink = () => {
  const events: Record<string, unknown>[] = [];
  const sink: EventSink = { write: (event) => void events.push(event), close: async () => undefined };
  return { sink, events };
};

const dispatcherWith = (subscriptions: EventSubscription[], leader: { value: boolean }) => {
  const { sink, events } = memorySink();
  return { dispatcher: new EventDispatcher([{ name: 'h', subscriptions, sink }], () => leader.value), events };
};

test('entity changes reach a handler on the leader only, unless its subscription sets propagateAlways', () => {
  const leader = { value: false };
  const onLeader = dispatcherWith([{ type: 'entityChange', propagateAlways: false }], leader);
  const everywhere = dispatcherWith([{ type: 'entityChange', propagateAlways: true }], leader);
  assert.equal(onLeader.dispatcher.takesEntityChangesHere(), false, 'a follower builds no event nobody takes');
  assert.equal(everywhere.dispatcher.takesEntityChangesHere(), true);
  onLeader.dispatcher.dispatch('entityChange', { entityType: 'identities' });
  everywhere.dispatcher.dispatch('entityChange', { entityType: 'identities' });
  assert.equal(onLeader.events.length, 0);
  assert.equal(everywhere.events.length, 1);
  leader.value = true;
  assert.equal(onLeader.dispatcher.takesEntityChangesHere(), true);
  onLeader.dispatcher.dispatch('entityChange', { entityType: 'identities' });
  assert.equal(onLeader.events.length, 1);
});

test('include limits entity changes to the named entity types; other namespaces go to their subscribers everywhere', () => {
  const leader = { value: true };
  const { dispatcher, events } = dispatcherWith([{ type: 'entityChange', include: ['services'] }, { type: 'cluster' }], leader);
  dispatcher.dispatch('entityChange', { entityType: 'identities' });
  dispatcher.dispatch('entityChange', { entityType: 'services' });
  leader.value = false;
  dispatcher.dispatch('cluster', { eventType: 'state.has_leader' });
  dispatcher.dispatch('apiSession', { eventType: 'created' });
  assert.deepEqual(events, [{ entityType: 'services' }, { eventType: 'state.has_leader' }]);
  assert.equal(dispatcher.wants('cluster'), true);
  assert.equal(dispatcher.wants('apiSession'), false);
});

test('API session events follow the leader rule too, and include filters them by event_type', () => {
  const leader = { value: false };
  const { dispatcher, events } = dispatcherWith([{ type: 'apiSession', propagateAlways: false, include: ['deleted'] }], leader);
  assert.equal(dispatcher.takesAppliedEventsHere('apiSession'), false);
  dispatcher.dispatch('apiSession', { event_type: 'deleted', id: 'a' });
  leader.value = true;
  assert.equal(dispatcher.takesAppliedEventsHere('apiSession'), true);
  assert.equal(dispatcher.takesAppliedEventsHere('entityChange'), false, 'no entityChange subscription');
  dispatcher.dispatch('apiSession', { event_type: 'created', id: 'b' });
  dispatcher.dispatch('apiSession', { event_type: 'deleted', id: 'c' });
  assert.deepEqual(events, [{ event_type: 'deleted', id: 'c' }]);
});

test('authentication events are written where the login was answered, leader or not; include filters by event_type', () => {
  const leader = { value: false };
  const { dispatcher, events } = dispatcherWith([{ type: 'authentication', include: ['fail'] }], leader);
  dispatcher.dispatch('authentication', { event_type: 'success' });
  dispatcher.dispatch('authentication', { event_type: 'fail' });
  assert.deepEqual(events, [{ event_type: 'fail' }]);
});

test('an event served here (an OIDC token) in an applied namespace is written on a follower too, still filtered by include', () => {
  const leader = { value: false };
  const { dispatcher, events } = dispatcherWith([{ type: 'apiSession', include: ['refreshed'] }], leader);
  dispatcher.dispatch('apiSession', { event_type: 'refreshed' });
  assert.equal(events.length, 0, 'an applied apiSession event stays with the leader');
  dispatcher.dispatch('apiSession', { event_type: 'refreshed', type: 'jwt' }, true);
  dispatcher.dispatch('apiSession', { event_type: 'created', type: 'jwt' }, true);
  assert.deepEqual(events, [{ event_type: 'refreshed', type: 'jwt' }]);
});
