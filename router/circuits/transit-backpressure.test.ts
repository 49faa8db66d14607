// The transit bound's accounting: pause past the high-water mark, resume at the low-water mark, and never stay paused
// for bytes a closed link will never take.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TransitBackpressure, type PausableLink } from './transit-backpressure.ts';

class Link implements PausableLink {
  readonly calls: string[] = [];
  constructor(readonly id: string) {}
  pauseReading(): void {
    this.calls.push('pause');
  }
  resumeReading(): void {
    this.calls.push('resume');
  }
}

function setup() {
  const events: string[] = [];
  const transit = new TransitBackpressure({ highWaterBytes: 100, lowWaterBytes: 40 }, {
    paused: (link, queued) => events.push(`paused ${link.id} ${queued}`),
    resumed: (link, queued) => events.push(`resumed ${link.id} ${queued}`),
  });
  return { transit, events };
}

describe('TransitBackpressure', () => {
  it('pauses a link once what it forwarded and is not yet taken goes over the high-water mark, and resumes it at the low-water mark', () => {
    const { transit, events } = setup();
    const a = new Link('a');
    const out = new Link('out');
    const written = [60, 40, 30].map((bytes) => transit.hold(a, out, bytes));
    assert.deepEqual(a.calls, ['pause'], '130 bytes are over 100');
    assert.equal(transit.queuedFrom(a), 130);
    written[0]!();
    assert.deepEqual(a.calls, ['pause'], '70 bytes are still over 40');
    written[1]!();
    assert.deepEqual(a.calls, ['pause', 'resume']);
    assert.deepEqual(events, ['paused a 130', 'resumed a 30']);
    written[1]!();
    assert.equal(transit.queuedFrom(a), 30, 'a callback counts once');
    assert.equal(transit.pauses, 1);
  });

  it('counts each incoming link on its own', () => {
    const { transit } = setup();
    const a = new Link('a');
    const b = new Link('b');
    const out = new Link('out');
    transit.hold(a, out, 90);
    transit.hold(b, out, 90);
    assert.deepEqual([a.calls, b.calls], [[], []]);
    transit.hold(b, out, 20);
    assert.deepEqual([a.calls, b.calls], [[], ['pause']]);
  });

  it('releases what was written to a link that closed, so the links that fed it are read again; late callbacks change nothing', () => {
    const { transit } = setup();
    const a = new Link('a');
    const slow = new Link('slow');
    const other = new Link('other');
    const late = transit.hold(a, slow, 150);
    transit.hold(a, other, 30);
    assert.deepEqual(a.calls, ['pause']);
    transit.linkClosed(slow);
    assert.deepEqual(a.calls, ['pause', 'resume']);
    assert.equal(transit.queuedFrom(a), 30);
    late();
    assert.equal(transit.queuedFrom(a), 30);
  });

  it('forgets a link that closed as a source', () => {
    const { transit } = setup();
    const a = new Link('a');
    const out = new Link('out');
    const written = transit.hold(a, out, 150);
    transit.linkClosed(a);
    assert.equal(transit.isPaused(a), false);
    written();
    assert.deepEqual(a.calls, ['pause'], 'a closed link is not resumed');
  });

  it('refuses marks where the low water is not below the high water', () => {
    assert.throws(() => new TransitBackpressure({ highWaterBytes: 10, lowWaterBytes: 10 }, { paused: () => undefined, resumed: () => undefined }), /low water must be below high water/);
  });
});
