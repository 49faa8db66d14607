'use client';
// One line chart of the history (recharts): a line per series (controller, channel, link), time along the bottom.
// A series with no value at a point (a controller that did not answer) breaks off there rather than being joined.

import { useMemo } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartDefinition, HistoryPoint } from '../state/snapshot.ts';
import { formatClock, formatValue } from './format.ts';

/** Distinct, colour-blind-friendly hues (Okabe-Ito), then a few more. */
const palette = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#7f6a00', '#6a3d9a', '#b15928', '#1b9e77', '#666666', '#e7298a'];

export function MetricChart({ chart, history }: { chart: ChartDefinition; history: readonly HistoryPoint[] }) {
  const { rows, series } = useMemo(() => {
    const names = new Set<string>();
    const data = history.map((point) => {
      const values = point.values[chart.id] ?? {};
      for (const name of Object.keys(values)) names.add(name);
      return { t: point.t, ...values };
    });
    return { rows: data, series: [...names].sort() };
  }, [chart.id, history]);

  return (
    <figure className="chart" data-testid={`chart-${chart.id}`} data-series={series.length} data-points={rows.length}>
      <figcaption>
        <span className="chart-title">{chart.title}</span>
        <span className="chart-source">
          {chart.source}
          {chart.queries.length > 0 ? ` · query ${chart.queries.join(', ')}` : ''}
        </span>
      </figcaption>
      {series.length === 0 ? (
        <p className="chart-empty">No data yet.</p>
      ) : (
        <div className="chart-body">
          <ResponsiveContainer width="100%" height="100%" minWidth={200} initialDimension={{ width: 320, height: 200 }}>
            <LineChart data={rows} margin={{ top: 8, right: 12, bottom: 0, left: 4 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="var(--grid)" />
              <XAxis dataKey="t" type="number" scale="time" domain={['dataMin', 'dataMax']} tickFormatter={(value: number) => formatClock(value)} minTickGap={40} stroke="var(--muted)" fontSize={11} />
              <YAxis tickFormatter={(value: number) => formatValue(value, chart.unit)} width={64} stroke="var(--muted)" fontSize={11} allowDecimals={chart.unit === 's'} />
              <Tooltip labelFormatter={(value) => formatClock(Number(value))} formatter={(value) => formatValue(Number(value), chart.unit)} isAnimationActive={false} />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              {series.map((name, index) => (
                <Line key={name} type="linear" dataKey={name} name={name} stroke={palette[index % palette.length]} strokeWidth={2} dot={false} isAnimationActive={false} connectNulls={false} />
              ))}
            </LineChart>
          </ResponsiveContainer>
        </div>
      )}
    </figure>
  );
}
