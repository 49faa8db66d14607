// YAML text → plain JS data, plus a map from key paths back to source lines so every problem can say where it is.

import { LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { parseKeyPath } from './key-path.ts';
import type { KeyPath } from './key-path.ts';
import type { ConfigProblem } from './problem.ts';

export interface YamlSource {
  /** The document as plain data (maps → objects, sequences → arrays); undefined when the text has syntax errors. */
  readonly data: unknown;
  /** Syntax errors (and the parser's warnings) with their lines. */
  readonly problems: readonly ConfigProblem[];
  /** 1-based line of a key (or list item) given as segments or as text like `web[0].bindPoints[0].address`. */
  lineOf(path: KeyPath | string): number | undefined;
  /** A scalar value exactly as written (`3.0` where the data holds 3); undefined when it is not a scalar or absent. */
  sourceOf(path: KeyPath | string): string | undefined;
}

// Same guard as the parser's default, stated here because config files come from users.
const MAX_ALIAS_COUNT = 100;

export function parseYamlSource(text: string): YamlSource {
  const lineCounter = new LineCounter();
  // merge: Go's YAML libraries honour `<<` merge keys, so shared blocks in existing files keep working.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, merge: true });
  const lineAt = (offset: number): number => lineCounter.linePos(offset).line;

  const problems: ConfigProblem[] = [
    ...doc.errors.map((error) => syntaxProblem('error', error.message, lineAt(error.pos[0]), error.code)),
    ...doc.warnings.map((warning) => syntaxProblem('warning', warning.message, lineAt(warning.pos[0]), warning.code)),
  ];

  let data: unknown;
  if (doc.errors.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      problems.push(syntaxProblem('error', error instanceof Error ? error.message : String(error), undefined, 'TO_JS'));
    }
  }

  return {
    data,
    problems,
    lineOf(path) {
      const offset = find(doc, path)?.offset;
      return offset === undefined ? undefined : lineAt(offset);
    },
    sourceOf(path) {
      const node = find(doc, path)?.value;
      return isScalar(node) && typeof node.source === 'string' ? node.source : undefined;
    },
  };
}

function find(doc: Document, path: KeyPath | string): { offset: number | undefined; value: unknown } | undefined {
  const segments = typeof path === 'string' ? parseKeyPath(path) : path;
  if (segments === undefined || segments.length === 0) return undefined;
  return entryOf(doc, doc.contents, segments);
}

function syntaxProblem(severity: ConfigProblem['severity'], message: string, line: number | undefined, code: string): ConfigProblem {
  return { severity, path: '', ...(line === undefined ? {} : { line }), rule: 'yaml-syntax', message: `${message} (${code})` };
}

/** The offset of the key (map entry) or item (list entry) that `path` names, and its value node, through aliases and merges. */
function entryOf(doc: Document, start: unknown, path: KeyPath): { offset: number | undefined; value: unknown } | undefined {
  let node = deref(doc, start);
  let offset: number | undefined;
  for (const segment of path) {
    let found: { offset: number | undefined; value: unknown } | undefined;
    if (typeof segment === 'number' && isSeq(node)) {
      const item: unknown = node.items[segment];
      if (item !== undefined) found = { offset: rangeStart(isPair(item) ? item.key : item), value: isPair(item) ? item.value : item };
    } else if (typeof segment === 'string' && isMap(node)) {
      found = findPair(doc, node.items, segment);
    }
    if (found === undefined) return undefined;
    offset = found.offset;
    node = deref(doc, found.value);
  }
  return { offset, value: node };
}

function findPair(doc: Document, pairs: readonly unknown[], key: string): { offset: number | undefined; value: unknown } | undefined {
  for (const pair of pairs) {
    if (isPair(pair) && keyText(pair.key) === key) return { offset: rangeStart(pair.key), value: pair.value };
  }
  // Not written here: it may come from a `<<: *anchor` merge, whose source map holds the line.
  for (const pair of pairs) {
    if (!isPair(pair) || !isScalar(pair.key) || typeof pair.key.value !== 'symbol') continue;
    const sources = deref(doc, pair.value);
    for (const source of isSeq(sources) ? sources.items.map((item) => deref(doc, item)) : [sources]) {
      if (!isMap(source)) continue;
      const found = findPair(doc, source.items, key);
      if (found) return found;
    }
  }
  return undefined;
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return key.value === null ? '' : typeof key.value === 'symbol' ? undefined : String(key.value);
  return undefined;
}

function deref(doc: Document, node: unknown): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

function rangeStart(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = (node as { range?: readonly number[] | null }).range;
  return range ? range[0] : undefined;
}
