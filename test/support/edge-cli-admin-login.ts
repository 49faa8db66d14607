// The edge CLI logged in to a test controller as its default administrator, the way an operator does it (the CA
// bundle and the password from files), in a session file of the caller's own so test files never share one.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminCredentials, type ControllerFixture } from './controller-fixture.ts';
import { runEdgeCli } from './edge-cli-scenario.ts';

/** Logs in and answers the environment that points later `runEdgeCli` calls at that session. */
export async function loginEdgeCliAsAdmin(controller: ControllerFixture, sessionFileName: string): Promise<NodeJS.ProcessEnv> {
  const caFile = join(controller.root, 'ca-bundle.pem');
  writeFileSync(caFile, controller.caPem);
  const passwordFile = join(controller.root, 'admin-password');
  writeFileSync(passwordFile, adminCredentials.password);
  const env = { EDGEWARD_EDGE_CLI_CONFIG: join(controller.root, sessionFileName) };
  const login = await runEdgeCli(['login', controller.origin, '-u', adminCredentials.username, '--password-file', passwordFile, '--ca', caFile], { env });
  assert.equal(login.code, 0, login.stderr);
  return env;
}
