// What the node's tests share (here and raft/worker): a key-value state machine (`set` commands, the size as each
// result, switches a test can flip: fail the next apply, count restores) and a bounded wait for a condition.
import type { ApplyResult, CommittedEntry } from '../state-machine.ts';
import type { RaftStateMachine } from './raft-node.ts';

export class KvStateMachine implements RaftStateMachine {
  values = new Map<string, string>();
  applied = 0;
  /** The next apply throws, as a model whose disk failed would. */
  failNext = false;
  restored = 0;

  appliedIndex(): number {
    return this.applied;
  }

  async apply(entries: readonly CommittedEntry[]): Promise<ApplyResult[]> {
    if (this.failNext) throw new Error('disk full');
    return entries.map((entry) => {
      this.applied = entry.index;
      const command = entry.command as { type: string; key?: string; value?: string };
      if (command.type === 'set') this.values.set(command.key!, command.value!);
      return { ok: true, value: this.values.size };
    });
  }

  snapshot(): unknown {
    return { values: [...this.values], applied: this.applied };
  }

  async restore(data: unknown, index: number): Promise<void> {
    this.values = new Map((data as { values: [string, string][] }).values);
    this.applied = index;
    this.restored++;
  }
}

/** Polls `probe` every 5 ms until it returns something truthy, which it returns; fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
