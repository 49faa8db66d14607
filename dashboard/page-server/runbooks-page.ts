// docs/runbooks.md as the HTML page the status page serves at /runbooks, so that an alert's runbook_url
// (`<base>/runbooks#<alert name in lower case>`) opens at its section on any browser, a phone's included. Headings
// get GitHub's anchors (the ones the docs' own links use); code blocks, lists and tables stay as the markdown
// writes them, with code spans and in-page or web links made live. Pure: markdown text in, HTML text out.

/** Where the status page serves this page. */
export const runbooksPath = '/runbooks';

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** GitHub's anchor for a heading: lower case, punctuation dropped (but `-` and `_`), spaces as `-`. */
export function headingAnchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** Code spans, and links that lead somewhere from this page (in-page anchors, web URLs); other links as text. */
function inline(text: string): string {
  const parts = text.split(/(`[^`]*`)/);
  return parts
    .map((part) => {
      if (part.length >= 2 && part.startsWith('`') && part.endsWith('`')) return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      let out = '';
      let rest = part;
      const link = /\[([^\]]+)\]\(([^)\s]+)\)/;
      for (let match = link.exec(rest); match; match = link.exec(rest)) {
        out += escapeHtml(rest.slice(0, match.index));
        const [whole, label, href] = match as unknown as [string, string, string];
        out += /^(#|https?:\/\/)/.test(href) ? `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>` : escapeHtml(label);
        rest = rest.slice(match.index + whole.length);
      }
      return out + escapeHtml(rest);
    })
    .join('');
}

function block(lines: readonly string[]): string {
  const first = lines[0]!;
  if (first.startsWith('|')) return `<pre class="table">${escapeHtml(lines.join('\n'))}</pre>`;
  if (/^\s*([-*]|\d+\.)\s/.test(first)) {
    const items: string[][] = [];
    for (const line of lines) {
      if (/^\s*([-*]|\d+\.)\s/.test(line) || items.length === 0) items.push([line.replace(/^\s*([-*]|\d+\.)\s+/, '')]);
      else items[items.length - 1]!.push(line.trim());
    }
    return `<ul>${items.map((item) => `<li>${inline(item.join(' '))}</li>`).join('')}</ul>`;
  }
  return `<p>${inline(lines.map((line) => line.trim()).join(' '))}</p>`;
}

/** The whole page: every heading an anchor, the markdown's blocks in order. */
export function runbooksPage(markdown: string): string {
  const out: string[] = [];
  const used = new Map<string, number>();
  let paragraph: string[] = [];
  let fence: string[] | undefined;
  const flush = () => {
    if (paragraph.length > 0) out.push(block(paragraph));
    paragraph = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    if (fence) {
      if (/^\s*```/.test(line)) {
        out.push(`<pre><code>${escapeHtml(fence.join('\n'))}</code></pre>`);
        fence = undefined;
      } else fence.push(line);
      continue;
    }
    if (/^\s*```/.test(line)) {
      flush();
      fence = [];
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      const level = heading[1]!.length;
      const base = headingAnchor(heading[2]!);
      const seen = used.get(base) ?? 0;
      used.set(base, seen + 1);
      const anchor = seen === 0 ? base : `${base}-${seen}`;
      out.push(`<h${level} id="${escapeHtml(anchor)}"><a href="#${escapeHtml(anchor)}">${inline(heading[2]!)}</a></h${level}>`);
      continue;
    }
    if (line.trim() === '') flush();
    else paragraph.push(line);
  }
  flush();
  if (fence) out.push(`<pre><code>${escapeHtml(fence.join('\n'))}</code></pre>`);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>edgeward runbooks</title>',
    // Long commands wrap rather than widen the page past a phone's screen.
    '<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:0 1rem;line-height:1.5}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f3f4f6;padding:.5rem}h1 a,h2 a,h3 a,h4 a{color:inherit;text-decoration:none}</style></head>',
    `<body><main>${out.join('\n')}</main></body></html>`,
    '',
  ].join('\n');
}
