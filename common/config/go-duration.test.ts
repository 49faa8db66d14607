import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, parseGoDuration } from './go-duration.ts';

describe('parseGoDuration', () => {
  it('reads single units as milliseconds', () => {
    assert.equal(parseGoDuration('500ms'), 500);
    assert.equal(parseGoDuration('15s'), 15_000);
    assert.equal(parseGoDuration('2m'), 120_000);
    assert.equal(parseGoDuration('24h'), 86_400_000);
    assert.equal(parseGoDuration('1500us'), 1.5);
    assert.equal(parseGoDuration('1500µs'), 1.5);
    assert.equal(parseGoDuration('1500μs'), 1.5);
    assert.equal(parseGoDuration('2000000ns'), 2);
  });

  it('reads combinations and fractions the way Go does', () => {
    assert.equal(parseGoDuration('1m30s'), 90_000);
    assert.equal(parseGoDuration('1h30m'), 5_400_000);
    assert.equal(parseGoDuration('1.5h'), 5_400_000);
    assert.equal(parseGoDuration('0.1s'), 100);
    assert.equal(parseGoDuration('.5s'), 500);
    assert.equal(parseGoDuration('1.s'), 1_000);
    assert.equal(parseGoDuration('5m20s'), 320_000);
    assert.equal(parseGoDuration('1h1m1s1ms'), 3_661_001);
    assert.equal(parseGoDuration('1s1s'), 2_000, 'Go sums repeated units');
  });

  it('accepts a bare 0 and an optional sign', () => {
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('+0'), 0);
    assert.equal(parseGoDuration('0s'), 0);
    assert.equal(parseGoDuration('+5s'), 5_000);
    assert.equal(parseGoDuration('-1m'), -60_000);
  });

  it('rejects text Go rejects', () => {
    for (const bad of ['', '1', '10', 's', '.s', '1d', '1 s', ' 1s', '1s ', '1h-5m', '1S', '1sec', 'abc', '-', '1s30', '1..5s', '1e3s']) {
      assert.equal(parseGoDuration(bad), undefined, JSON.stringify(bad));
    }
  });

  it('rejects values beyond the range of a Go duration', () => {
    assert.equal(parseGoDuration('2562047h'), 2_562_047 * 3_600_000);
    assert.equal(parseGoDuration('2562048h'), undefined);
  });
});

describe('formatDuration', () => {
  it('gives the shortest Go-like form', () => {
    assert.equal(formatDuration(15_000), '15s');
    assert.equal(formatDuration(90_000), '1m30s');
    assert.equal(formatDuration(500), '500ms');
    assert.equal(formatDuration(7_200_000), '2h');
    assert.equal(formatDuration(3_605_000), '1h5s');
    assert.equal(formatDuration(1_500), '1.5s');
    assert.equal(formatDuration(60_500), '1m0.5s');
    assert.equal(formatDuration(0), '0s');
    assert.equal(formatDuration(1.5), '1.5ms');
    assert.equal(formatDuration(0.0015), '1.5µs');
    assert.equal(formatDuration(0.0005), '500ns');
    assert.equal(formatDuration(604_800_000), '168h');
    assert.equal(formatDuration(-2_000), '-2s');
  });

  it('round-trips through parseGoDuration', () => {
    for (const ms of [0, 1, 100, 999, 1_000, 1_001, 59_999, 90_000, 3_600_000, 5_400_000, 86_400_000, 0.25, 12_345_678]) {
      assert.equal(parseGoDuration(formatDuration(ms)), ms, `${ms} → ${formatDuration(ms)}`);
    }
  });
});
