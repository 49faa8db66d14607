// Routers, from what each reports to the controller it is connected to (edgeward_router_* gauges). A router's
// series stay 60 s after it disconnects and a series it stops reporting 5 min: "reporting" is not a live
// connection state, and no controller metric tells how old a router's last report is.
import { defineQueries } from './catalogue-query.ts';
import { selectedRouters } from './promql-selectors.ts';

const routers = selectedRouters();

export const routerQueries = defineQueries('routers', {
  reporting: {
    title: 'Routers reporting metrics',
    expr: `count(count by (router_id) (edgeward_router_link_count${routers}))`,
    legend: 'routers',
    unit: 'short',
    metrics: ['edgeward_router_link_count'],
    seriesWhen: 'routers',
  },
  reportingPerController: {
    title: 'Routers reporting to each controller',
    expr: `count by (controller) (edgeward_router_link_count${routers})`,
    legend: '{{controller}}',
    unit: 'short',
    metrics: ['edgeward_router_link_count'],
    seriesWhen: 'routers',
  },
  controlChannelUp: {
    title: 'Control channel up, per router and controller',
    expr: `max by (router_id, controller) (edgeward_router_ctrl_connected${routers})`,
    legend: '{{router_id}} → {{controller}}',
    unit: 'none',
    metrics: ['edgeward_router_ctrl_connected'],
    seriesWhen: 'routers',
  },
  links: {
    title: 'Links per router',
    expr: `max by (router_id) (edgeward_router_link_count${routers})`,
    legend: '{{router_id}}',
    unit: 'short',
    metrics: ['edgeward_router_link_count'],
    seriesWhen: 'routers',
  },
  controlLatency: {
    title: 'Control channel round trip, per router and controller',
    expr: `max by (router_id, controller) (edgeward_router_ctrl_latency_seconds${routers})`,
    legend: '{{router_id}} → {{controller}}',
    unit: 's',
    metrics: ['edgeward_router_ctrl_latency_seconds'],
    seriesWhen: 'routers',
  },
  linkLatency: {
    title: 'Link round trip, per router and link',
    expr: `max by (router_id, link_id) (edgeward_router_link_latency_seconds${routers})`,
    legend: '{{router_id}} {{link_id}}',
    unit: 's',
    metrics: ['edgeward_router_link_latency_seconds'],
    seriesWhen: 'router-links',
  },
  heapUsed: {
    title: 'Router heap in use',
    expr: `max by (router_id) (edgeward_router_process_heap_used_bytes${routers})`,
    legend: '{{router_id}} heap',
    unit: 'bytes',
    metrics: ['edgeward_router_process_heap_used_bytes'],
    seriesWhen: 'routers',
  },
  residentMemory: {
    title: 'Router resident memory',
    expr: `max by (router_id) (edgeward_router_process_rss_bytes${routers})`,
    legend: '{{router_id}} RSS',
    unit: 'bytes',
    metrics: ['edgeward_router_process_rss_bytes'],
    seriesWhen: 'routers',
  },
  droppedReports: {
    title: 'Metrics messages a router dropped (its queue was full)',
    expr: `max by (router_id) (edgeward_router_metrics_dropped_messages${routers})`,
    legend: '{{router_id}}',
    unit: 'short',
    metrics: ['edgeward_router_metrics_dropped_messages'],
    seriesWhen: 'routers',
  },
});
