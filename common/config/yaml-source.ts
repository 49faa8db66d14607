// YAML text → plain JS data, plus a map from key paths back to source lines so every problem can say where it is.
// Config files come from users, so the text is held to limits before it is parsed (bytes, then nesting depth and
// keys and items, scanned without recursion: yaml-text-shape.ts) and the data after (aliases expand in everything
// that walks it later, so they count at each use).

import { LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { valueShapeProblem } from '../json/json-shape.ts';
import { formatKeyPath, parseKeyPath } from './key-path.ts';
import type { KeyPath } from './key-path.ts';
import type { ConfigProblem } from './problem.ts';
import { yamlTextShapeProblem } from './yaml-text-shape.ts';

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

export interface YamlLimits {
  /** UTF-8 bytes of the whole file. */
  readonly maxBytes: number;
  /** Mappings and sequences nested inside one another; the document's top level is depth 1. */
  readonly maxDepth: number;
  /** Keys of every mapping plus items of every sequence, aliases counted at each use. */
  readonly maxMembers: number;
}

/** Far above any real config (the largest examples nest 6 deep with a few hundred keys), far below what hurts. */
export const yamlLimits: YamlLimits = { maxBytes: 1024 * 1024, maxDepth: 64, maxMembers: 100_000 };

export function parseYamlSource(text: string, limits: YamlLimits = yamlLimits): YamlSource {
  const refused = refuseOverLimits(text, limits);
  if (refused) return refused;
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
  const lineOf = (path: KeyPath | string): number | undefined => {
    const offset = find(doc, path)?.offset;
    return offset === undefined ? undefined : lineAt(offset);
  };
  // Aliases can make the data nest deeper or hold more than the text does; a problem here stops everything after.
  const shape = valueShapeProblem(data, limits, { countShared: true });
  if (shape) {
    const cycle = shape.limit === 'depth' && refersToItself(data);
    const line = nearestLine(lineOf, shape.path);
    problems.push({
      severity: 'error',
      path: formatKeyPath(shape.path),
      ...(line === undefined ? {} : { line }),
      rule: shape.limit === 'depth' ? 'yaml-max-depth' : 'yaml-max-members',
      message: cycle ? 'an alias refers to the collection that holds it, so the data nests without end' : `the document ${shape.reason}${usingAliases(text)}`,
    });
    data = undefined;
  }

  return {
    data,
    problems,
    lineOf,
    sourceOf(path) {
      const node = find(doc, path)?.value;
      return isScalar(node) && typeof node.source === 'string' ? node.source : undefined;
    },
  };
}

/** The limits a file breaks that can be told without parsing it: its size, then the shape of its text. */
function refuseOverLimits(text: string, limits: YamlLimits): YamlSource | undefined {
  let problem: ConfigProblem | undefined;
  // At most 3 bytes per UTF-16 unit: only a text that might be too long is measured.
  const bytes = text.length * 3 > limits.maxBytes ? Buffer.byteLength(text, 'utf8') : text.length;
  if (bytes > limits.maxBytes) {
    problem = { severity: 'error', path: '', rule: 'yaml-max-bytes', message: `the file is ${bytes} bytes, over the limit of ${limits.maxBytes}; it was not parsed` };
  } else {
    const shape = yamlTextShapeProblem(text, limits);
    if (shape) {
      problem = { severity: 'error', path: '', line: shape.line, rule: shape.limit === 'depth' ? 'yaml-max-depth' : 'yaml-max-members', message: `the document ${shape.reason}; it was not parsed` };
    }
  }
  if (!problem) return undefined;
  return { data: undefined, problems: [problem], lineOf: () => undefined, sourceOf: () => undefined };
}

/** The line of `path`, or of its nearest ancestor written in the file. */
function nearestLine(lineOf: (path: KeyPath) => number | undefined, path: KeyPath): number | undefined {
  for (let length = path.length; length > 0; length--) {
    const line = lineOf(path.slice(0, length));
    if (line !== undefined) return line;
  }
  return undefined;
}

function usingAliases(text: string): string {
  return /(^|[\s,[{])\*[^\s,[\]{}]/.test(text) ? ' once its aliases are expanded' : '';
}

/** Whether a container holds itself (an alias inside its own anchor), found by a walk that never recurses. */
function refersToItself(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  // Depth-first, with each container on the current path marked until all its children are done.
  const onPath = new Set<object>();
  const done = new Set<object>();
  const stack: Array<{ node: object; children: unknown[] | undefined }> = [{ node: value, children: undefined }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.children === undefined) {
      onPath.add(top.node);
      top.children = Array.isArray(top.node) ? [...top.node] : Object.values(top.node);
    }
    const child = top.children.pop();
    if (child === undefined && top.children.length === 0) {
      onPath.delete(top.node);
      done.add(top.node);
      stack.pop();
      continue;
    }
    if (child === null || typeof child !== 'object' || done.has(child)) continue;
    if (onPath.has(child)) return true;
    stack.push({ node: child, children: undefined });
  }
  return false;
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
