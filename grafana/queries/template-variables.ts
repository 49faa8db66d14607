// The dashboards' template variables, as data: the Grafana builders turn them into variables, and any other user
// of the catalogue (the status page, the live test) fills them into an expression with expandTemplateVariables().
import { controllerJob } from './promql-selectors.ts';

export interface LabelVariable {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  /** Grafana's `label_values(<selector>, <labelName>)`: the values of a label on the series a selector matches. */
  readonly selector: string;
  readonly labelName: string;
  /** Several values at once, and `All` (matching every value, as `allValue`). */
  readonly multi: boolean;
}

/** The Prometheus datasource variable every panel and query refers to. */
export const datasourceVariable = 'datasource';

export const clusterVariable: LabelVariable = {
  name: 'cluster',
  label: 'Cluster',
  description: 'The `cluster` target label of the controllers\' scrape job',
  selector: `up{job="${controllerJob}"}`,
  labelName: 'cluster',
  multi: false,
};

export const controllerVariable: LabelVariable = {
  name: 'controller',
  label: 'Controller',
  description: 'The `controller` target label: the controller id',
  selector: `up{job="${controllerJob}", cluster=~"$cluster"}`,
  labelName: 'controller',
  multi: true,
};

export const routerVariable: LabelVariable = {
  name: 'router',
  label: 'Router',
  description: 'Routers that reported metrics to a controller of the cluster',
  selector: `edgeward_router_link_count{job="${controllerJob}", cluster=~"$cluster"}`,
  labelName: 'router_id',
  multi: true,
};

/** What `All` of a multi-value variable stands for: every value, none being empty. */
export const allValue = '.+';

/** Grafana's `label_values(...)` query text of a variable. */
export function labelValuesQuery(variable: LabelVariable): string {
  return `label_values(${variable.selector}, ${variable.labelName})`;
}

/**
 * Replaces every `$name` and `${name}` with its value. Grafana's built-ins are given by name like any other
 * (`__rate_interval: '1m'`). A variable without a value throws: half-expanded PromQL would only fail later.
 */
export function expandTemplateVariables(expr: string, values: Readonly<Record<string, string>>): string {
  return expr.replace(/\$(?:\{(\w+)\}|(\w+))/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare!;
    const value = values[name];
    if (value === undefined) throw new Error(`no value for template variable ${whole} in: ${expr}`);
    return value;
  });
}
