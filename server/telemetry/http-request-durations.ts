// Request durations by API and status class: the histogram behind `edgeward_http_request_duration_seconds`.
// Recording finds the series through two map lookups and adds to its bucket, with no allocation after a series'
// first request; the exposition reads the cells at scrape time as an OpenTelemetry histogram metric, so the text is
// the same as an SDK histogram's. (The SDK's synchronous histogram hashes its attributes on every
// record, the largest single cost metrics put on a request.) Pure apart from the start time it is given.
import type { Attributes, HrTime } from '@opentelemetry/api';
import { ValueType } from '@opentelemetry/api';
import { AggregationTemporality, DataPointType, type HistogramMetricData } from '@opentelemetry/sdk-metrics';

interface Cell {
  readonly attributes: Attributes;
  /** counts[i]: durations ≤ boundaries[i] and above the one before; the last: above every boundary. */
  readonly counts: number[];
  count: number;
  sum: number;
  min: number;
  max: number;
}

export interface HistogramDescriptor {
  /** As an SDK instrument's name: `http.request.duration.seconds` is exposed as `<prefix>_http_request_duration_seconds`. */
  readonly name: string;
  readonly description: string;
  /** Ascending upper bounds, as `explicitBucketBoundaries`. */
  readonly boundaries: readonly number[];
}

export class HttpRequestDurations {
  private readonly byApi = new Map<string, Cell[]>();
  private readonly cells: Cell[] = [];

  constructor(
    private readonly descriptor: HistogramDescriptor,
    private readonly startTime: HrTime,
  ) {
    for (let i = 1; i < descriptor.boundaries.length; i++) {
      if (!(descriptor.boundaries[i]! > descriptor.boundaries[i - 1]!)) throw new Error(`${descriptor.name}: bucket boundaries must ascend`);
    }
  }

  /** One request answered with `status` after `seconds`. */
  record(api: string, status: number, seconds: number): void {
    let byClass = this.byApi.get(api);
    if (!byClass) this.byApi.set(api, (byClass = []));
    const digit = Math.floor(status / 100);
    const slot = digit >= 1 && digit <= 5 ? digit : 0;
    let cell = byClass[slot];
    if (!cell) {
      cell = {
        attributes: Object.freeze({ api, status_class: slot === 0 ? 'other' : `${slot}xx` }),
        counts: new Array<number>(this.descriptor.boundaries.length + 1).fill(0),
        count: 0,
        sum: 0,
        min: Infinity,
        max: -Infinity,
      };
      byClass[slot] = cell;
      this.cells.push(cell);
    }
    const boundaries = this.descriptor.boundaries;
    let bucket = 0;
    while (bucket < boundaries.length && seconds > boundaries[bucket]!) bucket++;
    cell.counts[bucket]!++;
    cell.count++;
    cell.sum += seconds;
    if (seconds < cell.min) cell.min = seconds;
    if (seconds > cell.max) cell.max = seconds;
  }

  /** The series so far as one cumulative histogram metric. */
  collect(now: HrTime): HistogramMetricData {
    return {
      descriptor: { name: this.descriptor.name, description: this.descriptor.description, unit: '', valueType: ValueType.DOUBLE },
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: this.cells.map((cell) => ({
        attributes: cell.attributes,
        startTime: this.startTime,
        endTime: now,
        value: {
          buckets: { boundaries: [...this.descriptor.boundaries], counts: [...cell.counts] },
          count: cell.count,
          sum: cell.sum,
          min: cell.min,
          max: cell.max,
        },
      })),
    };
  }
}
