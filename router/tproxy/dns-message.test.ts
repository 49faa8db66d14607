import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dnsAnswer, dnsFormatError, dnsRcodes, parseDnsQuery } from './dns-message.ts';

function query(name: string, type = 1, id = 0x1234, flags = 0x0100): Buffer {
  const labels = name.split('.').map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'latin1')]));
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(type, 0);
  tail.writeUInt16BE(1, 2);
  return Buffer.concat([header, ...labels, Buffer.from([0]), tail]);
}

describe('dns messages', () => {
  it('reads a query in lower case and answers it with A records behind the echoed question', () => {
    const parsed = parseDnsQuery(query('Echo.Ziti'))!;
    assert.deepEqual(parsed.question, { name: 'echo.ziti', type: 1, klass: 1 });
    assert.equal(parsed.recursionDesired, true);
    const answer = dnsAnswer(parsed, dnsRcodes.NOERROR, ['100.64.0.3', '10.0.0.1']);
    assert.equal(answer.readUInt16BE(0), 0x1234);
    assert.equal(answer.readUInt16BE(2), 0x8000 | 0x0400 | 0x0100);
    assert.equal(answer.readUInt16BE(6), 2, 'two answers');
    const first = 12 + parsed.questionBytes.length;
    assert.equal(answer.readUInt16BE(first), 0xc00c);
    assert.deepEqual([...answer.subarray(first + 12, first + 16)], [100, 64, 0, 3]);
    assert.equal(answer.length, first + 32);
  });

  it('NXDOMAIN carries no answer', () => {
    const answer = dnsAnswer(parseDnsQuery(query('nope.ziti'))!, dnsRcodes.NXDOMAIN);
    assert.equal(answer.readUInt16BE(2) & 0xf, 3);
    assert.equal(answer.readUInt16BE(6), 0);
  });

  it('drops what is not one well-formed question: responses, two questions, compression, truncation, oversize', () => {
    assert.equal(parseDnsQuery(query('a.b', 1, 1, 0x8100)), undefined, 'a response');
    const two = query('a.b');
    two.writeUInt16BE(2, 4);
    assert.equal(parseDnsQuery(two), undefined);
    const pointer = Buffer.concat([query('a.b').subarray(0, 12), Buffer.from([0xc0, 0x0c, 0, 1, 0, 1])]);
    assert.equal(parseDnsQuery(pointer), undefined);
    assert.equal(parseDnsQuery(query('a.b').subarray(0, 16)), undefined);
    assert.equal(parseDnsQuery(Buffer.alloc(600)), undefined);
    assert.equal(parseDnsQuery(Buffer.alloc(4)), undefined);
    assert.equal(dnsFormatError(Buffer.alloc(4)), undefined);
    assert.equal(dnsFormatError(query('a.b'))!.readUInt16BE(2), 0x8001);
  });
});
