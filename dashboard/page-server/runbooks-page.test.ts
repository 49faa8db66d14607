// The runbooks page the status page serves at /runbooks: every heading of docs/runbooks.md an anchor where GitHub
// puts it, every in-page link landing on one, shell comments in code blocks left as code, and no markup from the
// markdown's text reaching the page unescaped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { alertCatalogue, defaultRunbookBase, runbookAnchor } from '../../alerts/catalogue/alert-catalogue.ts';
import { parseDashboardConfig } from '../config/dashboard-config.ts';
import { headingAnchor, runbooksPage, runbooksPath } from './runbooks-page.ts';

const runbooks = readFileSync(new URL('../../docs/runbooks.md', import.meta.url), 'utf8');
const ids = (html: string) => [...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]!);

test('each alert of the catalogue has its section at the anchor its runbook_url names', () => {
  const anchors = new Set(ids(runbooksPage(runbooks)));
  for (const alert of alertCatalogue) assert.ok(anchors.has(runbookAnchor(alert.name)), `#${runbookAnchor(alert.name)}`);
});

test('every heading outside code blocks is an anchor, and the page\'s own links land on them', () => {
  const html = runbooksPage(runbooks);
  const anchors = ids(html);
  assert.equal(new Set(anchors).size, anchors.length, 'anchors are unique');
  let inFence = false;
  const headings = runbooks.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) inFence = !inFence;
    return !inFence && /^#{1,6} /.test(line);
  });
  assert.equal(anchors.length, headings.length);
  const links = [...html.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]!);
  assert.ok(links.length > headings.length, 'headings link to themselves, and the text links between sections');
  for (const link of links) assert.ok(anchors.includes(link), `#${link} lands on a heading`);
});

test('headings get GitHub\'s anchors; code keeps its # lines; text is escaped; other documents are named, not linked', () => {
  assert.equal(headingAnchor('Peer refused: not a member'), 'peer-refused-not-a-member');
  assert.equal(headingAnchor('A real page or noise'), 'a-real-page-or-noise');
  const html = runbooksPage([
    '# Runbooks',
    '',
    'See [the daemon](alerts.md#x), [Leaderless](#leaderless) and <script>alert(1)</script> `a<b`.',
    '',
    '## Leaderless',
    '',
    '```sh',
    '# not a heading',
    'curl -s "https://x?a=1&b=2"',
    '```',
    '',
    '- one',
    '  continued',
    '- two',
    '',
    '| a | b |',
    '|---|---|',
    '## Leaderless',
  ].join('\n'));
  assert.deepEqual(ids(html), ['runbooks', 'leaderless', 'leaderless-1']);
  assert.match(html, /<pre><code># not a heading\ncurl -s &quot;https:\/\/x\?a=1&amp;b=2&quot;<\/code><\/pre>/);
  assert.ok(!html.includes('<script>'));
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt; <code>a&lt;b<\/code>/);
  assert.match(html, /See the daemon, <a href="#leaderless">Leaderless<\/a>/);
  assert.match(html, /<ul><li>one continued<\/li><li>two<\/li><\/ul>/);
  assert.match(html, /<pre class="table">\| a \| b \|\n\|---\|---\|<\/pre>/);
});

test('the alerts\' default runbook base is this page\'s runbooks at the status page\'s default address', () => {
  const { config } = parseDashboardConfig('controllers:\n  - id: ctrl1\n    url: http://127.0.0.1:1280\n', { file: 'dashboard.yml', env: {} });
  const base = new URL(defaultRunbookBase);
  assert.equal(base.pathname, runbooksPath);
  assert.equal(`${base.hostname}:${base.port}`, `${config!.listen.host}:${config!.listen.port}`);
  assert.equal(config!.runbookBaseUrl, runbooksPath, 'the page links its own runbooks when the daemon\'s links are relative');
});
