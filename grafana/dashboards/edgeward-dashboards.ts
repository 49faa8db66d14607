// Every edgeward dashboard, in the order the dashboards menu lists them, with the file name each is written to.
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { apiAuthentication } from './api-authentication.ts';
import { clusterOverview } from './cluster-overview.ts';
import type { DashboardOptions } from './dashboard-frame.ts';
import { raftInternals } from './raft-internals.ts';
import { routers } from './routers.ts';
import { runtime } from './runtime.ts';

const builders: readonly ((options: DashboardOptions) => Dashboard)[] = [clusterOverview, raftInternals, apiAuthentication, routers, runtime];

export function edgewardDashboards(options: DashboardOptions): Dashboard[] {
  return builders.map((build) => build(options));
}

/** `<uid>.json`: the uid is stable, so is the file. */
export function dashboardFileName(dashboard: Dashboard): string {
  if (!dashboard.uid) throw new Error(`dashboard "${dashboard.title}" has no uid`);
  return `${dashboard.uid}.json`;
}
