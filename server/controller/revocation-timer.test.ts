// The pruning driver: only the leader prunes; a run that removed rows logs the count, a failed one logs a warning
// and the next interval tries again; stopping ends the runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { startRevocationPruning } from './revocation-timer.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('the leader prunes each interval, logs what it removed and what failed; a follower does not prune', async () => {
  const logger = createMemoryLogger();
  let leader = false;
  const answers: Array<number | Error> = [2, new Error('no leader'), 0];
  let calls = 0;
  const stop = startRevocationPruning(
    {
      prune: async () => {
        calls++;
        const answer = answers.shift() ?? 0;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
    () => leader,
    logger,
    20,
  );
  await tick(70);
  assert.equal(calls, 0, 'a follower never prunes');
  leader = true;
  const deadline = Date.now() + 5000;
  while (calls < 3 && Date.now() < deadline) await tick(10);
  stop();
  const after = calls;
  await tick(70);
  assert.equal(calls, after, 'no run after stop');
  assert.deepEqual(
    logger.lines.map((line) => [line.level, line.msg, line.count ?? line.error]),
    [
      ['info', 'expired revocations removed', 2],
      ['warn', 'revocation prune failed', 'no leader'],
    ],
  );
});
