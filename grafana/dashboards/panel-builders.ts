// The panel kinds the dashboards use, built from catalogue queries so that a panel's expressions, legends and unit
// come from one place. Every panel and every target refers to the `$datasource` variable.
import type { Builder, Dataquery } from '@grafana/grafana-foundation-sdk/cog';
import {
  BigValueColorMode,
  BigValueGraphMode,
  BigValueTextMode,
  GraphDrawStyle,
  GraphThresholdsStyleConfigBuilder,
  GraphThresholdsStyleMode,
  LegendDisplayMode,
  LegendPlacement,
  ReduceDataOptionsBuilder,
  SortOrder,
  TooltipDisplayMode,
  VisibilityMode,
  VizLegendOptionsBuilder,
  VizTooltipOptionsBuilder,
  type DataSourceRef,
} from '@grafana/grafana-foundation-sdk/common';
import {
  DashboardLinkBuilder,
  DashboardLinkType,
  MappingType,
  ThresholdsConfigBuilder,
  ThresholdsMode,
  type DashboardLink,
  type Panel,
  type Threshold,
  type ThresholdsConfig,
  type ValueMapping,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder, PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as statetimeline from '@grafana/grafana-foundation-sdk/statetimeline';
import * as table from '@grafana/grafana-foundation-sdk/table';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import type { CatalogueQuery, QueryUnit } from '../queries/catalogue-query.ts';
import { datasourceRef } from './datasource.ts';

export interface PanelLink {
  readonly title: string;
  readonly url: string;
}

export interface PanelSpec {
  readonly title: string;
  readonly description: string;
  readonly queries: readonly CatalogueQuery[];
  /** Grid columns out of 24. */
  readonly width?: number;
  readonly height?: number;
  /** Colour steps, lowest first; the first step's value is null (everything below the next). */
  readonly thresholds?: readonly Threshold[];
  readonly mappings?: readonly ValueMapping[];
  /** Shown in the panel's header, and on its values. */
  readonly links?: readonly PanelLink[];
  readonly min?: number;
  readonly max?: number;
}

/** What every panel builder of the SDK offers; each returns itself, which is not needed here. */
interface CommonPanelBuilder extends Builder<Panel> {
  title(title: string): unknown;
  description(description: string): unknown;
  datasource(datasource: DataSourceRef): unknown;
  span(width: number): unknown;
  height(height: number): unknown;
  unit(unit: string): unknown;
  min(min: number): unknown;
  max(max: number): unknown;
  thresholds(thresholds: Builder<ThresholdsConfig>): unknown;
  mappings(mappings: ValueMapping[]): unknown;
  links(links: Builder<DashboardLink>[]): unknown;
  dataLinks(links: Builder<DashboardLink>[]): unknown;
  withTarget(target: Builder<Dataquery>): unknown;
}

export const colors = { ok: 'green', warning: 'orange', critical: 'red', neutral: 'blue' } as const;

/** 1 is good, 0 is bad: up, has a leader. */
export const upDownMappings: ValueMapping[] = [
  { type: MappingType.ValueToText, options: { '0': { text: 'down', color: colors.critical, index: 0 }, '1': { text: 'up', color: colors.ok, index: 1 } } },
];

export function thresholdSteps(...steps: readonly (readonly [number | null, string])[]): Threshold[] {
  return steps.map(([value, color]) => ({ value, color }));
}

/** The unit all of a panel's queries share: a panel has one axis. */
export function panelUnit(queries: readonly CatalogueQuery[]): QueryUnit {
  const units = new Set(queries.map((query) => query.unit));
  if (units.size !== 1) throw new Error(`a panel's queries must share one unit, not ${[...units].join(', ')}: ${queries.map((query) => query.id).join(', ')}`);
  return queries[0]!.unit;
}

function target(query: CatalogueQuery, index: number, asTable: boolean): DataqueryBuilder {
  const builder = new DataqueryBuilder()
    .refId(String.fromCharCode(65 + index))
    .datasource(datasourceRef)
    .expr(query.expr)
    .legendFormat(query.legend);
  if (query.instant) builder.instant();
  else builder.range();
  if (asTable) builder.format(PromQueryFormat.Table);
  return builder;
}

function linkBuilders(links: readonly PanelLink[]): DashboardLinkBuilder[] {
  return links.map((link) => new DashboardLinkBuilder(link.title).type(DashboardLinkType.Link).url(link.url).targetBlank(true));
}

function configure<B extends CommonPanelBuilder>(builder: B, spec: PanelSpec, asTable = false): B {
  builder.title(spec.title);
  builder.description(spec.description);
  builder.datasource(datasourceRef);
  builder.span(spec.width ?? 12);
  builder.height(spec.height ?? 8);
  builder.unit(panelUnit(spec.queries));
  if (spec.min !== undefined) builder.min(spec.min);
  if (spec.max !== undefined) builder.max(spec.max);
  builder.thresholds(new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps([...(spec.thresholds ?? thresholdSteps([null, colors.ok]))]));
  if (spec.mappings) builder.mappings([...spec.mappings]);
  if (spec.links) {
    builder.links(linkBuilders(spec.links));
    builder.dataLinks(linkBuilders(spec.links));
  }
  spec.queries.forEach((query, index) => builder.withTarget(target(query, index, asTable)));
  return builder;
}

export interface TimeSeriesOptions {
  /** Draw the thresholds as dashed lines (a limit worth seeing against the curve). */
  readonly thresholdLines?: boolean;
  /** Bars, for counts per interval. */
  readonly bars?: boolean;
}

export function timeSeriesPanel(spec: PanelSpec, options: TimeSeriesOptions = {}): timeseries.PanelBuilder {
  const builder = configure(new timeseries.PanelBuilder(), spec)
    .legend(new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom))
    .tooltip(new VizTooltipOptionsBuilder().mode(TooltipDisplayMode.Multi).sort(SortOrder.Descending))
    .lineWidth(1)
    .fillOpacity(10)
    .showPoints(VisibilityMode.Never);
  if (options.thresholdLines) builder.thresholdsStyle(new GraphThresholdsStyleConfigBuilder().mode(GraphThresholdsStyleMode.Dashed));
  if (options.bars) builder.drawStyle(GraphDrawStyle.Bars).fillOpacity(60);
  return builder;
}

