// Functions longer than a limit, for the lint: composition roots stay a readable start order, their parts in files
// named for their job. A function's length is the lines from its first to its last, nested functions included.
import ts from 'typescript';

export interface LongFunction {
  readonly name: string;
  /** 1-based line of the function's start. */
  readonly line: number;
  readonly lines: number;
}

/** Every function, method, constructor, accessor or arrow function in `source` longer than `maxLines` lines. */
export function longFunctions(fileName: string, source: string, maxLines: number): LongFunction[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > maxLines) found.push({ name: functionName(node), line: start + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function functionName(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name))) return named.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}
