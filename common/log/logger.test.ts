import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createJsonLogger } from './logger.ts';

function lines() {
  const written: string[] = [];
  const logger = createJsonLogger({ sink: (line) => written.push(line), component: 'controller', fields: { controllerId: 'ctrl1' }, now: () => new Date(0) });
  return { logger, written };
}

describe('createJsonLogger', () => {
  it('writes level, time, msg and component first, then the bound and given fields', () => {
    const { logger, written } = lines();
    logger.child('cluster').warn('entering read-only mode: different versions detected in cluster', { versions: { a: 'v1' } });
    assert.equal(
      written[0],
      '{"level":"warn","time":"1970-01-01T00:00:00.000Z","msg":"entering read-only mode: different versions detected in cluster","component":"cluster","controllerId":"ctrl1","versions":{"a":"v1"}}',
    );
  });

  it('keeps its own keys: a field named msg, component, level or time is written as field.<name>, nothing lost', () => {
    const { logger, written } = lines();
    logger.child('routers', { component: 'cluster' }).info('router connection refused', { msg: 'cluster running without leader for longer than configured threshold', level: 'error', time: 'then' });
    assert.deepEqual(JSON.parse(written[0]!), {
      level: 'info',
      time: '1970-01-01T00:00:00.000Z',
      msg: 'router connection refused',
      component: 'routers',
      controllerId: 'ctrl1',
      'field.component': 'cluster',
      'field.msg': 'cluster running without leader for longer than configured threshold',
      'field.level': 'error',
      'field.time': 'then',
    });
  });

  it('escapes what a field holds: a quote or newline from a client cannot start another key or line', () => {
    const { logger, written } = lines();
    logger.warn('router connection refused', { reason: 'x","msg":"cluster running without leader\n{"msg":"y"}' });
    assert.equal(written.length, 1);
    assert.ok(!written[0]!.includes('\n'));
    const parsed = JSON.parse(written[0]!);
    assert.equal(parsed.msg, 'router connection refused');
    assert.equal(parsed.reason, 'x","msg":"cluster running without leader\n{"msg":"y"}');
  });
});
