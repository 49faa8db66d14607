// The router table rendered to HTML as the page serves it. The suite's loader compiles TSX with the classic runtime,
// so React is made global before the component is loaded (Next compiles it with the automatic one).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';

(globalThis as { React?: unknown }).React = React;
const { RoutersTable } = await import('./routers-table.tsx');

test('the router table shows each router\'s edge connections, a dash when it does not report them', () => {
  const html = renderToStaticMarkup(
    React.createElement(RoutersTable, {
      routers: [
        { id: 'r1', connected: true, controllers: ['ctrl1'], links: [], edge: { channels: 2, connections: 1 } },
        { id: 'r2', connected: true, controllers: ['ctrl2'], links: [] },
      ],
    }),
  );
  assert.match(html, /<th scope="col">Edge connections<\/th>/);
  const cells = [...html.matchAll(/<td data-testid="router-edge">([^<]*)<\/td>/g)].map((match) => match[1]);
  assert.deepEqual(cells, ['2 SDK channels, 1 connection', '—']);
});
