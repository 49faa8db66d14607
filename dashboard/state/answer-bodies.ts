// The JSON bodies the page's server reads from others, checked field by field (they come over the network): a
// controller's /health-checks, its /fabric/v1/cluster/list-members, a router's /health-checks and the alerts
// daemon's /api/v1/status. Each reader returns the part the page uses, or a message saying what is wrong. Pure.

import type { DaemonStatus } from '../../alerts/daemon/daemon-status.ts';
import type { HealthCheckView, MemberRowView, RouterLinkView } from './snapshot.ts';

export type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const fail = (error: string): Read<never> => ({ ok: false, error });

function checksOf(data: Record<string, unknown>): HealthCheckView[] {
  const checks = Array.isArray(data.checks) ? data.checks : [];
  return checks.filter(isObject).map((check) => {
    const message = isObject(check.err) && typeof check.err.message === 'string' ? check.err.message : undefined;
    return { id: String(check.id ?? '?'), healthy: check.healthy === true, ...(message === undefined ? {} : { error: message }) };
  });
}

/** `{data: {healthy, checks: [{id, healthy, err?}]}}`. */
export function readHealthBody(body: unknown): Read<{ healthy: boolean; checks: HealthCheckView[] }> {
  if (!isObject(body) || !isObject(body.data)) return fail('the health checks answer has no data object');
  if (typeof body.data.healthy !== 'boolean') return fail('the health checks answer has no healthy flag');
  return { ok: true, value: { healthy: body.data.healthy, checks: checksOf(body.data) } };
}

/** `{data: [{id, address, voter, leader, version, connected, readOnly, preferredLeader?}], meta}`. */
export function readMembersBody(body: unknown): Read<MemberRowView[]> {
  if (!isObject(body) || !Array.isArray(body.data)) return fail('the member list has no data array');
  const rows: MemberRowView[] = [];
  for (const [index, row] of body.data.entries()) {
    if (!isObject(row) || typeof row.id !== 'string' || typeof row.voter !== 'boolean' || typeof row.leader !== 'boolean' || typeof row.connected !== 'boolean') {
      return fail(`member ${index} is not {id, address, voter, leader, version, connected, readOnly}`);
    }
    rows.push({
      id: row.id,
      address: typeof row.address === 'string' ? row.address : '',
      voter: row.voter,
      leader: row.leader,
      version: typeof row.version === 'string' ? row.version : '',
      connected: row.connected,
      readOnly: row.readOnly === true,
      preferredLeader: row.preferredLeader === true,
    });
  }
  return { ok: true, value: rows };
}

/** A router's `/health-checks`: overall health, whether `controllerPing` passes, and the links `link.health` lists. */
export function readRouterHealthBody(body: unknown): Read<{ healthy: boolean; controllerPing?: boolean; links: RouterLinkView[] }> {
  const health = readHealthBody(body);
  if (!health.ok) return health;
  const data = (body as { data: Record<string, unknown> }).data;
  const checks = (Array.isArray(data.checks) ? data.checks : []).filter(isObject);
  const ping = checks.find((check) => check.id === 'controllerPing');
  const linkCheck = checks.find((check) => check.id === 'link.health');
  const links = (Array.isArray(linkCheck?.details) ? linkCheck.details : []).filter(isObject).map((detail): RouterLinkView => {
    const latencyNs = typeof detail.latency === 'number' && Number.isFinite(detail.latency) ? detail.latency : undefined;
    return {
      id: String(detail.linkId ?? '?'),
      ...(typeof detail.destRouterId === 'string' ? { destRouterId: detail.destRouterId } : {}),
      ...(latencyNs === undefined ? {} : { latencySeconds: latencyNs / 1e9 }),
    };
  });
  return { ok: true, value: { healthy: health.value.healthy, ...(ping === undefined ? {} : { controllerPing: ping.healthy === true }), links } };
}

/** The alerts daemon's `/api/v1/status` (alerts/daemon/daemon-status.ts). */
export function readDaemonStatusBody(body: unknown): Read<DaemonStatus> {
  if (!isObject(body) || !Array.isArray(body.alerts) || !Array.isArray(body.commitLag) || !Array.isArray(body.controllers)) {
    return fail('the alerts daemon\'s status has no alerts, commitLag and controllers lists');
  }
  const alerts: DaemonStatus['alerts'][number][] = [];
  for (const alert of body.alerts) {
    if (!isObject(alert) || typeof alert.alertname !== 'string' || typeof alert.severity !== 'string' || !isObject(alert.annotations) || !isObject(alert.labels)) {
      return fail('an alert of the alerts daemon\'s status is not {alertname, severity, labels, annotations, startsAt}');
    }
    const annotations = alert.annotations;
    alerts.push({
      alertname: alert.alertname,
      severity: alert.severity,
      labels: Object.fromEntries(Object.entries(alert.labels).filter((entry): entry is [string, string] => typeof entry[1] === 'string')),
      annotations: { summary: String(annotations.summary ?? ''), description: String(annotations.description ?? ''), runbook_url: String(annotations.runbook_url ?? '') },
      startsAt: typeof alert.startsAt === 'string' ? alert.startsAt : '',
    });
  }
  const commitLag = body.commitLag
    .filter(isObject)
    .filter((lag) => typeof lag.controller === 'string')
    .map((lag) => ({ controller: String(lag.controller), entries: typeof lag.entries === 'number' ? lag.entries : null, seconds: typeof lag.seconds === 'number' ? lag.seconds : 0 }));
  const controllers: DaemonStatus['controllers'][number][] = body.controllers
    .filter(isObject)
    .filter((controller) => typeof controller.id === 'string')
    .map((controller) => ({
      id: String(controller.id),
      reachable: typeof controller.reachable === 'boolean' ? controller.reachable : null,
      raftHealthOk: typeof controller.raftHealthOk === 'boolean' ? controller.raftHealthOk : null,
      healthStatus: typeof controller.healthStatus === 'number' ? controller.healthStatus : controller.healthStatus === 'unreachable' ? ('unreachable' as const) : null,
      checkedAt: typeof controller.checkedAt === 'string' ? controller.checkedAt : null,
    }));
  return {
    ok: true,
    value: { cluster: String(body.cluster ?? ''), generatedAt: String(body.generatedAt ?? ''), alerts, commitLag, controllers },
  };
}
