// How deep YAML text nests and how many keys and items it holds, measured on the text before it is parsed. The
// parser and its composer recurse once per level and build a node for every member: a few thousand levels, or a
// megabyte of one-character items (466 MB of heap and 1.6 s), is enough to exhaust a process that only wanted to
// check a config file. The scan runs the yaml package's own lexer (a state machine, no recursion), so brackets in
// quoted strings, comments and block scalars are told apart exactly as the parser will; it counts flow brackets and
// follows block indentation with a stack of the collections open at each column, never recursing itself.
import { CST, Lexer } from 'yaml';

export interface YamlShapeLimits {
  readonly maxDepth: number;
  readonly maxMembers: number;
}

export interface YamlTextShapeProblem {
  readonly limit: 'depth' | 'members';
  /** 1-based line where the limit was passed. */
  readonly line: number;
  readonly reason: string;
}

/** A block collection: the column its items or keys start at, its depth, and (a mapping) whether its last key
 * has no value yet on its own line, so that a sequence at the key's own column is that value. */
interface BlockCollection {
  readonly column: number;
  readonly depth: number;
  readonly kind: 'seq' | 'map';
  openKey: boolean;
}

/** The lexer's markers, which stand for no source text. */
const markers = new Set(['\u0002', '\u0018', '\u001f']);

/**
 * Undefined when the text stays within the limits. Depth counts nested collections as the parsed data nests them
 * (block mappings and sequences by the columns their keys and items start at, flow ones by their brackets); members
 * count keys and items. Text the parser will reject is not judged here, only bounded.
 */
