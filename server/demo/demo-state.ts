// What demo.json holds: every process of the demo with its addresses, files and current pid.
import type { DemoDataPlane } from './demo-data-plane.ts';
import type { DemoRouter } from './demo-routers.ts';

export interface DemoController {
  id: string;
  pid: number;
  config: string;
  clientApi: string;
  managementApi: string;
  healthChecks: string;
  metrics: string;
  agentSocket: string;
  dataDir: string;
  logFile: string;
  eventsFile: string;
}

export interface DemoState {
  controllers: DemoController[];
  routers: DemoRouter[];
  caBundle: string;
  admin: { username: string; passwordFile: string };
  prometheus: { url: string };
  alertmanager: { url: string };
  /** The alerts daemon: its pid (updated when restarted) and its /metrics. */
  alerts: { pid: number; metrics: string };
  /** Where the local pager receiver appends every alert Alertmanager sends it. */
  pager: { log: string };
  /** The status page: its URL and its pid (updated when restarted). */
  dashboard: { url: string; pid: number };
  /** The overlay's demo service: router1's proxy port for it and the echo server behind router2. */
  dataPlane: DemoDataPlane;
}
