// The Prometheus datasource: the one the provisioning file creates (a stable uid, so the dashboards' default
// resolves on any Grafana), and the reference every panel and query carries, which is the `$datasource` variable
// so a viewer can point a dashboard at another Prometheus.
import type { DataSourceRef } from '@grafana/grafana-foundation-sdk/common';
import { datasourceVariable } from '../queries/template-variables.ts';

export const edgewardDatasource = { name: 'edgeward Prometheus', uid: 'edgeward-prometheus', type: 'prometheus' } as const;

export const datasourceRef: DataSourceRef = { type: 'prometheus', uid: `\${${datasourceVariable}}` };
