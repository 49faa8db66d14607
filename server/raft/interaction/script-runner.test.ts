// The datadriven script format itself: parsing, rewriting, fenced outputs, diffs and script errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeMismatches, lineDiff, parseScript, runScript, ScriptError } from './script-runner.ts';

const script = `# a comment survives a rewrite
add-nodes 3
----
stale output

# another one

propose n1 x
----
refused: not-leader
`;

test('a rewrite replaces outputs and keeps comments and spacing', () => {
  const run = runScript(script);
  assert.equal(
    run.rewritten,
    `# a comment survives a rewrite
add-nodes 3
----
added n1 n2 n3: voters=(n1 n2 n3)

# another one

propose n1 x
----
refused: not-leader
`,
  );
  assert.equal(runScript(run.rewritten).rewritten, run.rewritten, 'rewriting is idempotent');
});

test('a changed output is reported with its line and a diff of expected against actual', () => {
  const [mismatch, ...rest] = describeMismatches('example.txt', runScript(script));
  assert.equal(rest.length, 0);
  assert.equal(mismatch, ['example.txt:2: add-nodes 3', '- stale output', '+ added n1 n2 n3: voters=(n1 n2 n3)'].join('\n'));
});

test('an output with a blank line is fenced by doubled separators, and read back', () => {
  const chunks = parseScript('status n1\n----\n----\nline one\n\nline three\n----\n----\n\nheal\n----\nhealed\n');
  const cases = chunks.flatMap((chunk) => (chunk.kind === 'case' ? [chunk.case] : []));
  assert.deepEqual(
    cases.map((c) => [c.line, c.command, c.expected]),
    [
      [1, 'status n1', 'line one\n\nline three'],
      [10, 'heal', 'healed'],
    ],
  );
});

test('a malformed script fails with the line at fault, not as an expected output', () => {
  assert.throws(() => runScript('add-nodes 3\n----\nx\n\nfrobnicate n1\n----\n'), (error: Error) => error instanceof ScriptError && /line 5: unknown command "frobnicate"/.test(error.message));
  assert.throws(() => runScript('add-nodes 3\n'), /line 1: expected ----/);
  assert.throws(() => runScript('add-nodes 3 color=red\n----\n'), /unknown option color=/);
  assert.throws(() => runScript('add-nodes 3\n----\n\ndeliver-msgs all type=Apend\n----\n'), /line 4: deliver-msgs: unknown message type Apend/);
});

test('a refusal by the harness or by a core API call is recorded as output', () => {
  const harness = runScript('add-nodes 2\n----\n\ncrash n2\n----\n\npropose n2 x\n----\n\nraft-log n9\n----\n');
  assert.deepEqual(
    harness.results.map((result) => result.actual),
    ['added n1 n2: voters=(n1 n2)', 'n2 crashed', 'error: n2 is down', 'error: no node n9'],
  );
  const core = runScript('add-nodes 1\n----\n\ntick-election n1\n----\n\npropose n1 x=1\n----\n\ntransfer-leadership n1 n9\n----\n\ncompact n1 1\n----\n');
  assert.deepEqual(
    core.results.slice(1).map((result) => result.actual),
    ['n1 campaigns after 10 ticks: leader term 1', 'n1 proposed 2/1', 'error: raft: n9 is not a voter', 'error: raft: cannot compact to 1 without a snapshot covering it'],
  );
});

test('the same script gives the same output every time', () => {
  const text = 'add-nodes 3\n----\n\ntick-election n2\n----\n\nstabilize\n----\n\nstatus all\n----\n';
  assert.equal(runScript(text).rewritten, runScript(text).rewritten);
});

test('lineDiff marks lines only in the expected or only in the actual text', () => {
  assert.deepEqual(lineDiff('a\nb\nc', 'a\nc\nd'), ['  a', '- b', '  c', '+ d']);
  assert.deepEqual(lineDiff('', 'x'), ['+ x']);
});
