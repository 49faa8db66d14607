// Routes signed as a batch: one ECDSA signature over the root of a hash tree of the routes a controller answered in
// one turn of its event loop, each route carrying its path to that root. A router that verifies a route recomputes
// the root from the route's own text and its path and checks the signature over the root (once per root: the routes
// of a batch usually travel to the same routers). Leaves and inner nodes are hashed with different first bytes, and
// the signed statement is not JSON, so neither a route's text nor a plain route signature can pass for the other.
// Routers that said `routeBatches` in their hello take them; every other route is signed alone (circuit-route.ts).
// The egress signs the `c.ready`s of one turn the same way when their routes say `readyBatches` (ready-proof.ts).
import { createHash } from 'node:crypto';

/** The most routes one signature covers (a path of at most log2 of this many steps). */
export const maxRouteBatch = 1024;
/** The longest path a verifier accepts. */
const maxPathSteps = 10;

/** One step of a route's path to the root: its sibling's hash (hex), on the left (`L…`) or on the right (`R…`). */
export type BatchStep = string;

/** The text the controller signs for a batch: its root, named as a batch root. */
export function batchStatement(rootHex: string): Buffer {
  return Buffer.from(`edgeward route batch v1\n${rootHex}`);
}

function leafHash(text: string): Buffer {
  return createHash('sha256').update(Buffer.of(0)).update(text).digest();
}

function nodeHash(left: Buffer, right: Buffer): Buffer {
  return createHash('sha256').update(Buffer.of(1)).update(left).update(right).digest();
}

/** The tree over `texts` (in order): its root (hex) and each text's path to it. A level's odd last node moves up as it is. */
export function batchTree(texts: readonly string[]): { readonly rootHex: string; readonly paths: readonly BatchStep[][] } {
  if (texts.length === 0 || texts.length > maxRouteBatch) throw new Error(`a route batch holds 1 to ${maxRouteBatch} routes, not ${texts.length}`);
  const paths: BatchStep[][] = texts.map(() => []);
  // Which leaves sit under each node of the current level.
  let level = texts.map(leafHash);
  let members = texts.map((_, index) => [index]);
  while (level.length > 1) {
    const next: Buffer[] = [];
    const nextMembers: number[][] = [];
    for (let i = 0; i < level.length; i += 2) {
      if (i + 1 === level.length) {
        next.push(level[i]!);
        nextMembers.push(members[i]!);
        continue;
      }
      const left = level[i]!;
      const right = level[i + 1]!;
      for (const leaf of members[i]!) paths[leaf]!.push(`R${right.toString('hex')}`);
      for (const leaf of members[i + 1]!) paths[leaf]!.push(`L${left.toString('hex')}`);
      next.push(nodeHash(left, right));
      nextMembers.push([...members[i]!, ...members[i + 1]!]);
    }
    level = next;
    members = nextMembers;
  }
  return { rootHex: level[0]!.toString('hex'), paths };
}

/** The root (hex) that `text` and its path lead to, or undefined when the path is malformed. */
export function batchRootOf(text: string, path: unknown): string | undefined {
  if (!Array.isArray(path) || path.length === 0 || path.length > maxPathSteps) return undefined;
  let hash = leafHash(text);
  for (const step of path) {
    if (typeof step !== 'string' || !/^[LR][0-9a-f]{64}$/.test(step)) return undefined;
    const sibling = Buffer.from(step.slice(1), 'hex');
    hash = step[0] === 'L' ? nodeHash(sibling, hash) : nodeHash(hash, sibling);
  }
  return hash.toString('hex');
}

/** Roots whose signature verified, per signer: a bounded memory, oldest first out. */
export class VerifiedRoots {
  private readonly roots = new Set<string>();

  constructor(private readonly capacity = 256) {}

  has(signerFingerprint: string, rootHex: string): boolean {
    return this.roots.has(`${signerFingerprint}/${rootHex}`);
  }

  add(signerFingerprint: string, rootHex: string): void {
    const key = `${signerFingerprint}/${rootHex}`;
    if (this.roots.has(key)) return;
    this.roots.add(key);
    if (this.roots.size > this.capacity) this.roots.delete(this.roots.values().next().value!);
  }
}
