// A copy of the raft code with one mutant applied, in a temporary directory that mirrors the repository: server/raft
// is copied, everything else it may import is linked, so relative imports resolve as they do in the repository.
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Mutant } from './mutants.ts';

export interface MutantTree {
  /** Stands for the repository root: `<root>/server/raft/...` holds the mutated code. */
  readonly root: string;
  remove(): Promise<void>;
}

export async function createMutantTree(repoRoot: string, mutant: Mutant): Promise<MutantTree> {
  const root = await mkdtemp(join(tmpdir(), `edgeward-mutant-${mutant.name}-`));
  const remove = () => rm(root, { recursive: true, force: true });
  try {
    await linkAllBut(repoRoot, root, 'server');
    await linkAllBut(join(repoRoot, 'server'), join(root, 'server'), 'raft');
    await cp(join(repoRoot, 'server', 'raft'), join(root, 'server', 'raft'), { recursive: true });
    const file = join(root, 'server', 'raft', mutant.file);
    await writeFile(file, applyMutant(await readFile(file, 'utf8'), mutant));
    return { root, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** The file's text with the mutant's edit; refused unless its text occurs exactly once (the code moved on). */
export function applyMutant(text: string, mutant: Mutant): string {
  const at = text.indexOf(mutant.find);
  if (at < 0 || text.indexOf(mutant.find, at + 1) >= 0) {
    throw new Error(`mutant ${mutant.name}: its text occurs ${at < 0 ? 'nowhere' : 'more than once'} in server/raft/${mutant.file}; update the mutant`);
  }
  return text.slice(0, at) + mutant.replace + text.slice(at + mutant.find.length);
}

/** Links every entry of `from` into `to` (created) except `except`, which is created as a directory. */
async function linkAllBut(from: string, to: string, except: string): Promise<void> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(to, except), { recursive: true });
  for (const entry of await readdir(from)) {
    if (entry === except || entry === '.git') continue;
    await symlink(join(from, entry), join(to, entry));
  }
}
