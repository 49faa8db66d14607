import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EdgeError } from '../edge/edge-error.ts';
import { httpStatusOf } from './api-error.ts';
import { bodyShapeLimits } from './body-shape-limits.ts';
import { parseJsonBody } from './request-body.ts';

const json = 'application/json';

/** The EdgeError a body is refused with. */
function refusal(text: string, contentType = json): EdgeError {
  try {
    parseJsonBody(Buffer.from(text), contentType);
  } catch (error) {
    if (error instanceof EdgeError) return error;
    throw error;
  }
  assert.fail(`accepted: ${text.slice(0, 80)}`);
}

const nested = (depth: number, leaf = '{}') => '{"a":'.repeat(depth - 1) + leaf + '}'.repeat(depth - 1);

test('a body nested deeper than the limit is refused with 400 INVALID_FIELD naming where, before it is parsed', () => {
  const body = `{"name":"deep","isAdmin":false,"tags":${nested(20_000)}}`;
  const error = refusal(body);
  assert.equal(error.code, 'INVALID_FIELD');
  assert.equal(httpStatusOf(error), 400);
  const cause = error.cause as { field: string; reason: string; value?: unknown };
  assert.match(cause.field, /^tags\.a\.a\.a/);
  assert.match(cause.reason, new RegExp(`deeper than ${bodyShapeLimits.maxDepth} levels`));
  assert.equal('value' in cause, false, 'the value is never echoed');

  const arrays = refusal(`{"roleAttributes":${'['.repeat(100)}${']'.repeat(100)}}`);
  assert.equal(arrays.code, 'INVALID_FIELD');
  assert.match((arrays.cause as { field: string }).field, /^roleAttributes\[0\]\[0\]/);
  assert.equal((refusal('['.repeat(100_000)).cause as { field: string }).field.startsWith('[0][0]'), true, 'unclosed nesting too');
});

test('a body holding more keys and items than the limit is refused, in one object or spread out', () => {
  const wide = JSON.stringify({ tags: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i])) });
  const error = refusal(wide);
  assert.equal(error.code, 'INVALID_FIELD');
  assert.match((error.cause as { field: string }).field, /^tags\b/);
  assert.match((error.cause as { reason: string }).reason, new RegExp(`more than ${bodyShapeLimits.maxMembers} keys and items`));
  assert.equal(refusal(JSON.stringify(Array.from({ length: 20_000 }, () => 0))).code, 'INVALID_FIELD');
});

test('bodies within the limits parse as before; the limits are exact', () => {
  assert.deepEqual(parseJsonBody(Buffer.from(nested(bodyShapeLimits.maxDepth, '1')), json), JSON.parse(nested(bodyShapeLimits.maxDepth, '1')));
  assert.equal(refusal(nested(bodyShapeLimits.maxDepth + 1)).code, 'INVALID_FIELD');
  const atLimit = JSON.stringify(Array.from({ length: bodyShapeLimits.maxMembers }, () => 0));
  assert.equal((parseJsonBody(Buffer.from(atLimit), json) as unknown[]).length, bodyShapeLimits.maxMembers);
  assert.equal(parseJsonBody(Buffer.from('  '), json), undefined);
  assert.deepEqual(parseJsonBody(Buffer.from('{"a":"[[[[{{{{"}'), undefined), { a: '[[[[{{{{' }, 'brackets inside strings do not count');
});

test('a long key in the path is clipped, not sent back whole', () => {
  const key = 'k'.repeat(100_000);
  const error = refusal(`{"${key}":${nested(100)}}`);
  assert.ok((error.cause as { field: string }).field.length < 200);
});

test('malformed JSON is 400 COULD_NOT_PARSE_BODY without quoting the text around the fault', () => {
  for (const text of ['{"username":"admin","password":hunter2-secret}', '{"password":"hunter2-secret",}', '{"password": "hunter2-secret"']) {
    const error = refusal(text);
    assert.equal(error.code, 'COULD_NOT_PARSE_BODY');
    assert.doesNotMatch(JSON.stringify(error.cause), /hunter2/, text);
  }
  assert.equal(refusal('<xml/>', 'text/xml').code, 'UNSUPPORTED_MEDIA_TYPE');
});
