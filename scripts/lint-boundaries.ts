// Module boundaries the architecture promises, checked on every test run: domain code never imports Koa, pure
// folders never touch the clock, disk or network, no test is skipped or focused, and no composition root grows a
// function over 100 lines.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { longFunctions } from './function-length.ts';

const root = new URL('..', import.meta.url).pathname;

interface Rule {
  readonly folders: readonly string[];
  readonly forbidden: RegExp;
  readonly why: string;
  readonly includeTests?: boolean;
}

const rules: Rule[] = [
  {
    folders: ['server/model', 'server/store', 'server/raft', 'server/edge', 'server/auth', 'server/events', 'common', 'router/config'],
    forbidden: /from ['"](koa|@koa\/[^'"]+)['"]/,
    why: 'domain code does not import Koa',
  },
  {
    folders: ['server/raft/core', 'server/raft/sim', 'router/config', 'common/config', 'server/edge/query', 'alerts/core'],
    forbidden: /from ['"]node:(fs|tls|http|https|dgram|child_process)(\/promises)?['"]|\bcreateServer\(|\bcreateConnection\(|\bDate\.now\(|\bMath\.random\(|\bsetTimeout\(|\bsetInterval\(/,
    why: 'pure modules take the clock, randomness and I/O as parameters',
  },
  {
    folders: ['alerts', 'grafana', 'dashboard'],
    forbidden: /from ['"](\.\.\/)+(server|router)\//,
    why: 'the appliance reads the controller\'s public surfaces (APIs, metrics, log and event files), not its modules',
  },
  {
    folders: ['server/cli/edge'],
    forbidden: /from ['"]\.\.\/(?!\.\.\/\.\.\/common\/)/,
    why: 'the edge CLI is a client of the Management API: it imports only common/ and its own modules',
  },
  {
    folders: ['server', 'router', 'common', 'alerts', 'grafana', 'dashboard', 'test', 'bench'],
    forbidden: /\b(test|it|describe)\.(skip|only|todo)\(|\{\s*(skip|only|todo)\s*:\s*true/,
    why: 'no skipped, focused or todo tests',
    includeTests: true,
  },
];

function* sourceFiles(dir: string): Generator<string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|tsx|mts)$/.test(name)) yield path;
  }
}

const violations: string[] = [];
for (const rule of rules) {
  for (const folder of rule.folders) {
    for (const file of sourceFiles(join(root, folder))) {
      if (!rule.includeTests && file.endsWith('.test.ts')) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (rule.forbidden.test(line)) violations.push(`${relative(root, file)}:${index + 1}: ${rule.why}: ${line.trim()}`);
        });
    }
  }
}

// Composition roots stay a readable start order, their parts in files named for their job (issue 37).
const maxFunctionLines = 100;
for (const folder of ['server/controller', 'router/run', 'server/demo', 'dashboard/page-server']) {
  for (const file of sourceFiles(join(root, folder))) {
    if (file.endsWith('.test.ts')) continue;
    for (const found of longFunctions(file, readFileSync(file, 'utf8'), maxFunctionLines)) {
      violations.push(`${relative(root, file)}:${found.line}: ${found.name} is ${found.lines} lines, over ${maxFunctionLines}: split it into parts named for their job`);
    }
  }
}

if (violations.length > 0) {
  console.error(violations.join('\n'));
  console.error(`lint: ${violations.length} boundary violation(s)`);
  process.exit(1);
}
console.log('lint: module boundaries hold');
