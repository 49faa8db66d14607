// The controller's `events:` section: handler-name → { subscriptions, handler }, following OpenZiti's layout.
// Subscriptions are maps with a `type` (an unknown type is ignored with a warning, as OpenZiti does); the handler
// writes JSON lines to a file or stdout.

import { s } from '../../common/config/schema.ts';
import type { RuleFinding } from '../../common/config/schema.ts';

/** Go regexps (RE2) and JavaScript's agree on the filters people write; anything JavaScript rejects is an error. */
const regex = s.string().rule((pattern): RuleFinding[] => {
  try {
    new RegExp(pattern);
    return [];
  } catch (error) {
    return [{ rule: 'regex', message: `is not a valid regular expression: ${(error as Error).message}`, value: pattern }];
  }
});

const subscription = s.tagged(
  'type',
  {
    cluster: s.object({}),
    // include: entity types to report; empty means all of them.
    entityChange: s.object({ propagateAlways: s.boolean({ acceptStrings: true }).default(false), include: s.array(s.string({ minLength: 1 })).default([]) }),
    // include: event types to report (created, deleted; for OIDC sessions also refreshed, exchanged, revoked); empty
    // means all. Legacy sessions' are written by the leader unless propagateAlways; OIDC ones where the token was served.
    apiSession: s.object({
      propagateAlways: s.boolean({ acceptStrings: true }).default(false),
      include: s.array(s.string({ enum: ['created', 'deleted', 'refreshed', 'exchanged', 'revoked'] })).default([]),
    }),
    // include: event types to report (success, fail); empty means both. Written where the login was answered.
    authentication: s.object({ include: s.array(s.string({ enum: ['success', 'fail'] })).default([]) }),
    // include: event types to report (created, pathUpdated, deleted, failed); empty means all. Written by the
    // controller holding the ingress router's channel (or refusing the circuit).
    circuit: s.object({ include: s.array(s.string({ enum: ['created', 'pathUpdated', 'deleted', 'failed'] })).default([]) }),
    // metricFilter is matched against `<metric>.<valueKey>`.
    metrics: s.object({ sourceFilter: regex, metricFilter: regex }),
  },
  {
    unknownTag: 'warning',
    label: 'subscription',
    aliases: { 'edge.apiSessions': 'apiSession', 'edge.authentications': 'authentication', 'fabric.circuits': 'circuit' },
  },
);

// OpenZiti's file and stdout handlers accept only json today (its docs still list plain).
const format = s.string({ enum: ['json'], caseInsensitive: true }).required();
const bufferSize = s.integer({ min: 1, max: 1_000_000 }).default(10);

const output = s.tagged(
  'type',
  {
    file: s.object({
      format,
      path: s.path().required(),
      maxsizemb: s.integer({ min: 1, max: 1_048_576 }).default(10),
      maxbackups: s.integer({ min: 0, max: 100_000 }).default(0), // 0 keeps every rotated file
      bufferSize,
    }),
    stdout: s.object({ format, bufferSize }),
  },
  { label: 'handler' },
);

export const eventHandlerSchema = s.object({
  subscriptions: s.array(subscription, { minItems: 1 }).required(),
  handler: output.required(),
});

export const eventsSchema = s.record(eventHandlerSchema);
