import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { controllerResource } from './controller-resource.ts';
import { nodeSdkConfiguration, telemetryPlan } from './process-telemetry.ts';
import { PrometheusExposition } from './prometheus-exposition.ts';

const noOtlp = { serviceName: 'edgeward-controller' };
const withOtlp = { serviceName: 'edgeward-controller', otlp: { endpoint: 'http://collector:4318', headers: { authorization: 'Bearer t' }, timeout: 2000 } };

test('traces are off unless ctrl.yml or the standard variables name an endpoint; ctrl.yml comes first', () => {
  assert.equal(telemetryPlan(noOtlp, {}).traces, undefined);
  assert.equal(telemetryPlan(noOtlp, { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://x:4318', OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://x:4318', OTEL_TRACES_EXPORTER: 'otlp' }).traces, undefined, 'other signals\' variables do not turn traces on');
  assert.deepEqual(telemetryPlan(withOtlp, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://elsewhere:4318' }).traces, {
    url: 'http://collector:4318/v1/traces',
    headers: { authorization: 'Bearer t' },
    timeoutMs: 2000,
    source: 'telemetry.otlp.endpoint',
  });
  assert.deepEqual(telemetryPlan(noOtlp, { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector/otlp/' }).traces, { url: 'https://collector/otlp/v1/traces', headers: {}, source: 'OTEL_EXPORTER_OTLP_ENDPOINT' });
  assert.deepEqual(telemetryPlan(noOtlp, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom' }).traces, {
    url: 'http://traces:4318/custom',
    headers: {},
    source: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  });
});

test('an unusable variable is reported and ignored; OTEL_SDK_DISABLED turns traces off', () => {
  const plan = telemetryPlan(noOtlp, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4317', OTEL_EXPORTER_OTLP_ENDPOINT: '  ' });
  assert.equal(plan.traces, undefined);
  assert.equal(plan.warnings.length, 1);
  assert.match(plan.warnings[0]!, /^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http/);
  const disabled = telemetryPlan(withOtlp, { OTEL_SDK_DISABLED: 'TRUE' });
  assert.equal(disabled.sdkDisabled, true);
  assert.equal(disabled.traces, undefined);
});

test('with no endpoint NodeSDK gets no span processor, no log processor and no reader but the Prometheus one', async () => {
  const exposition = new PrometheusExposition();
  try {
    const configuration = nodeSdkConfiguration(telemetryPlan(noOtlp, {}), controllerResource({ id: 'c1', version: 'v1' }), exposition);
    // Every option whose absence makes NodeSDK read OTEL_* defaults (and export to localhost:4318) is given.
    assert.deepEqual(configuration.spanProcessors, []);
    assert.deepEqual(configuration.logRecordProcessors, []);
    assert.deepEqual(configuration.metricReaders, [exposition.reader]);
    assert.equal(configuration.autoDetectResources, false);
    assert.equal(configuration.textMapPropagator, null);
    assert.ok(configuration.sampler);
    assert.ok(configuration.resource);
    assert.deepEqual(configuration.instrumentations, []);
    assert.equal(configuration.traceExporter, undefined);
    assert.equal(configuration.resource?.attributes['service.instance.id'], 'c1');
  } finally {
    await exposition.shutdown();
  }
});

test('with an endpoint, spans leave through one batch processor', async () => {
  const exposition = new PrometheusExposition();
  try {
    const configuration = nodeSdkConfiguration(telemetryPlan(withOtlp, {}), controllerResource({ id: 'c1', version: 'v1' }), exposition);
    assert.equal(configuration.spanProcessors?.length, 1);
    assert.ok(configuration.spanProcessors?.[0] instanceof BatchSpanProcessor);
    await configuration.spanProcessors?.[0]?.shutdown();
  } finally {
    await exposition.shutdown();
  }
});
