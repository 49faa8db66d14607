// Limits on the structure of JSON from outside (request bodies, peer and control frames, config data): how deep
// containers nest and how many keys and items there are in all. V8 parses deep JSON without trouble, but what runs
// on the result afterwards (JSON.stringify, structuredClone, schema checks, recursive walks) recurses and throws
// RangeError at a few thousand levels; a document of a million tiny members costs far more memory than its bytes.
// Both checks are iterative, so they never recurse themselves: one scans the text before it is parsed, one walks a
// value that is already parsed (a YAML document's data, a command built in code).
import type { KeyPath, PathSegment } from '../config/key-path.ts';

export interface JsonShapeLimits {
  /** Containers (objects and arrays) nested inside one another; the outermost one is depth 1. */
  readonly maxDepth: number;
  /** Keys of every object plus items of every array, counted over the whole document. */
  readonly maxMembers: number;
}

export interface JsonShapeProblem {
  readonly limit: 'depth' | 'members';
  /** Where the limit was passed: the keys and indexes leading there (at most `reportedSegments` of them). */
  readonly path: KeyPath;
  readonly reason: string;
}

/** Paths in problems stop here: the point is where the excess starts, not all 20,000 levels of it. */
const reportedSegments = 16;

interface TextFrame {
  readonly isArray: boolean;
  empty: boolean;
  /** Objects: the next string is a key (after `{` or `,`), not a value (after `:`). */
  expectKey: boolean;
  /** The key or index of the member being read, when it is within the reported part of the path. */
  segment: PathSegment | undefined;
  index: number;
}

const quote = 0x22;
const backslash = 0x5c;

/**
 * Scans JSON text for its structure without parsing it: undefined when within the limits. Text that is not JSON
 * is not judged here (the parser reports it); the scan only follows brackets, commas and strings.
 */
export function jsonTextShapeProblem(text: string, limits: JsonShapeLimits): JsonShapeProblem | undefined {
  const stack: TextFrame[] = [];
  let members = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) continue;
    const top = stack[stack.length - 1];
    if (top && top.empty && code !== 0x5d && code !== 0x7d) {
      top.empty = false;
      members++;
      if (members > limits.maxMembers) return membersProblem(stack, limits);
    }
    if (code === quote) {
      const end = stringEnd(text, i);
      if (top && !top.isArray && top.expectKey) {
        top.expectKey = false;
        top.segment = stack.length <= reportedSegments ? keyText(text, i, end) : undefined;
      }
      i = end;
      continue;
    }
    switch (code) {
      case 0x7b: // {
      case 0x5b: // [
        stack.push({ isArray: code === 0x5b, empty: true, expectKey: code === 0x7b, segment: code === 0x5b ? 0 : undefined, index: 0 });
        if (stack.length > limits.maxDepth) return depthProblem(stack, limits);
        break;
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop();
        break;
      case 0x2c: // ,
        if (!top) break;
        members++;
        if (members > limits.maxMembers) return membersProblem(stack, limits);
        if (top.isArray) top.segment = ++top.index;
        else top.expectKey = true;
        break;
      default:
        break;
    }
  }
  return undefined;
}

/**
 * The same verdict as jsonTextShapeProblem (true exactly when it finds no problem), for hot paths: it keeps only a
 * depth and a count, no path, so it costs about a third of JSON.parse where the full scan costs twice as much (a
 * raft append of 512 entries: 0.4 ms against 1.8 ms). Call jsonTextShapeProblem to describe a text it refuses.
 */
export function jsonTextWithinShape(text: string, limits: JsonShapeLimits): boolean {
  let depth = 0;
  let members = 0;
  // Only the container opened last can still be empty: any other character in it counts a member first.
  let justOpened = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) continue;
    if (justOpened) {
      justOpened = false;
      if (code !== 0x5d && code !== 0x7d && ++members > limits.maxMembers) return false;
    }
    if (code === quote) i = stringEnd(text, i);
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > limits.maxDepth) return false;
      justOpened = true;
    } else if (code === 0x7d || code === 0x5d) {
      if (depth > 0) depth--;
    } else if (code === 0x2c && depth > 0 && ++members > limits.maxMembers) return false;
  }
  return true;
}

/** The index of the closing quote of the string opening at `start` (or the text's end when it never closes). */
function stringEnd(text: string, start: number): number {
  // indexOf runs through long strings natively; a quote preceded by an odd run of backslashes is escaped.
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === backslash) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start, end + 1);
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw.slice(1, -1);
  }
}

function pathOf(stack: readonly TextFrame[]): KeyPath {
  const path: PathSegment[] = [];
  // The innermost frame has only just opened: the path leads to it, through the members of the frames around it.
  for (const frame of stack.slice(0, Math.min(stack.length - 1, reportedSegments))) {
    if (frame.segment === undefined) break;
    path.push(frame.segment);
  }
  return path;
}

function depthProblem(stack: readonly TextFrame[], limits: JsonShapeLimits): JsonShapeProblem {
  return { limit: 'depth', path: pathOf(stack), reason: `nests deeper than ${limits.maxDepth} levels of objects and arrays` };
}

function membersProblem(stack: readonly TextFrame[], limits: JsonShapeLimits): JsonShapeProblem {
  return { limit: 'members', path: pathOf([...stack, { isArray: false, empty: true, expectKey: false, segment: undefined, index: 0 }]), reason: `has more than ${limits.maxMembers} keys and items in all` };
}

/**
 * The same limits over a value already parsed (or built), walked without recursion; undefined when within them.
 * `countShared`: a container referenced from several places (YAML aliases) counts at each of them, as in whatever
 * walks the value afterwards; the limits still end the walk, a cycle's too (it nests without end).
 */
export function valueShapeProblem(value: unknown, limits: JsonShapeLimits, options: { readonly countShared?: boolean } = {}): JsonShapeProblem | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const pending: Array<{ value: object; depth: number; path: KeyPath }> = [{ value, depth: 1, path: [] }];
  let members = 0;
  // Otherwise shared references are walked once; a cycle is walked once too instead of forever.
  const seen = options.countShared ? undefined : new Set<object>();
  while (pending.length > 0) {
    const { value: container, depth, path } = pending.pop()!;
    if (depth > limits.maxDepth) return { limit: 'depth', path: path.slice(0, reportedSegments), reason: `nests deeper than ${limits.maxDepth} levels of objects and arrays` };
    if (seen?.has(container)) continue;
    seen?.add(container);
    const entries: Array<[PathSegment, unknown]> = Array.isArray(container) ? container.map((item, index) => [index, item]) : Object.entries(container);
    members += entries.length;
    if (members > limits.maxMembers) return { limit: 'members', path: path.slice(0, reportedSegments), reason: `has more than ${limits.maxMembers} keys and items in all` };
    for (const [segment, child] of entries) {
      if (child !== null && typeof child === 'object') pending.push({ value: child, depth: depth + 1, path: path.length < reportedSegments ? [...path, segment] : path });
    }
  }
  return undefined;
}
