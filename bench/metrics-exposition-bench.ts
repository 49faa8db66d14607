// In-process, same run, alternating rounds (issue 42, the controller at 10x "Large"): a controller's /metrics text
// with one gauge of N series (default 2,000: `edgeward_service_terminators` at 2,000 services; a router metric at
// 5,000 routers is 5,000), the gauge observed through the OpenTelemetry SDK's observable gauge (before) against
// handed to the exposition as metric data (server/telemetry/series-gauge.ts, after): CPU per text, the series the
// text holds (the SDK folds those past its limit of 2,000 into one `otel_metric_overflow` series) and bytes.
// Prints markdown for the scale notes of bench/RESULTS.md. Env: BENCH_METRICS_SERIES (default 2000,5000),
// BENCH_METRICS_ROUNDS (default 3).
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { PrometheusExposition } from '../server/telemetry/prometheus-exposition.ts';
import { seriesGauge } from '../server/telemetry/series-gauge.ts';
import { positiveInteger, progress } from './bench-env.ts';

const sizes = (process.env.BENCH_METRICS_SERIES ?? '2000,5000').split(',').map((size) => Number.parseInt(size, 10));
if (sizes.some((size) => !Number.isInteger(size) || size < 1 || size > 1_000_000)) throw new Error('BENCH_METRICS_SERIES: comma-separated counts from 1 to 1000000');
const rounds = positiveInteger('BENCH_METRICS_ROUNDS', 3, 9, 'rounds');

const observeOf = (count: number) => {
  const services = Array.from({ length: count }, (_, i) => ({ id: `svc-${i.toString(36).padStart(8, '0')}-Xk2LmQ`, name: `scale-svc-${i}` }));
  return () => services.map((service) => ({ value: 0, attributes: { service_id: service.id, service_name: service.name, binding: 'edge' } }));
};

const variants = {
  'SDK observable gauge (before)': (observe: ReturnType<typeof observeOf>) => {
    const exposition = new PrometheusExposition();
    new MeterProvider({ readers: [exposition.reader] });
    exposition.transientMeter.createObservableGauge('service.terminators', { description: 'bench' }).addCallback((result) => {
      for (const series of observe()) result.observe(series.value, series.attributes);
    });
    return exposition;
  },
  'metric data (after)': (observe: ReturnType<typeof observeOf>) => {
    const exposition = new PrometheusExposition();
    new MeterProvider({ readers: [exposition.reader] });
    exposition.addSource((now) => seriesGauge('service.terminators', 'bench', observe, now));
    return exposition;
  },
};

const lines = ['In-process, one gauge, CPU per /metrics text (20 texts after 5 not counted), rounds alternating the order:', '', '| series observed | variant | round | CPU ms per text | series in the text | overflow series | bytes |', '|---:|---|---:|---:|---:|---|---:|'];
for (const size of sizes) {
  const observe = observeOf(size);
  const names = Object.keys(variants) as (keyof typeof variants)[];
  for (let round = 1; round <= rounds; round++) {
    for (const name of round % 2 === 1 ? names : [...names].reverse()) {
      const exposition = variants[name](observe);
      for (let k = 0; k < 5; k++) await exposition.text();
      const cpu = process.cpuUsage();
      for (let k = 0; k < 20; k++) await exposition.text();
      const used = process.cpuUsage(cpu);
      const text = await exposition.text();
      const held = text.split('\n').filter((line) => line.startsWith('edgeward_service_terminators{'));
      const overflow = held.some((line) => line.includes('otel_metric_overflow'));
      const ms = (used.user + used.system) / 1000 / 20;
      progress(`${size} series, ${name}, round ${round}: ${ms.toFixed(2)} ms per text, ${held.length} series`);
      lines.push(`| ${size} | ${name} | ${round} | ${ms.toFixed(2)} | ${held.length} | ${overflow ? 'yes' : 'no'} | ${text.length} |`);
      await exposition.shutdown();
    }
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
