import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchRootOf, batchTree, maxRouteBatch, VerifiedRoots } from './route-batch.ts';

const texts = (count: number) => Array.from({ length: count }, (_, i) => `{"circuitId":"route-${i}"}`);

describe('route batches', () => {
  it('every text of a batch of 1 to 17 leads to the one root by its own path, and no other text does', () => {
    for (let count = 1; count <= 17; count++) {
      const batch = texts(count);
      const { rootHex, paths } = batchTree(batch);
      batch.forEach((text, index) => {
        if (count > 1) assert.equal(batchRootOf(text, paths[index]), rootHex, `${count} routes, route ${index}`);
        assert.ok(paths[index]!.length <= Math.ceil(Math.log2(count)), 'a path no longer than the tree is deep');
        assert.notEqual(batchRootOf(`${text} `, paths[index]), rootHex, 'a changed text leads elsewhere');
        if (count > 1) assert.notEqual(batchRootOf(batch[(index + 1) % count]!, paths[index]), rootHex, 'another route with this path leads elsewhere');
      });
    }
  });

  it('a lone route\'s root is its leaf, and a path cannot be cut short to pass an inner node off as a route', () => {
    const { rootHex, paths } = batchTree(texts(4));
    // The inner node over routes 0 and 1 is not the hash of any route text: presenting its children's hashes as a
    // "text" does not reach the root, since leaves and inner nodes hash with different first bytes.
    const sibling = paths[0]![0]!.slice(1);
    assert.notEqual(batchRootOf(sibling, paths[0]!.slice(1)), rootHex);
    assert.notEqual(batchTree(texts(1)).rootHex, batchTree(texts(2)).rootHex);
  });

  it('refuses malformed paths: empty, too long, a step without a side, short hashes, not strings', () => {
    const text = texts(1)[0]!;
    const step = `L${'ab'.repeat(32)}`;
    assert.equal(batchRootOf(text, []), undefined);
    assert.equal(batchRootOf(text, Array.from({ length: 11 }, () => step)), undefined);
    assert.equal(batchRootOf(text, ['ab'.repeat(32)]), undefined);
    assert.equal(batchRootOf(text, [`R${'ab'.repeat(31)}`]), undefined);
    assert.equal(batchRootOf(text, [`R${'AB'.repeat(32)}`]), undefined);
    assert.equal(batchRootOf(text, [1]), undefined);
    assert.equal(batchRootOf(text, 'L00'), undefined);
    assert.equal(typeof batchRootOf(text, [step]), 'string');
  });

  it('holds 1 to maxRouteBatch routes', () => {
    assert.throws(() => batchTree([]), /1 to 1024/);
    assert.throws(() => batchTree(texts(maxRouteBatch + 1)), /1 to 1024/);
    const { paths } = batchTree(texts(maxRouteBatch));
    assert.equal(paths[maxRouteBatch - 1]!.length, 10);
  });

  it('remembers verified roots per signer, the oldest forgotten past its capacity', () => {
    const roots = new VerifiedRoots(2);
    roots.add('signer-a', 'r1');
    assert.ok(roots.has('signer-a', 'r1'));
    assert.equal(roots.has('signer-b', 'r1'), false, 'another signer\'s root is not taken');
    roots.add('signer-a', 'r2');
    roots.add('signer-a', 'r3');
    assert.equal(roots.has('signer-a', 'r1'), false);
    assert.ok(roots.has('signer-a', 'r2') && roots.has('signer-a', 'r3'));
  });
});
