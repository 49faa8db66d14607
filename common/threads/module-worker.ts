// A worker thread running one of our modules, from a checkout or from a release. In a checkout the module is
// TypeScript: the worker registers the loader the CLI runs under (tsx) and then imports, in order, the modules the
// process itself was started with `--import` (a test's fault-injecting preload must reach every thread), then the
// module. A release runs compiled JavaScript and starts the module as it is.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type Transferable, type WorkerOptions } from 'node:worker_threads';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ModuleWorkerOptions {
  readonly transferList?: Transferable[];
  readonly name?: string;
}

/** `module`: the module's file path; a `.ts` path is run through tsx. */
export function startModuleWorker(module: string, workerData: unknown, options: ModuleWorkerOptions = {}): Worker {
  const common: WorkerOptions = { workerData, ...(options.transferList ? { transferList: options.transferList } : {}), ...(options.name ? { name: options.name } : {}) };
  if (!module.endsWith('.ts')) return new Worker(module, common);
  const imports = importsOf(process.execArgv);
  const loader = pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/esm/api/index.mjs')).href;
  const preloads = imports.filter((specifier) => !specifier.includes('/tsx/') && specifier !== 'tsx');
  const source = [
    `const { register } = await import(${JSON.stringify(loader)});`,
    'register();',
    ...preloads.map((specifier) => `await import(${JSON.stringify(asImportable(specifier))});`),
    `await import(${JSON.stringify(pathToFileURL(module).href)});`,
  ].join(' ');
  // No flags of the process's own: the imports are done above, and V8's flags (--max-semi-space-size) are the
  // whole process's already and refused in a worker's list.
  return new Worker(source, { ...common, eval: true, execArgv: [] });
}

/** The modules the process was started with `--import`, in order. */
function importsOf(argv: readonly string[]): string[] {
  const imports: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--import' && i + 1 < argv.length) imports.push(argv[++i]!);
    else if (arg.startsWith('--import=')) imports.push(arg.slice('--import='.length));
  }
  return imports;
}

/** A specifier as `--import` took it (a path, or a URL), as dynamic import() takes it. */
function asImportable(specifier: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) return specifier;
  if (specifier.startsWith('.') || specifier.startsWith('/')) return pathToFileURL(resolve(specifier)).href;
  return specifier;
}
