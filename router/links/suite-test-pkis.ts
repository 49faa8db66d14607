// Test support: two throwaway PKIs for one test file, made before its tests and disposed after them — `pki`, the
// network under test, and `other`, a foreign network whose certificates must be refused. Not used by the router.
import { after, before } from 'node:test';
import { createTestPki, type TestPki } from './link-test-support.ts';

export interface SuitePkis {
  /** The network under test; set once the file's `before` hooks have run. */
  pki: TestPki;
  /** A second, unrelated network. */
  other: TestPki;
}

/** Registers the hooks that make and dispose both PKIs; call at the top level of a test file. */
export function suiteTestPkis(): SuitePkis {
  const pkis = {} as SuitePkis;
  before(async () => {
    pkis.pki = await createTestPki();
    pkis.other = await createTestPki();
  });
  after(async () => {
    await pkis.pki?.dispose();
    await pkis.other?.dispose();
  });
  return pkis;
}
