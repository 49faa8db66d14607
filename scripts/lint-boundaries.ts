// Module boundaries the architecture promises, checked on every test run: domain code never imports Koa or the web
// layer, pure folders never touch the clock, disk or network, router/ shares code with server/ only through common/,
// heartbeats live once (common/channel/), no test is skipped or focused, and no composition root grows a function
// over 100 lines.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { longFunctions } from './function-length.ts';

const root = new URL('..', import.meta.url).pathname;

interface Rule {
  readonly folders: readonly string[];
  readonly forbidden: RegExp;
  readonly why: string;
  readonly includeTests?: boolean;
  /** Only files whose path (from the repository root) matches; all files of the folders when unset. */
  readonly files?: RegExp;
  /** Files (path from the repository root) the rule does not apply to. */
  readonly exceptFiles?: RegExp;
}

/** An import (static, re-export or dynamic) whose relative path goes up and then into `target`. */
const importsInto = (target: string) => new RegExp(`(\\bfrom\\s+|\\bimport\\s*\\(\\s*|^\\s*import\\s+)['"](\\.\\./)+${target}`);

const rules: Rule[] = [
  {
    folders: ['server/model', 'server/store', 'server/raft', 'server/edge', 'server/auth', 'server/events', 'common', 'router/config'],
    forbidden: /from ['"](koa|@koa\/[^'"]+)['"]/,
    why: 'domain code does not import Koa',
  },
  {
    folders: ['server/raft/core', 'server/raft/sim', 'router/config', 'common/config', 'server/web/query', 'alerts/core'],
    forbidden: /from ['"]node:(fs|tls|http|https|dgram|child_process)(\/promises)?['"]|\bcreateServer\(|\bcreateConnection\(|\bDate\.now\(|\bMath\.random\(|\bsetTimeout\(|\bsetInterval\(/,
    why: 'pure modules take the clock, randomness and I/O as parameters',
  },
  {
    folders: ['server/edge', 'server/auth', 'server/model', 'server/store', 'server/raft', 'server/events', 'server/cluster', 'server/circuits', 'server/routers'],
    forbidden: importsInto('(server/)?web/'),
    why: 'the domain does not import the web layer: its errors live in server/edge/edge-error.ts and server/web maps them to HTTP',
  },
  {
    folders: ['server/raft'],
    forbidden: importsInto('(server/)?routers/'),
    why: 'raft carries routers\' sockets (the control port hands them over) but does not import the router hub',
    includeTests: true,
  },
  {
    folders: ['server/auth'],
    forbidden: importsInto('edge/'),
    why: 'server/auth holds credential primitives the edge services use; it does not import them back',
    includeTests: true,
  },
  {
    folders: ['server/model'],
    files: /-entities\.ts$/,
    forbidden: /(\bfrom\s+|\bimport\s*\(\s*)['"]\.\/entities\.ts['"]/,
    why: 'entities.ts gathers the *-entities.ts tables; they take BaseEntity from base-entity.ts, not from it',
  },
  {
    folders: ['router'],
    forbidden: importsInto('server/'),
    why: 'router/ and server/ share code only through common/',
    includeTests: true,
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
    folders: ['server', 'router', 'common'],
    // The message type lists name them; raw-link-peer.ts is test support that drives a link by hand, as a hostile router would.
    exceptFiles: /^(common\/channel\/|common\/control-channel\/control-messages\.ts$|router\/links\/raw-link-peer\.ts$)/,
    forbidden: /['"]hbAck['"]|\bsilentFor|\blastReceived\b/,
    why: 'heartbeats and the silence check live once, in common/channel/ (channel-heartbeat.ts): a channel starts them on its FramedConnection',
  },
  {
    folders: ['sdk'],
    forbidden: importsInto('(server|router|tunnel)/'),
    why: 'the SDK is a client of the overlay: it imports only common/ and its own modules',
    includeTests: true,
  },
  {
    folders: ['tunnel'],
    forbidden: importsInto('(server|router)/'),
    why: 'the tunneler is built on the SDK: it imports only sdk/, common/ and its own modules',
    includeTests: true,
  },
  {
    folders: ['server', 'router', 'common', 'sdk', 'tunnel', 'alerts', 'grafana', 'dashboard', 'test', 'bench'],
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
      if (rule.files && !rule.files.test(relative(root, file))) continue;
      if (rule.exceptFiles?.test(relative(root, file))) continue;
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