export function yamlTextShapeProblem(text: string, limits: YamlShapeLimits): YamlTextShapeProblem | undefined {
  let line = 1;
  let column = 0;
  let members = 0;
  /** Open flow collections, innermost last: whether each is still empty (its first item counts as a member). */
  const flow: boolean[] = [];
  /** The block depth the outermost open flow collection started at. */
  let flowBase = 0;
  const block: BlockCollection[] = [];
  /** Where the node being read started (its first token after a line start or an indicator). */
  let nodeColumn: number | undefined;
  /** The mapping whose key was just read on this line: a value on the same line fills it. */
  let awaitingValue: BlockCollection | undefined;
  let scalarSourceNext = false;
  /** After a block scalar's header (`|`, `>`), the next scalar is its content. */
  let blockScalarContentNext = false;

  const tooDeep = (depth: number): YamlTextShapeProblem | undefined =>
    depth > limits.maxDepth ? { limit: 'depth', line, reason: `nests deeper than ${limits.maxDepth} levels of mappings and sequences` } : undefined;
  const countMember = (): YamlTextShapeProblem | undefined =>
    ++members > limits.maxMembers ? { limit: 'members', line, reason: `has more than ${limits.maxMembers} keys and items in all` } : undefined;
  const newLine = (): void => {
    column = 0;
    nodeColumn = undefined;
    awaitingValue = undefined;
  };
  /** The collection a key (`map`) or item (`seq`) starting at `at` belongs to, opened if need be. */
  const open = (kind: 'seq' | 'map', at: number): YamlTextShapeProblem | undefined => {
    // Collections further right have ended; at the same column, a sequence continues a sequence, or is the value
    // of a mapping's key that has none yet, and a key continues a mapping.
    for (let top = block[block.length - 1]; top !== undefined; top = block[block.length - 1]) {
      if (top.column < at) break;
      if (top.column === at && top.kind === kind) return undefined;
      if (top.column === at && kind === 'seq' && top.kind === 'map' && top.openKey) break;
      block.pop();
    }
    const depth = (block[block.length - 1]?.depth ?? 0) + 1;
    block.push({ column: at, depth, kind, openKey: false });
    return tooDeep(depth);
  };
  /** A value (scalar, alias, flow collection…) where the token stands. */
  const content = (): YamlTextShapeProblem | undefined => {
    if (flow.length > 0) {
      if (flow[flow.length - 1]) {
        flow[flow.length - 1] = false;
        return countMember();
      }
      return undefined;
    }
    if (awaitingValue) awaitingValue.openKey = false;
    return undefined;
  };

  for (const token of new Lexer().lex(text)) {
    let problem: YamlTextShapeProblem | undefined;
    const start = column;
    if (!markers.has(token)) {
      const lastBreak = token.lastIndexOf('\n');
      column = lastBreak < 0 ? column + token.length : token.length - lastBreak - 1;
    }
    if (scalarSourceNext) {
      // The source of the scalar just announced (plain, or a block scalar's whole content): nothing to count. A block
      // scalar's content ends with its last line break; the next token starts a line.
      scalarSourceNext = false;
      line += newlines(token);
      if (token.endsWith('\n') && flow.length === 0) newLine();
      continue;
    }
    const type = CST.tokenType(token);
    switch (type) {
      case 'newline':
        line++;
        column = 0;
        if (flow.length === 0) newLine();
        continue;
      case 'space':
      case 'comment':
      case 'directive-line':
        line += newlines(token);
        continue;
      case 'doc-mode':
      case 'doc-start':
      case 'doc-end':
        // A new document starts from nothing.
        block.length = 0;
        newLine();
        continue;
      default:
        break;
    }
    // (A scalar's marker stands for no text: its node starts where its source does, which is where the marker is.)
    nodeColumn ??= start;
    switch (type) {
      case 'scalar':
        scalarSourceNext = true;
        if (blockScalarContentNext) blockScalarContentNext = false;
        else problem = content();
        break;
      case 'block-scalar-header':
        blockScalarContentNext = true;
        problem = content();
        break;
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
      case 'alias':
        problem = content();
        line += newlines(token);
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
        if (flow.length > 0) break;
        problem = open(type === 'seq-item-ind' ? 'seq' : 'map', start) ?? countMember();
        if (type === 'explicit-key-ind') block[block.length - 1]!.openKey = true;
        nodeColumn = undefined;
        break;
      case 'map-value-ind':
        // In flow collections commas count the members; a key there is not another level.
        if (flow.length > 0) break;
        // `? key` then `: value` at the same column: the value of that key, not a new one.
        if (nodeColumn === start && block[block.length - 1]?.column === start && block[block.length - 1]?.kind === 'map') {
          awaitingValue = block[block.length - 1];
        } else {
          problem = open('map', nodeColumn ?? start) ?? countMember();
          awaitingValue = block[block.length - 1];
          awaitingValue!.openKey = true;
        }
        nodeColumn = undefined;
        break;
      case 'flow-seq-start':
      case 'flow-map-start':
        problem = content();
        if (problem) break;
        if (flow.length === 0) {
          // The value of the key just read, an item of the sequence just marked, or a node on a line of its own.
          flowBase = awaitingValue?.depth ?? innermostLeftOf(block, start);
        }
        flow.push(true);
        problem = tooDeep(flowBase + flow.length);
        break;
      case 'flow-seq-end':
      case 'flow-map-end':
        flow.pop();
        break;
      case 'comma':
        if (flow.length > 0) problem = countMember();
        break;
      default:
        // Anchors, tags and the lexer's own markers neither nest nor count.
        line += newlines(token);
        break;
    }
    if (problem) return problem;
  }
  return undefined;
}

/** The depth of the innermost block collection that a node starting at `column` sits in. */
function innermostLeftOf(block: readonly BlockCollection[], column: number): number {
  for (let i = block.length - 1; i >= 0; i--) if (block[i]!.column < column || (block[i]!.column === column && block[i]!.kind === 'map' && block[i]!.openKey)) return block[i]!.depth;
  return 0;
}

function newlines(token: string): number {
  let count = 0;
  for (let at = token.indexOf('\n'); at >= 0; at = token.indexOf('\n', at + 1)) count++;
  return count;
}