export interface StatOptions {
  /** `name` shows the series' legend (the leader's id), `value_and_name` both. */
  readonly text?: 'value' | 'name' | 'value_and_name';
  readonly background?: boolean;
}

export function statPanel(spec: PanelSpec, options: StatOptions = {}): stat.PanelBuilder {
  const textMode = { value: BigValueTextMode.Value, name: BigValueTextMode.Name, value_and_name: BigValueTextMode.ValueAndName }[options.text ?? 'value'];
  return configure(new stat.PanelBuilder(), { height: 4, width: 4, ...spec })
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']).values(false))
    .textMode(textMode)
    .colorMode(options.background ? BigValueColorMode.Background : BigValueColorMode.Value)
    .graphMode(BigValueGraphMode.None);
}

/** A table of instant values, one row per series, its labels as columns. */
export function tablePanel(spec: PanelSpec): table.PanelBuilder {
  const builder = configure(new table.PanelBuilder(), spec, true);
  // Prometheus's table format adds a Time column; the labels and the value are what a reader wants.
  builder.withTransformation({ id: 'organize', options: { excludeByName: { Time: true }, renameByName: { Value: 'value' } } });
  return builder;
}

/** Up/down over time, one lane per series. */
export function stateTimelinePanel(spec: PanelSpec): statetimeline.PanelBuilder {
  return configure(new statetimeline.PanelBuilder(), { mappings: upDownMappings, height: 6, ...spec })
    .showValue(VisibilityMode.Never)
    .mergeValues(true)
    .legend(new VizLegendOptionsBuilder().showLegend(false));
}
