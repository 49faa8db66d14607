// Test support: a model store behind a one-voter local raft in a fresh temporary folder, for tests of what commands
// do once applied through the log. Everything it opens is closed, and its folders removed, when the test file ends
// (one `after` hook), so a failing assertion cannot leave a raft node running.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { silentLogger } from '../../common/log/logger.ts';
import type { RaftNode } from '../raft/node/raft-node.ts';
import { openLocalRaft } from '../raft/node/local-raft.ts';
import type { ApplyResult } from '../raft/state-machine.ts';
import { ModelStore } from '../store/model-store.ts';
import type { ModelCommand } from './commands.ts';
import { createModelTables } from './entities.ts';
import { ModelStateMachine } from './model-state-machine.ts';

export interface TestModel {
  readonly dir: string;
  readonly store: ModelStore;
  readonly machine: ModelStateMachine;
  readonly node: RaftNode;
  /** Proposes the command and answers what applying it returned. */
  apply(command: ModelCommand): Promise<ApplyResult>;
  /** Proposes the command and asserts it applied. */
  ok(command: ModelCommand): Promise<void>;
  /** Closes the raft node and the store now (the file's end closes whatever is still open). */
  close(): Promise<void>;
}

export interface TestModelOptions {
  /** Start of the temporary folder's name, to tell the tests' folders apart. */
  readonly prefix?: string;
  /** Where the temporary folder is made (default: the system's); a caller-owned folder is not removed here. */
  readonly parentDir?: string;
  /** Runs on the state machine before raft opens, e.g. to watch every change it applies. */
  readonly beforeStart?: (machine: ModelStateMachine) => void;
}

const stillOpen = new Set<() => Promise<void>>();
const folders: string[] = [];

after(async () => {
  for (const close of [...stillOpen]) await close();
  folders.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

/** Registers `close` to run when the test file ends unless the test ran it first; answers the once-only close. */
function closedAtEnd(close: () => Promise<void>): () => Promise<void> {
  const once = async () => {
    if (stillOpen.delete(once)) await close();
  };
  stillOpen.add(once);
  return once;
}

async function openStoreIn(options: TestModelOptions): Promise<{ dir: string; store: ModelStore }> {
  const dir = mkdtempSync(join(options.parentDir ?? tmpdir(), options.prefix ?? 'edgeward-model-'));
  if (options.parentDir === undefined) folders.push(dir);
  return { dir, store: await ModelStore.open(join(dir, 'ctrl.db'), createModelTables()) };
}

/** A model store alone (no raft) in a fresh temporary folder, closed and removed when the test file ends. */
export async function openTestStore(options: Pick<TestModelOptions, 'prefix' | 'parentDir'> = {}): Promise<{ dir: string; store: ModelStore }> {
  const opened = await openStoreIn(options);
  closedAtEnd(() => opened.store.close());
  return opened;
}

export async function openTestModel(options: TestModelOptions = {}): Promise<TestModel> {
  const { dir, store } = await openStoreIn(options);
  const machine = new ModelStateMachine(store);
  options.beforeStart?.(machine);
  const raft = await openLocalRaft({ id: 'ctrl', dataDir: dir, stateMachine: machine, logger: silentLogger });
  const close = closedAtEnd(async () => {
    await raft.close();
    await store.close();
  });
  const apply = async (command: ModelCommand) => (await raft.node.propose(command)).result;
  const ok = async (command: ModelCommand) => {
    const result = await apply(command);
    assert.equal(result.ok, true, JSON.stringify(result));
  };
  return { dir, store, machine, node: raft.node, apply, ok, close };
}
