import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWrkOutput } from './wrk-output.ts';

const sample = `Running 10s test @ https://127.0.0.1:40123/bare
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     5.12ms    1.03ms  48.20ms   91.02%
    Req/Sec     6.25k   312.11     6.90k    70.50%
  124512 requests in 10.01s, 27.31MB read
  Non-2xx or 3xx responses: 3
Requests/sec:  12438.76
Transfer/sec:      2.73MB
BENCH_RESULT {"requests":124512,"durationUs":10010000,"bytes":28637760,"latencyUs":{"p50":4980,"p90":6010,"p99":9120,"max":48200,"mean":5120},"errors":{"connect":0,"read":1,"write":0,"status":3,"timeout":2}}
`;

test('a run reads as requests per second, latency percentiles in ms and error counts', () => {
  const figures = parseWrkOutput(sample);
  assert.equal(figures.requests, 124512);
  assert.equal(figures.durationSeconds, 10.01);
  assert.ok(Math.abs(figures.requestsPerSecond - 12438.76) < 0.01);
  assert.equal(figures.p50Ms, 4.98);
  assert.equal(figures.p99Ms, 9.12);
  assert.equal(figures.maxMs, 48.2);
  assert.equal(figures.bytes, 28637760);
  assert.equal(figures.httpErrors, 3);
  assert.equal(figures.socketErrors, 3);
});

test('output without the summary line, or with a broken one, is refused with the reason', () => {
  assert.throws(() => parseWrkOutput('Requests/sec:  12438.76\n'), /no BENCH_RESULT line/);
  assert.throws(() => parseWrkOutput('BENCH_RESULT {"requests":\n'), /not JSON/);
  assert.throws(() => parseWrkOutput('BENCH_RESULT {"requests":5,"durationUs":1000000,"latencyUs":{"p50":1}}\n'), /"latencyUs.p90"/);
  assert.throws(() => parseWrkOutput(sample.replace('"durationUs":10010000', '"durationUs":0')), /zero duration/);
});

test('status counts, when the script printed them, come back by status; a broken line is refused', () => {
  assert.equal(parseWrkOutput(sample).statuses, undefined);
  const counted = parseWrkOutput(`${sample}BENCH_STATUSES {"200":124000,"429":509,"503":3}\n`);
  assert.deepEqual(counted.statuses, { '200': 124000, '429': 509, '503': 3 });
  assert.throws(() => parseWrkOutput(`${sample}BENCH_STATUSES {"200":\n`), /BENCH_STATUSES line is not JSON/);
  assert.throws(() => parseWrkOutput(`${sample}BENCH_STATUSES {"ok":3}\n`), /bad entry "ok"/);
  assert.throws(() => parseWrkOutput(`${sample}BENCH_STATUSES {"200":-1}\n`), /bad entry "200"/);
});
