// The template variables as Grafana variables: the datasource picker, then label_values() variables for the
// cluster, the controllers and the routers (queries/template-variables.ts holds what they are).
import { DatasourceVariableBuilder, QueryVariableBuilder, VariableRefresh, VariableSort } from '@grafana/grafana-foundation-sdk/dashboard';
import { allValue, datasourceVariable, labelValuesQuery, type LabelVariable } from '../queries/template-variables.ts';
import { datasourceRef, edgewardDatasource } from './datasource.ts';

export function datasourceVariableBuilder(): DatasourceVariableBuilder {
  return new DatasourceVariableBuilder(datasourceVariable)
    .label('Data source')
    .description('The Prometheus that scrapes the edgeward controllers')
    .type('prometheus')
    .current({ selected: true, text: edgewardDatasource.name, value: edgewardDatasource.uid });
}

export function labelVariableBuilder(variable: LabelVariable): QueryVariableBuilder {
  const query = labelValuesQuery(variable);
  const builder = new QueryVariableBuilder(variable.name)
    .label(variable.label)
    .description(variable.description)
    .datasource(datasourceRef)
    .query(query)
    .definition(query)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(variable.multi)
    .includeAll(variable.multi);
  if (variable.multi) builder.allValue(allValue).current({ selected: true, text: 'All', value: '$__all' });
  return builder;
}
